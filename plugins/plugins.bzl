"""Chooses the plugins linked into llmc's tools from the //plugins:enabled flag."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc:defs.bzl", "cc_library")

# Every plugin library llmc knows, mapped to its id.
KNOWN_PLUGINS = {
    "//frontends/hf:plugin": "hf",
    "//frontends/gguf:plugin": "gguf",
    "//frontends/onnx:plugin": "onnx",
    "//backends/bm1684x:plugin": "bm1684x",
    "//backends/bm1688:plugin": "bm1688",
    "//backends/cv186x:plugin": "cv186x",
    "//backends/host:plugin": "host",
}

def _linked_plugins_impl(ctx):
    enabled = ctx.attr.enabled[BuildSettingInfo].value
    by_id = {}
    for target, plugin_id in ctx.attr.plugins.items():
        by_id[plugin_id] = target
    chosen = []
    for plugin_id in enabled:
        if plugin_id not in by_id:
            fail("%s names unknown plugin '%s'; known plugins: %s" %
                 (ctx.attr.enabled.label, plugin_id, ", ".join(sorted(by_id.keys()))))
        if plugin_id in chosen:
            fail("%s names plugin '%s' twice" % (ctx.attr.enabled.label, plugin_id))
        chosen.append(plugin_id)
    source = ctx.actions.declare_file(ctx.label.name + ".cpp")
    ctx.actions.write(
        source,
        "// Generated from %s; do not edit.\n" % ctx.attr.enabled.label +
        "#include \"plugins/LinkedPlugins.h\"\n\n" +
        "namespace llmc::plugins {\n\n" +
        "".join(["void register_%s(Registrar &registrar);\n" % i for i in chosen]) +
        "\nvoid registerLinkedPlugins(Registrar &registrar) {\n" +
        "".join(["  register_%s(registrar);\n" % i for i in chosen]) +
        "}\n\n} // namespace llmc::plugins\n",
    )
    cc_infos = [by_id[plugin_id][CcInfo] for plugin_id in chosen]
    return [
        DefaultInfo(files = depset([source])),
        cc_common.merge_cc_infos(cc_infos = cc_infos),
    ]

_linked_plugins = rule(
    implementation = _linked_plugins_impl,
    doc = """Generates registerLinkedPlugins() calling register_<id> of the
    enabled plugins, in order, and forwards only their libraries, so a plugin
    left out of the flag is neither registered nor linked.""",
    attrs = {
        "plugins": attr.label_keyed_string_dict(providers = [CcInfo]),
        "enabled": attr.label(providers = [BuildSettingInfo], mandatory = True),
    },
)

def linked_plugins_library(name, enabled, **kwargs):
    """A cc_library `name` with plugins/LinkedPlugins.h whose registry holds
    the plugins the string_list_flag `enabled` names."""
    _linked_plugins(
        name = name + "_registrations",
        enabled = enabled,
        plugins = KNOWN_PLUGINS,
    )
    cc_library(
        name = name,
        srcs = [
            "//plugins:LinkedPlugins.cpp",
            ":" + name + "_registrations",
        ],
        deps = [
            ":" + name + "_registrations",
            "//plugins:linked_plugins_header",
        ],
        **kwargs
    )
