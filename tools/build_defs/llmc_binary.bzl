"""llmc_binary: one chip and mode of a checkpoint, piece by piece.

Each piece is an action of its own (`llmc convert --pieces <piece>`), whose
inputs are the checkpoint's files and whose command line holds only the
options that piece sees, so Bazel caches, parallelizes and (remotely)
executes the pieces one by one and recompiles only the pieces an edit
changes; `llmc merge` then writes the binary a single `llmc convert` with the
same options writes, byte for byte. llmc_model (llmc_model.bzl) generates
these targets; see README.md, "Conversion as a Bazel build".
"""

def _llmc_binary_impl(ctx):
    llmc = ctx.executable.llmc
    common = [
        "convert",
        "--model=" + ctx.file.config.dirname,
        "--chip=" + ctx.attr.chip,
        "--quantize=" + ctx.attr.mode,
        # Bazel runs the pieces in parallel; the output is the same for any
        # thread count.
        "--threads=1",
        "--quiet",
    ] + ctx.attr.flags
    pieces = []
    for piece in ctx.attr.pieces:
        out = ctx.actions.declare_file("%s.pieces/%s.llmc" % (ctx.label.name, piece))
        args = ctx.actions.args()
        args.add_all(common)
        args.add("--pieces=" + piece)
        args.add_all(ctx.attr.piece_flags.get(piece, []))
        args.add("--output=" + out.path)
        _run_llmc(ctx, llmc, args, ctx.files.checkpoint, out, "LlmcPiece", piece)
        pieces.append(out)
    binary = ctx.actions.declare_file(ctx.label.name + ".llmc")
    args = ctx.actions.args()
    args.add("merge")
    args.add_all(pieces)
    args.add("--output=" + binary.path)
    _run_llmc(ctx, llmc, args, pieces, binary, "LlmcMerge", "the pieces")
    return [
        # In runfiles too, so tests can take the binary as data.
        DefaultInfo(files = depset([binary]), runfiles = ctx.runfiles(files = [binary])),
        OutputGroupInfo(pieces = depset(pieces)),
    ]

def _run_llmc(ctx, llmc, args, inputs, output, mnemonic, what):
    # The summary llmc prints on stdout would be a line per action in every
    # build; errors go to stderr.
    ctx.actions.run_shell(
        command = '"$@" >/dev/null',
        arguments = [llmc.path, args],
        inputs = inputs,
        tools = [llmc],
        outputs = [output],
        mnemonic = mnemonic,
        progress_message = "llmc: %s of %s for %s %s" % (
            what,
            ctx.label,
            ctx.attr.chip,
            ctx.attr.mode,
        ),
    )

llmc_binary = rule(
    implementation = _llmc_binary_impl,
    doc = "A checkpoint compiled for one chip and mode into <name>.llmc.",
    attrs = {
        "checkpoint": attr.label_list(
            allow_files = True,
            mandatory = True,
            doc = "Every file of the checkpoint directory.",
        ),
        "config": attr.label(
            allow_single_file = ["config.json"],
            mandatory = True,
            doc = "The checkpoint's config.json; its directory is `-m`.",
        ),
        "chip": attr.string(mandatory = True),
        "mode": attr.string(mandatory = True, doc = "The -q mode."),
        "pieces": attr.string_list(
            mandatory = True,
            doc = "Every piece, in the order `llmc pieces --list` prints.",
        ),
        "flags": attr.string_list(doc = "Options of every piece's convert."),
        "piece_flags": attr.string_list_dict(
            doc = "Options of one piece's convert only, by piece name.",
        ),
        # The compiler runs on the machine it is built for (Linux x86-64
        # both), so it is built once, in the target configuration, rather
        # than a second time for an exec configuration.
        "llmc": attr.label(
            default = "@//tools/llmc",
            executable = True,
            cfg = "target",
            # A prebuilt llmc may be a source file.
            allow_files = True,
        ),
    },
)

def _llmc_command_impl(ctx):
    # Under `bazel run` and in tests the working directory is the runfiles
    # tree, where both files are; llmc itself then moves to the directory
    # the user ran the command in (BUILD_WORKING_DIRECTORY), so it gets them
    # as absolute paths.
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        script,
        """#!/usr/bin/env bash
set -euo pipefail
exec "$PWD/{llmc}" {command} -m "$PWD/{binary}" "$@"
""".format(
            llmc = ctx.executable.llmc.short_path,
            command = ctx.attr.command,
            binary = ctx.file.binary.short_path,
        ),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [ctx.executable.llmc, ctx.file.binary])
    runfiles = runfiles.merge(ctx.attr.llmc[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

llmc_command = rule(
    implementation = _llmc_command_impl,
    doc = "`bazel run` of `llmc <command> -m <binary>`, with the arguments " +
          "after `--` appended (`@fortune//:bm1684x_w8f16_run -- -p Hi`).",
    executable = True,
    attrs = {
        "binary": attr.label(allow_single_file = [".llmc"], mandatory = True),
        "command": attr.string(mandatory = True, values = ["run", "chat"]),
        "llmc": attr.label(
            default = "@//tools/llmc",
            executable = True,
            cfg = "target",
            allow_files = True,
        ),
    },
)
