"""llmc convert's options: a quantization mode the chip lacks is refused
before any calibration and nothing is written; under `bazel run`, relative
paths are taken where the user ran the command (BUILD_WORKING_DIRECTORY),
not in the runfiles tree."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import DEMO, main, run_llmc, scratch_directory  # noqa: E402


def check_mode_the_chip_lacks(llmc, failures):
    output = os.path.join(scratch_directory(), "int8.llmc")
    result = run_llmc(llmc, "convert", "-m", DEMO, "-c", "bm1688", "-q", "INT8",
                      "-o", output)
    failures.expect_error(result, "chip 'bm1688' does not support quantization mode 'INT8'",
                          "INT8 on bm1688")
    failures.check("calibrating" not in result.stderr,
                   f"INT8 on bm1688 calibrated before refusing: {result.stderr.strip()}")
    failures.check(not os.path.exists(output), "INT8 on bm1688 wrote a file")


def check_bazel_run_paths(llmc, failures):
    user = scratch_directory()
    shutil.copytree(DEMO, os.path.join(user, "demo"))
    os.mkdir(os.path.join(user, "out"))
    elsewhere = scratch_directory()
    environment = dict(os.environ, BUILD_WORKING_DIRECTORY=user)
    result = subprocess.run([llmc, "convert", "-m", "demo", "-c", "bm1684x", "-q", "F32",
                             "--quiet", "-o", "out/demo.llmc"],
                            cwd=elsewhere, env=environment, capture_output=True, text=True)
    failures.check(result.returncode == 0 and os.path.isfile(os.path.join(user, "out", "demo.llmc")),
                   f"convert with relative paths under bazel run: rc={result.returncode} "
                   f"{result.stderr.strip()}")


def check_group_size_fallback(llmc, failures):
    # The demo's K are 256 (q/k/v/o, gate, up) and 768 (down): groups of 48
    # fall back to 32 on the 256s, and the MLPs, whose weights then take
    # two group sizes, to per channel; each said once.
    output = os.path.join(scratch_directory(), "g48.llmc")
    result = run_llmc(llmc, "convert", "-m", DEMO, "-c", "bm1684x", "-q", "W4F16",
                      "--q-group-size", "48", "--quiet", "-o", output)
    if failures.check(result.returncode == 0, f"groups of 48: {result.stderr.strip()}"):
        q_proj = "group size 48 does not divide K = 256 of 'model.layers.0.self_attn.q_proj.weight'"
        failures.check(result.stderr.count(q_proj) == 1,
                       f"the q_proj fallback is not said once: {result.stderr.strip()}")
        failures.check("they are quantized per channel" in result.stderr,
                       f"the MLP fallback is not said: {result.stderr.strip()}")


def test(options, failures):
    llmc = os.path.realpath(options["llmc"])
    check_mode_the_chip_lacks(llmc, failures)
    check_bazel_run_paths(llmc, failures)
    check_group_size_fallback(llmc, failures)


if __name__ == "__main__":
    main(test)
