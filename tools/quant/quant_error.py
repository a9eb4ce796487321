#!/usr/bin/python3
"""Quantization error of llmc's weight-only modes, measured on the interpreter.

For each reference case (<ref>.json/.npy from ../shared/refdata, computed in
F32), every row of reference logits is recomputed teacher-forced: `llmc eval
--quantize <mode>` runs the prompt plus the reference's own earlier tokens and
predicts one token, so every row compares logits after the same history. The
report gives, per mode, the mean and minimum cosine of the logits against the
F32 reference, the largest logit difference and how often the greedy token
agrees. llama.cpp's own quantized references (refs/<model>.q8_0/q4_0), which
generate greedily, are scored on the rows whose history still matches F32.

Needs numpy: run with /usr/bin/python3.

  /usr/bin/python3 tools/quant/quant_error.py --llmc bazel-bin/tools/llmc/llmc \
      --model ../shared/refdata/models/tiny-llama \
      --refs ../shared/refdata/refs/tiny-llama.f32.{short,long,turns}
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

# (label, llmc eval arguments)
DEFAULT_MODES = [
    ("F16", ["--quantize", "F16"]),
    ("BF16", ["--quantize", "BF16"]),
    ("W8F16 sym g64", ["--quantize", "W8F16"]),
    ("W8F16 sym per-channel", ["--quantize", "W8F16", "--q-group-size", "0"]),
    ("W8F16 asym g64", ["--quantize", "W8F16", "--asymmetric"]),
    ("W8F16 asym per-channel",
     ["--quantize", "W8F16", "--asymmetric", "--q-group-size", "0"]),
    ("W4F16 sym g64", ["--quantize", "W4F16"]),
    ("W4F16 sym per-channel", ["--quantize", "W4F16", "--q-group-size", "0"]),
    ("W4F16 asym g64", ["--quantize", "W4F16", "--asymmetric"]),
    ("W4F16 asym per-channel",
     ["--quantize", "W4F16", "--asymmetric", "--q-group-size", "0"]),
    ("W4F16 sym g32", ["--quantize", "W4F16", "--q-group-size", "32"]),
    ("W4BF16 asym g64", ["--quantize", "W4BF16", "--asymmetric"]),
]


def contexts(case):
    """The token history before each reference row, in row order."""
    history = []
    for turn in case["turns"]:
        history = history + turn["input_ids"]
        for token in turn["generated"]:
            yield list(history)
            history.append(token)


def run_row(llmc, model, history, mode_args, seq_length, input_length):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "logits.npy")
        subprocess.run(
            [llmc, "eval", "-m", model, "-j", "1",
             "-s", str(seq_length), "--max-input-length", str(input_length),
             "--input-ids", ",".join(map(str, history)),
             "--max-new-tokens", "1", "--logits-out", out] + mode_args,
            check=True, stdout=subprocess.DEVNULL)
        return np.load(out)[0]


def cosine(a, b):
    return float(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b))


def score(reference, rows):
    cosines = [cosine(r, q) for r, q in zip(reference, rows)]
    delta = max(float(np.abs(r - q).max()) for r, q in zip(reference, rows))
    agree = np.mean([int(np.argmax(r) == np.argmax(q))
                     for r, q in zip(reference, rows)])
    return np.mean(cosines), np.min(cosines), delta, agree


def llama_cpp_scores(ref_prefix):
    """llama.cpp's q8_0/q4_0 runs on the rows whose history matches F32."""
    base = ref_prefix.replace(".f32.", ".{}.")
    results = {}
    for quant in ("q8_0", "q4_0"):
        path = base.format(quant)
        if not os.path.exists(path + ".npy"):
            continue
        f32 = json.load(open(ref_prefix + ".json"))["generated"]
        mine = json.load(open(path + ".json"))["generated"]
        same = next((i for i, (x, y) in enumerate(zip(f32, mine)) if x != y),
                    len(f32))
        rows = same + 1 if same < len(f32) else same
        results[quant] = (np.load(ref_prefix + ".npy")[:rows],
                          np.load(path + ".npy")[:rows])
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--llmc", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--refs", nargs="+", required=True,
                        help="reference prefixes (without .json/.npy)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--seq-length", type=int, default=512)
    parser.add_argument("--max-input-length", type=int, default=128)
    args = parser.parse_args()

    cases = [(json.load(open(p + ".json")), np.load(p + ".npy"), p)
             for p in args.refs]
    reference = np.concatenate([logits for _, logits, _ in cases])
    histories = [h for case, _, _ in cases for h in contexts(case)]
    assert len(histories) == len(reference)

    print(f"model {args.model}: {len(reference)} teacher-forced rows from "
          f"{', '.join(os.path.basename(p) for p in args.refs)}")
    print(f"{'mode':28} {'mean cos':>9} {'min cos':>9} {'max |dl|':>9} "
          f"{'top-1':>6}")
    modes = [("F32 (no --quantize)", [])] + DEFAULT_MODES
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for label, mode_args in modes:
            rows = list(pool.map(
                lambda h: run_row(args.llmc, args.model, h, mode_args,
                                  args.seq_length, args.max_input_length),
                histories))
            mean, low, delta, agree = score(reference, rows)
            print(f"{label:28} {mean:9.5f} {low:9.5f} {delta:9.4f} "
                  f"{agree:6.2f}", flush=True)
    for prefix in args.refs:
        for quant, (f32, mine) in llama_cpp_scores(prefix).items():
            mean, low, delta, agree = score(f32, mine)
            print(f"llama.cpp {quant} ({os.path.basename(prefix)}, "
                  f"{len(f32)} same-history rows) {mean:9.5f} {low:9.5f} "
                  f"{delta:9.4f} {agree:6.2f}")


if __name__ == "__main__":
    sys.exit(main())
