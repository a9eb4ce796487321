"""Tests that a plugin set decides which plugins a tool links and registers.

A set other than the default is tested on a small lister linked with
linked_plugins_library, the rule //tools/llmc uses, in the default build
configuration: testing it on //tools/llmc itself would need a configuration
transition, which rebuilds the whole tree under the tool once per set.
"""

load("@bazel_skylib//rules:common_settings.bzl", "string_list_flag")
load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//plugins:plugins.bzl", "linked_plugins_library")

def _plugin_set_check_impl(ctx):
    tool = ctx.attr.tool[DefaultInfo].files_to_run.executable
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        script,
        """#!/usr/bin/env bash
set -euo pipefail
listing=$({tool} {flags})
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
            flags = " ".join(ctx.attr.tool_args),
            present = " ".join(ctx.attr.enabled),
            absent = " ".join(ctx.attr.absent),
        ),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [tool]).merge(ctx.attr.tool[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

_plugin_set_check_test = rule(
    implementation = _plugin_set_check_impl,
    test = True,
    attrs = {
        "tool": attr.label(executable = True, mandatory = True, cfg = "target"),
        "tool_args": attr.string_list(),
        "enabled": attr.string_list(),
        "absent": attr.string_list(),
    },
)

def plugin_set_test(name, enabled, absent, tool = None, **kwargs):
    """Checks that exactly `enabled` are registered and linked and `absent`
    are not: in `tool` (a program printing the `--list-plugins` listing,
    built with the default //plugins:enabled), or, without `tool`, in a
    lister linked with the set `enabled`."""
    tool_args = ["--list-plugins"]
    if tool == None:
        string_list_flag(name = name + "_set", build_setting_default = enabled)
        linked_plugins_library(name = name + "_plugins", enabled = ":" + name + "_set")
        cc_binary(
            name = name + "_lister",
            srcs = ["//plugins/test:ListPlugins.cpp"],
            deps = [":" + name + "_plugins"],
        )
        tool = ":" + name + "_lister"
        tool_args = []
    _plugin_set_check_test(
        name = name,
        tool = tool,
        tool_args = tool_args,
        enabled = enabled,
        absent = absent,
        **kwargs
    )
