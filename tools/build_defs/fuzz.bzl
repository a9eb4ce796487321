"""libFuzzer targets: clang-22 with AddressSanitizer and UBSan.

`llmc_fuzz_target(name, srcs, deps, corpus)` defines
  - `name`: `bazel run //fuzz:name -- [libFuzzer flags]` runs a campaign. New
    inputs go to $LLMC_FUZZ_DIR/name/corpus (default ~/.cache/llmc/fuzz),
    crashes to $LLMC_FUZZ_DIR/name/; the committed seeds are read, never
    written.
  - `name_test`: the suite's run of the target: every committed seed, then a
    bounded campaign from a fixed seed, so a finding fails the test and
    reproduces.

The binary and everything it links are built in a configuration of their
own (the clang toolchain of //third_party/clang, sanitizer and coverage
flags), reached through a transition: the rest of the build keeps gcc.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

_SANITIZE = [
    "-fsanitize=fuzzer-no-link,address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
]

def _fuzz_transition_impl(settings, attr):
    return {
        "//command_line_option:crosstool_top": "//third_party/clang:toolchain",
        "//command_line_option:compiler": "clang",
        # gcc's warning options would only draw clang's complaints.
        "//command_line_option:copt": ["-O1"] + _SANITIZE,
        "//command_line_option:linkopt": ["-fsanitize=address,undefined"],
    }

_fuzz_transition = transition(
    implementation = _fuzz_transition_impl,
    inputs = [],
    outputs = [
        "//command_line_option:crosstool_top",
        "//command_line_option:compiler",
        "//command_line_option:copt",
        "//command_line_option:linkopt",
    ],
)

def _runner_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo].files_to_run.executable
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.expand_template(
        template = ctx.file._template,
        output = script,
        substitutions = {
            "@BINARY@": binary.short_path,
            "@NAME@": ctx.attr.target_name,
            "@CORPUS@": ctx.label.package + "/corpus/" + ctx.attr.target_name,
            "@MODE@": ctx.attr.mode,
            "@ENV@": "\n".join([
                'export %s="$root/%s"' % (key, ctx.expand_location(value, ctx.attr.data))
                for key, value in ctx.attr.env.items()
            ]),
        },
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [binary] + ctx.files.corpus + ctx.files.data)
    runfiles = runfiles.merge(ctx.attr.binary[0][DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

_RUNNER_ATTRS = {
    "binary": attr.label(cfg = _fuzz_transition, mandatory = True),
    "corpus": attr.label_list(allow_files = True),
    "data": attr.label_list(allow_files = True),
    # Variables the target reads, set to paths under the runfiles root:
    # $(rootpath) of a `data` file.
    "env": attr.string_dict(),
    "target_name": attr.string(mandatory = True),
    "mode": attr.string(mandatory = True),
    "_template": attr.label(
        default = "//tools/build_defs:fuzz_runner.sh.tpl",
        allow_single_file = True,
    ),
    "_allowlist_function_transition": attr.label(
        default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
    ),
}

_fuzz_campaign = rule(
    implementation = _runner_impl,
    attrs = _RUNNER_ATTRS,
    executable = True,
)

_fuzz_test = rule(
    implementation = _runner_impl,
    attrs = _RUNNER_ATTRS,
    test = True,
)

def llmc_fuzz_target(name, srcs, deps = [], corpus = [], data = [], env = {}, **kwargs):
    """A libFuzzer target, its campaign runner and its test (see above).

    `env` sets variables for the target to paths of `data` files, written as
    "$(rootpath label)".
    """
    cc_binary(
        name = name + "_fuzzer",
        srcs = srcs,
        deps = deps,
        linkopts = ["-fsanitize=fuzzer"],
        # Built only through the transition: gcc has no libFuzzer.
        tags = ["manual"],
        **kwargs
    )
    _fuzz_campaign(
        name = name,
        binary = ":" + name + "_fuzzer",
        corpus = corpus,
        data = data,
        env = env,
        target_name = name,
        mode = "campaign",
    )
    _fuzz_test(
        name = name + "_test",
        binary = ":" + name + "_fuzzer",
        corpus = corpus,
        data = data,
        env = env,
        target_name = name,
        mode = "test",
        size = "medium",
    )
