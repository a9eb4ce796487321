"""llmc compare on the demo model: the table, the .npy dumps it writes (the
printed cosines recomputed from them), the exit codes, and bad input."""

import glob
import os
import re
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import DEMO, main, run_llmc, scratch_directory  # noqa: E402

ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(tpu\.\S+)\s+(\S+)\s+([0-9.]+|equal|differ)\s")


def test(options, failures):
    llmc = options["llmc"]
    dump = os.path.join(scratch_directory(), "dump")
    result = run_llmc(llmc, "compare", "-m", DEMO, "-c", "bm1684x", "-q", "W4BF16",
                      "--piece", "block.0.prefill", "-s", "64", "--max-input-length", "16",
                      "--dump", dump)
    if not failures.check(result.returncode == 0,
                          f"compare exited {result.returncode}: {result.stderr}"):
        return
    failures.check("every op is within tolerance" in result.stdout, result.stdout)
    rows = [ROW.match(line) for line in result.stdout.splitlines()]
    rows = [row for row in rows if row]
    # RMSNorm, q/k/v and their heads, rope tables and ropes, attention, the
    # post-attention norm and both residual adds are read from the device.
    failures.check(len(rows) >= 15, f"{len(rows)} compared rows:\n{result.stdout}")
    failures.check("fused into 'layers.0.attention_residual'" in result.stdout,
                   "the o_proj row says it is fused into the residual add")
    for row in rows:
        name, cosine = row.group(2), row.group(5)
        reference = numpy.load(os.path.join(dump, "reference", name + ".npy"))
        device = numpy.load(os.path.join(dump, "device", name + ".npy"))
        failures.check(reference.shape == device.shape, f"{name}: shapes")
        if cosine in ("equal", "differ"):
            continue
        a, b = reference.astype(numpy.float64).ravel(), device.astype(numpy.float64).ravel()
        norms = numpy.linalg.norm(a) * numpy.linalg.norm(b)
        recomputed = a @ b / norms if norms else 1.0
        failures.check(abs(recomputed - float(cosine)) < 2e-6,
                       f"{name}: printed cosine {cosine}, from the dumps {recomputed}")
    failures.check(len(glob.glob(os.path.join(dump, "device", "*.npy"))) == len(rows),
                   "one device dump per compared row")

    # A tolerance no lowering meets marks the first row and exits 2.
    strict = run_llmc(llmc, "compare", "-m", DEMO, "-c", "bm1684x", "-q", "W4BF16",
                      "--piece", "block.0.decode", "-s", "64", "--max-input-length", "16",
                      "--min-cosine", "0.9999999999")
    failures.check(strict.returncode == 2 and "<-- first past tolerance" in strict.stdout
                   and "first op past tolerance: #1 " in strict.stdout,
                   f"strict tolerance: rc={strict.returncode}\n{strict.stdout}{strict.stderr}")

    failures.expect_error(run_llmc(llmc, "compare", "-m", DEMO, "-c", "bm1684x", "-q", "F16",
                                   "--piece", "block.99.decode"),
                          "no piece named 'block.99.decode'", "unknown piece")
    failures.expect_error(run_llmc(llmc, "compare", "-m", DEMO, "-c", "tpu9", "-q", "F16",
                                   "--piece", "lm_head"), "unknown chip 'tpu9'", "unknown chip")
    failures.expect_error(run_llmc(llmc, "compare", "-m", DEMO, "-c", "bm1684x", "-q", "INT8",
                                   "--piece", "lm_head"), "needs a calibration table",
                          "INT8 without a table")
    failures.expect_error(run_llmc(llmc, "compare", "-m", DEMO, "-c", "bm1688", "-q", "INT8",
                                   "--piece", "lm_head"), "INT8", "a mode the chip lacks")


if __name__ == "__main__":
    main(test)
