#!/usr/bin/python3
"""Every family converts and runs in every mode on every chip.

  family_modes_test.py --llmc PATH [--measure]

For each family model of tests/families (the Hugging Face files), each chip
and each mode `llmc convert` accepts there, the model is converted and `llmc
run` computes the logits of the short case's prompt. The first generated
token's logits must be within the mode's bound (1 - cosine) of the F32
reference (llama.cpp's), and within a tighter one of the top interpreter's on
the same quantized weights (`llmc eval --quantize`): the first bounds what the
mode costs, the second what the chip's lowering of it adds. BOUNDS states
each beside the worst error measured. Other rows are not compared: once a
quantized run picks another token its later logits condition on another
history. --measure prints the worst errors instead of checking.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from parity import refdata_root

FAMILIES = ["tiny-llama31", "tiny-mistral", "tiny-phi3", "tiny-internlm2",
            "tiny-qwen2-swa", "tiny-gemma2", "tiny-gemma3"]
CHIPS = ["bm1684x", "bm1688", "cv186x", "host"]
# Per mode, (against the F32 reference, against the interpreter on the same
# quantized weights): 1 - cosine of the first token's logits, each at most
# three times the worst measured over the families and chips. The weights
# are random (sigma 0.2, 64 wide, one group per row), so 4-bit weights move
# the logits far more than a trained model's would.
BOUNDS = {
    "F32": (4e-13, 3e-13),  # measured 1.2e-13, 9.6e-14
    "F16": (4e-6, 2e-6),  # 1.3e-6, 6.6e-7
    "BF16": (4.2e-4, 2.3e-4),  # 1.4e-4, 7.7e-5
    "W8F16": (8.2e-4, 3.5e-6),  # 2.7e-4, 1.1e-6
    "W8BF16": (8.9e-4, 3.1e-4),  # 3.0e-4, 1.0e-4
    "W4F16": (0.29, 5e-6),  # 9.8e-2, 1.7e-6
    "W4BF16": (0.29, 1.9e-4),  # 9.5e-2, 6.3e-5
    "INT8": (8.4e-3, 6.4e-3),  # 2.8e-3, 2.1e-3
}
# INT8 (8-bit activations, calibrated) is BM1684X's alone.
UNOFFERED = {chip: ("INT8",) for chip in ["bm1688", "cv186x", "host"]}


def one_minus_cosine(a, b):
    return 1.0 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


def first_logits(command, logits):
    """The first row `command` writes to `logits`, or an error message."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return None, f"{' '.join(command[1:3])}: {result.stderr.strip()}"
    return np.load(logits)[0].astype(np.float64), None


def size_arguments(family):
    """Phi-3 runs with S = 256, its original context, as its references."""
    return ["--seq-length", "256"] if family == "tiny-phi3" else []


def calibration_arguments(llmc, family, mode, scratch):
    """INT8's activation ranges, calibrated once for the interpreter and
    every conversion alike; an error message when calibration fails."""
    if mode != "INT8":
        return [], None
    table = os.path.join(scratch, f"{family}.calibration.txt")
    if not os.path.exists(table):
        model = os.path.join(refdata_root("families"), "models", family)
        result = subprocess.run(
            [llmc, "calibrate", "-m", model, "-o", table]
            + size_arguments(family), capture_output=True, text=True)
        if result.returncode != 0:
            return None, f"calibrate: {result.stderr.strip()}"
    return ["--calibration-table", table], None


def interpreter_logits(llmc, family, mode, scratch):
    """The interpreter's first logits on `mode`'s quantized weights."""
    root = refdata_root("families")
    prompt = json.load(open(os.path.join(
        root, "refs", f"{family}.f32.short.json")))["prompt"]
    logits = os.path.join(scratch, "eval.npy")
    calibration, problem = calibration_arguments(llmc, family, mode, scratch)
    if problem:
        return None, problem
    return first_logits(
        [llmc, "eval", "-m", os.path.join(root, "models", family),
         "--quantize", mode, "--max-new-tokens", "1",
         "--input-ids", ",".join(map(str, prompt)), "--logits-out", logits]
        + size_arguments(family) + calibration, logits)


def first_token_errors(llmc, family, chip, mode, interpreted, scratch):
    """1 - cosine of the first token's logits against the reference and
    against `interpreted`, or an error message."""
    root = refdata_root("families")
    model = os.path.join(root, "models", family)
    refs = os.path.join(root, "refs", f"{family}.f32.short")
    prompt = json.load(open(refs + ".json"))["prompt"]
    reference = np.load(refs + ".npy")[0].astype(np.float64)
    binary = os.path.join(scratch, f"{family}-{chip}-{mode}.llmc")
    logits = os.path.join(scratch, "logits.npy")
    calibration, problem = calibration_arguments(llmc, family, mode, scratch)
    if problem:
        return None, problem
    convert = [llmc, "convert", "-m", model, "-c", chip, "-q", mode, "-o",
               binary, "--quiet"] + size_arguments(family) + calibration
    result = subprocess.run(convert, capture_output=True, text=True)
    if result.returncode != 0:
        return None, f"convert: {result.stderr.strip()}"
    ours, problem = first_logits(
        [llmc, "run", "-m", binary, "--max-new-tokens", "1",
         "--input-ids", ",".join(map(str, prompt)), "--logits-out", logits],
        logits)
    if problem:
        return None, problem
    return (one_minus_cosine(ours, reference),
            one_minus_cosine(ours, interpreted)), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    parser.add_argument("--measure", action="store_true")
    args = parser.parse_args()
    llmc = os.path.realpath(args.llmc)
    worst = {(mode, side): (0.0, "") for mode in BOUNDS for side in (0, 1)}
    failures = []
    against = ("the reference", "the interpreter")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        for family in FAMILIES:
            for mode in BOUNDS:
                interpreted, problem = interpreter_logits(llmc, family, mode,
                                                          scratch)
                if problem:
                    failures.append(f"{family} {mode}: {problem}")
                    continue
                for chip in CHIPS:
                    if mode in UNOFFERED.get(chip, ()):
                        continue
                    errors, problem = first_token_errors(
                        llmc, family, chip, mode, interpreted, scratch)
                    where = f"{family} {chip} {mode}"
                    if problem:
                        failures.append(f"{where}: {problem}")
                        continue
                    for side, error in enumerate(errors):
                        if error > worst[mode, side][0]:
                            worst[mode, side] = (error, f"{family} {chip}")
                        bound = BOUNDS[mode][side]
                        if not args.measure and error > bound:
                            failures.append(
                                f"{where}: 1 - cosine against {against[side]}"
                                f" {error:.2e} > {bound:.1e}")
    for (mode, side), (error, where) in worst.items():
        print(f"{mode:7s} against {against[side]:16s} worst 1 - cosine "
              f"{error:.2e} ({where}), bound {BOUNDS[mode][side]:.1e}")
    for failure in failures:
        print("FAIL " + failure)
    print(f"{'ok  ' if not failures else 'FAIL'} {len(FAMILIES)} families x "
          f"{len(CHIPS)} chips x their modes")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
