"""Tests that //plugins:enabled decides which plugins a tool links and registers."""

def _enabled_transition_impl(settings, attr):
    return {"//plugins:enabled": attr.enabled}

_enabled_transition = transition(
    implementation = _enabled_transition_impl,
    inputs = [],
    outputs = ["//plugins:enabled"],
)

def _plugin_set_test_impl(ctx):
    tool = ctx.attr.tool[0][DefaultInfo].files_to_run.executable
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        script,
        """#!/usr/bin/env bash
set -euo pipefail
listing=$({tool} --list-plugins)
echo "$listing"
symbols=$(nm -C {tool})
for id in {present}; do
  grep -qE "^  $id " <<<"$listing" || {{ echo "FAIL: plugin $id is not registered"; exit 1; }}
  grep -q "register_$id(" <<<"$symbols" || {{ echo "FAIL: plugin $id is not linked"; exit 1; }}
done
for id in {absent}; do
  if grep -qE "^  $id " <<<"$listing"; then echo "FAIL: plugin $id is registered"; exit 1; fi
  if grep -q "register_$id(" <<<"$symbols"; then echo "FAIL: plugin $id is linked"; exit 1; fi
done
echo PASS
""".format(
            tool = tool.short_path,
            present = " ".join(ctx.attr.enabled),
            absent = " ".join(ctx.attr.absent),
        ),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [tool]).merge(ctx.attr.tool[0][DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

plugin_set_test = rule(
    implementation = _plugin_set_test_impl,
    test = True,
    doc = "Builds `tool` with //plugins:enabled = `enabled` and checks that " +
          "exactly those plugins are registered and linked, and `absent` are not.",
    attrs = {
        "tool": attr.label(cfg = _enabled_transition, executable = True, mandatory = True),
        "enabled": attr.string_list(),
        "absent": attr.string_list(),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
