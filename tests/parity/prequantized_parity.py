#!/usr/bin/python3
"""Pre-quantized checkpoints: llmc reads their own dequantized weights, and
compiles them without requantizing.

  prequantized_parity.py --llmc <binary> --exporter quantize_checkpoint.py \
      --model models/tiny-qwen2 --refs refs/tiny-qwen2.f32.short \
      --case gptq:4:128:sym --case awq:4:64:asym ...

For each case FORMAT:BITS:GROUP:sym|asym[:act] (act: act-order, input
channels grouped out of order), the exporter writes the model in
that format and an unquantized twin holding the dequantized weights. Then:
1. `llmc eval` on the packed checkpoint equals `llmc eval` on the twin, bit
   for bit: llmc unpacks and dequantizes exactly as the format's reader does;
2. the packed checkpoint converted for the chip with -q W4F16 or W8F16 and
   nothing else (the stored scheme, f16 activations; the LM head, which the
   checkpoint stores in float, left in F16 by the compiler) and run
   on its cmodel gives logits with cosine at least --min-cosine against
   step 1, row by row.
The prompt is the reference case's first turn; paths are relative to the
reference data directory (../shared/refdata beside the repo, or
$LLMC_REFDATA).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def refdata_root():
    if os.environ.get("LLMC_REFDATA"):
        return os.environ["LLMC_REFDATA"]
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.join(here, "..", "..", "..", "shared", "refdata")


def llmc(args, *command):
    result = subprocess.run([args.llmc, *command], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"llmc {' '.join(command)}\n{result.stderr}")


def generate(args, command, model, prompt, scratch, name, *extra):
    logits = os.path.join(scratch, name + ".npy")
    ids = os.path.join(scratch, name + ".json")
    llmc(args, command, "-m", model, "--input-ids", ",".join(map(str, prompt)),
         "--max-new-tokens", str(args.new_tokens), "--logits-out", logits,
         "--ids-out", ids, *extra)
    return np.load(logits), json.load(open(ids))["generated"]


def run_case(args, root, case, prompt, scratch):
    fmt, bits, group, symmetry, *flags = case.split(":")
    packed = os.path.join(scratch, "packed")
    twin = os.path.join(scratch, "dequantized")
    command = [sys.executable, args.exporter, "--format", fmt, "--bits", bits,
               "--group-size", group, "--dequantized-out", twin,
               os.path.join(root, args.model), packed]
    if symmetry == "asym":
        command.insert(-2, "--asym")
    if "act" in flags:
        command.insert(-2, "--act-order")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAIL {case}: export\n{result.stderr}")
        return False

    reference, reference_ids = generate(args, "eval", twin, prompt, scratch, "twin")
    logits, ids = generate(args, "eval", packed, prompt, scratch, "packed")
    ok = True
    if ids != reference_ids or not np.array_equal(logits, reference):
        print(f"FAIL {case}: eval on the packed checkpoint differs from its "
              f"dequantized twin (max |dlogit| "
              f"{float(np.abs(logits - reference).max()):.3e})")
        ok = False

    binary = os.path.join(scratch, "model.llmc")
    mode = "W4F16" if bits == "4" else "W8F16"
    # No qtable: the LM head, which the checkpoint stores in float, stays
    # float as its author left it, so the comparison is of the stored layers.
    llmc(args, "convert", "-m", packed, "-c", args.chip, "-q", mode, "-o", binary)
    chip, chip_ids = generate(args, "run", binary, prompt, scratch, "chip")
    rows = len(ids)
    if chip_ids != ids:
        # Later rows condition on different histories.
        rows = next(i for i, (a, b) in enumerate(zip(chip_ids, ids)) if a != b) + 1
    cosines = [float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
               for a, b in zip(chip[:rows].astype(np.float64),
                               logits[:rows].astype(np.float64))]
    worst = min(cosines)
    if worst < args.min_cosine:
        ok = False
    print(f"{'ok  ' if ok else 'FAIL'} {args.model} {case}: eval == dequantized twin; "
          f"{args.chip} {mode} vs eval: min cosine {worst:.6f} over {rows} rows")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llmc", required=True)
    parser.add_argument("--exporter", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--refs", required=True)
    parser.add_argument("--chip", default="bm1684x")
    parser.add_argument("--case", action="append", required=True)
    parser.add_argument("--new-tokens", type=int, default=8)
    parser.add_argument("--min-cosine", type=float, default=0.9999)
    args = parser.parse_args()
    root = refdata_root()
    reference = json.load(open(os.path.join(root, args.refs + ".json")))
    prompt = (reference.get("turns") or [{"input_ids": reference["prompt"]}])[0]["input_ids"]
    failures = 0
    for case in args.case:
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
            try:
                failures += not run_case(args, root, case, prompt, scratch)
            except RuntimeError as error:
                print(f"FAIL {case}: {error}")
                failures += 1
    print(f"{len(args.case) - failures} of {len(args.case)} cases passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
