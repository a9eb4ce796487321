"""Chooses the plugins linked into llmc's tools from the //plugins:enabled flag."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")

def _linked_plugins_impl(ctx):
    enabled = ctx.attr.enabled[BuildSettingInfo].value
    by_id = {}
    for target, plugin_id in ctx.attr.plugins.items():
        by_id[plugin_id] = target
    chosen = []
    for plugin_id in enabled:
        if plugin_id not in by_id:
            fail("//plugins:enabled names unknown plugin '%s'; known plugins: %s" %
                 (plugin_id, ", ".join(sorted(by_id.keys()))))
        if plugin_id in chosen:
            fail("//plugins:enabled names plugin '%s' twice" % plugin_id)
        chosen.append(plugin_id)
    inc = ctx.actions.declare_file(ctx.attr.out)
    ctx.actions.write(
        inc,
        "// Generated from //plugins:enabled; do not edit.\n" +
        "".join(["LLMC_PLUGIN(%s)\n" % plugin_id for plugin_id in chosen]),
    )
    cc_infos = [by_id[plugin_id][CcInfo] for plugin_id in chosen]
    return [
        DefaultInfo(files = depset([inc])),
        cc_common.merge_cc_infos(cc_infos = cc_infos),
    ]

linked_plugins = rule(
    implementation = _linked_plugins_impl,
    doc = """Generates the LLMC_PLUGIN(id) list of the enabled plugins and
    forwards only their libraries, so a plugin left out of the flag is neither
    registered nor linked.""",
    attrs = {
        "plugins": attr.label_keyed_string_dict(
            providers = [CcInfo],
            doc = "Every plugin library llmc knows, mapped to its id.",
        ),
        "enabled": attr.label(providers = [BuildSettingInfo]),
        "out": attr.string(mandatory = True),
    },
)
