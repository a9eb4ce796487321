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

# The device library of every chip plugin (what a runtime links), mapped to
# the chip's id; frontends have none.
KNOWN_DEVICES = {
    "//backends/bm1684x:device": "bm1684x",
    "//backends/bm1688:device": "bm1688",
    "//backends/cv186x:device": "cv186x",
    "//backends/host:device": "host",
}

def _chosen_ids(ctx):
    """The plugin ids the `enabled` flag names, checked against KNOWN_PLUGINS."""
    known = KNOWN_PLUGINS.values()
    chosen = []
    for plugin_id in ctx.attr.enabled[BuildSettingInfo].value:
        if plugin_id not in known:
            fail("%s names unknown plugin '%s'; known plugins: %s" %
                 (ctx.attr.enabled.label, plugin_id, ", ".join(sorted(known))))
        if plugin_id in chosen:
            fail("%s names plugin '%s' twice" % (ctx.attr.enabled.label, plugin_id))
        chosen.append(plugin_id)
    return chosen

def _registrations(ctx, by_id, chosen, header, function, parameter, suffix):
    """A generated `function(parameter)` calling register_<id><suffix> of
    each chosen id in order (declared in plugins/<header>), and the merged
    libraries of the chosen targets."""
    argument = parameter.split("&")[-1]
    source = ctx.actions.declare_file(ctx.label.name + ".cpp")
    ctx.actions.write(
        source,
        "// Generated from %s; do not edit.\n" % ctx.attr.enabled.label +
        "#include \"plugins/%s\"\n\n" % header +
        "namespace llmc::plugins {\n\n" +
        "".join(["void register_%s%s(%s);\n" % (i, suffix, parameter) for i in chosen]) +
        "\nvoid %s(%s) {\n" % (function, parameter) +
        "".join(["  register_%s%s(%s);\n" % (i, suffix, argument) for i in chosen]) +
        "}\n\n} // namespace llmc::plugins\n",
    )
    return [
        DefaultInfo(files = depset([source])),
        cc_common.merge_cc_infos(cc_infos = [by_id[i][CcInfo] for i in chosen]),
    ]

def _linked_plugins_impl(ctx):
    by_id = {}
    for target, plugin_id in ctx.attr.plugins.items():
        by_id[plugin_id] = target
    return _registrations(ctx, by_id, _chosen_ids(ctx), "LinkedPlugins.h",
                          "registerLinkedPlugins", "Registrar &registrar", "")

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

def _linked_devices_impl(ctx):
    by_id = {}
    for target, chip_id in ctx.attr.devices.items():
        by_id[chip_id] = target
    chosen = [i for i in _chosen_ids(ctx) if i in by_id]
    return _registrations(ctx, by_id, chosen, "DeviceRegistry.h",
                          "registerLinkedDevices", "DeviceRegistry &registry",
                          "_device")

_linked_devices = rule(
    implementation = _linked_devices_impl,
    doc = """Generates registerLinkedDevices() calling register_<id>_device of
    the enabled chips, in order, and forwards only their device libraries:
    what a runtime links, without the compiler's plugins.""",
    attrs = {
        "devices": attr.label_keyed_string_dict(providers = [CcInfo]),
        "enabled": attr.label(providers = [BuildSettingInfo], mandatory = True),
    },
)

def linked_devices_library(name, enabled, **kwargs):
    """A cc_library `name` whose registerLinkedDevices registers the devices
    of the chips the string_list_flag `enabled` names."""
    _linked_devices(
        name = name + "_registrations",
        enabled = enabled,
        devices = KNOWN_DEVICES,
    )
    cc_library(
        name = name,
        srcs = [
            "//plugins:LinkedDevices.cpp",
            ":" + name + "_registrations",
        ],
        deps = [
            ":" + name + "_registrations",
            "//plugins:device_registry",
        ],
        **kwargs
    )
