"""llmc_model in a Bazel workspace of its own: the build writes the binary
`llmc convert` writes, and after a one-line edit of WORKSPACE (lm_head in
F16) only lm_head's action and the merge run again.

A nested Bazel (its own --output_user_root, batch mode, local spawns) builds
a workspace holding the rules under test, the llmc binary under test as
`//tools/llmc` and the demo checkpoint: it needs no network, no server and
nothing from the outer build but its runfiles.

  llmc_model_rebuild_test.py --llmc=PATH --rules=DIR --checkpoint=DIR
"""

import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..",
                                "llmc", "test"))
from cli_common import Failures, scratch_directory  # noqa: E402

WORKSPACE = """load("//tools/build_defs:llmc_model.bzl", "llmc_model")

llmc_model(
    name = "fortune",
    path = "{checkpoint}",
    chips = ["bm1684x"],
    modes = ["W8F16"],
    flags = {flags},
    piece_modes = {piece_modes},
)
"""
# Options that change the pieces, in both spellings the rule reads.
FLAGS = ["--max-input-length", "64", "--prefill-lengths=8,32"]
TARGET = "@fortune//:bm1684x_w8f16"


def make_workspace(root, options, piece_modes):
    rules = os.path.join(root, "tools", "build_defs")
    llmc = os.path.join(root, "tools", "llmc")
    if not os.path.isdir(rules):
        os.makedirs(rules)
        os.makedirs(llmc)
        for name in ("llmc_model.bzl", "llmc_binary.bzl"):
            shutil.copy(os.path.join(options["rules"], name), rules)
        open(os.path.join(rules, "BUILD.bazel"), "w").close()
        os.symlink(os.path.realpath(options["llmc"]), os.path.join(llmc, "llmc"))
        with open(os.path.join(llmc, "BUILD.bazel"), "w") as build:
            build.write('exports_files(["llmc"])\n')
    with open(os.path.join(root, "WORKSPACE"), "w") as workspace:
        workspace.write(WORKSPACE.format(checkpoint=os.path.abspath(options["checkpoint"]),
                                         flags=repr(FLAGS), piece_modes=repr(piece_modes)))


def bazel_build(root, user_root, log):
    """Builds TARGET; returns (seconds, the spawns run, the binary's path)."""
    env = {"HOME": user_root, "PATH": "/usr/bin:/bin", "TMPDIR": user_root}
    start = time.monotonic()
    result = subprocess.run(
        ["/usr/bin/bazel", "--batch", "--output_user_root=" + user_root, "--nohome_rc",
         "build", "--spawn_strategy=local", "--nosandbox_debug", "--color=no", "--curses=no",
         "--execution_log_json_file=" + log, TARGET],
        cwd=root, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"bazel build {TARGET} failed:\n{result.stderr}")
    spawns, decoder, text = [], json.JSONDecoder(), open(log).read()
    position = 0
    while position < len(text.rstrip()):
        spawn, position = decoder.raw_decode(text, position)
        spawns.append(spawn)
        while position < len(text) and text[position].isspace():
            position += 1
    binary = os.path.join(root, "bazel-bin", "external", "fortune", "bm1684x_w8f16.llmc")
    return seconds, spawns, binary


def describe(spawn):
    outputs = [os.path.basename(output["path"]) for output in spawn.get("actualOutputs", [])]
    return f"{spawn.get('mnemonic')} {' '.join(outputs)}"


def convert(options, output, *extra):
    subprocess.run([options["llmc"], "convert", "-m", options["checkpoint"], "-c", "bm1684x",
                    "-q", "W8F16", "--quiet", "-o", output, *FLAGS, *extra], check=True,
                   capture_output=True)
    return output


def main():
    options = dict(arg[2:].split("=", 1) for arg in sys.argv[1:])
    failures = Failures()
    scratch = scratch_directory()
    root, user_root = os.path.join(scratch, "workspace"), os.path.join(scratch, "bazel")
    os.makedirs(root)

    make_workspace(root, options, {})
    seconds, spawns, binary = bazel_build(root, user_root, os.path.join(scratch, "cold.json"))
    pieces = [spawn for spawn in spawns if spawn.get("mnemonic") == "LlmcPiece"]
    print(f"cold build: {len(spawns)} spawns ({len(pieces)} pieces) in {seconds:.1f} s")
    # embed.prefill in 64, 8 and 32, embed.decode and three heads; in each of
    # 6 layers prefill and prefill_kv in each length, and decode.
    failures.check(len(pieces) == 7 + 7 * 6, f"cold build ran {len(pieces)} piece actions")
    whole = convert(options, os.path.join(scratch, "whole.llmc"))
    failures.check(filecmp.cmp(binary, whole, shallow=False),
                   "the build's binary differs from llmc convert's")

    make_workspace(root, options, {"lm_head": "F16"})
    seconds, spawns, binary = bazel_build(root, user_root, os.path.join(scratch, "warm.json"))
    ran = sorted(describe(spawn) for spawn in spawns)
    print(f"lm_head in F16: {len(spawns)} spawns in {seconds:.1f} s: {ran}")
    failures.check(ran == ["LlmcMerge bm1684x_w8f16.llmc", "LlmcPiece lm_head.llmc"],
                   f"after changing lm_head's mode the build ran {ran}")
    whole = convert(options, os.path.join(scratch, "whole_f16.llmc"),
                    "--piece-quantize=lm_head=F16")
    failures.check(filecmp.cmp(binary, whole, shallow=False),
                   "with lm_head in F16, the build's binary differs from llmc convert's")
    sys.exit(failures.finish())


if __name__ == "__main__":
    main()
