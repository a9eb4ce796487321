"""llmc convert --pieces and llmc merge on the demo model: the merge of
piece binaries is byte for byte the binary one convert writes, with a
per-piece mode too, and bad inputs are clear errors."""

import filecmp
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import DEMO, convert_demo, main, run_llmc, scratch_directory  # noqa: E402


def piece_names(llmc):
    listing = run_llmc(llmc, "pieces", "-m", DEMO, "--list")
    return [line.split(":")[0] for line in listing.stdout.splitlines()
            if line.startswith(("embed.", "block.", "lm_head", "greedy_head", "sample_head"))]


def convert_in_parts(llmc, directory, parts, *extra):
    """Converts each list of `parts` into a binary of its own; their paths."""
    paths = []
    for index, part in enumerate(parts):
        path = os.path.join(directory, f"part{index}.llmc")
        convert_demo(llmc, path, "--pieces=" + ",".join(part), *extra)
        paths.append(path)
    return paths


def check_merge_equals_convert(llmc, directory, names, failures, *extra):
    whole = convert_demo(llmc, os.path.join(directory, "whole.llmc"), *extra)
    # One piece per binary but for a group of a layer's phases, which share
    # their weights inside one binary and across binaries.
    parts = [[name] for name in names if not name.startswith("block.1.")]
    parts.insert(names.index("block.1.prefill"),
                 [name for name in names if name.startswith("block.1.")])
    paths = convert_in_parts(llmc, directory, parts, *extra)
    merged = os.path.join(directory, "merged.llmc")
    result = run_llmc(llmc, "merge", *paths, "-o", merged)
    if failures.check(result.returncode == 0, f"merge {extra}: {result.stderr}"):
        failures.check(filecmp.cmp(whole, merged, shallow=False),
                       f"merge of {len(paths)} binaries {extra} differs from one convert")
    return paths


def check_errors(llmc, directory, paths, failures):
    out = os.path.join(directory, "bad.llmc")
    failures.expect_error(run_llmc(llmc, "merge", paths[0], paths[0], "-o", out),
                          "is in an earlier input too", "a piece twice")
    other = convert_demo(llmc, os.path.join(directory, "f16.llmc"), "-q", "F16",
                         "--pieces=lm_head")
    failures.expect_error(run_llmc(llmc, "merge", paths[0], other, "-o", out),
                          "compiled with other options or from another model", "another mode")
    failures.expect_error(run_llmc(llmc, "merge", paths[0], DEMO + "/config.json", "-o", out),
                          "config.json", "not a binary")
    failures.check(not os.path.exists(out), "a failed merge leaves no output")
    base = ["convert", "-m", DEMO, "-c", "bm1684x", "-q", "W8F16", "-o", out]
    failures.expect_error(run_llmc(llmc, *base, "--pieces=block.99.decode"),
                          "no piece named 'block.99.decode'", "an unknown piece")
    failures.expect_error(run_llmc(llmc, *base, "--piece-quantize=lm_head"),
                          "expected <pieces>=<mode>", "--piece-quantize without a mode")
    failures.expect_error(run_llmc(llmc, *base, "--piece-quantize=lm_head=F12"),
                          "--piece-quantize 'lm_head=F12'", "an unknown mode")
    failures.expect_error(run_llmc(llmc, *base, "--piece-quantize=head=F16"),
                          "'head' matches no piece", "a pattern matching nothing")


def test(options, failures):
    llmc = options["llmc"]
    names = piece_names(llmc)
    # embed.prefill in L, 16 and 64, embed.decode, three heads, and per layer
    # prefill and prefill_kv in each length, and decode.
    failures.check(len(names) == 7 + 7 * 6, f"pieces: {names}")
    directory = scratch_directory()
    paths = check_merge_equals_convert(llmc, directory, names, failures, "-q", "W8F16")
    check_merge_equals_convert(llmc, scratch_directory(), names, failures, "-q", "W8F16",
                               "--piece-quantize=lm_head=F16")
    check_errors(llmc, directory, paths, failures)


if __name__ == "__main__":
    main(test)
