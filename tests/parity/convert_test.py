"""llmc convert end to end: every refdata model in every bm1684x mode, the
same bytes for any thread count and with or without relocating layer 0's
pieces, and clear errors that leave no output behind."""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from parity import refdata_root  # noqa: E402

MODES = ["F32", "F16", "BF16", "W8F16", "W8BF16", "W4F16", "W4BF16"]
MODELS = ["tiny-qwen2", "tiny-llama", "tiny-qwen3"]


def convert(llmc, model, out, *extra):
    return subprocess.run(
        [llmc, "convert", "-m", model, "-c", "bm1684x", "-o", out, "--quiet", *extra],
        capture_output=True, text=True)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    args = parser.parse_args()
    llmc = os.path.realpath(args.llmc)
    models = os.path.join(refdata_root(), "models")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS:
            for mode in MODES:
                out = os.path.join(tmp, f"{model}-{mode}.llmc")
                result = convert(llmc, os.path.join(models, model), out, "-q", mode)
                if result.returncode != 0 or not os.path.exists(out):
                    failures.append(f"{model} {mode}: {result.stderr.strip()}")
        qwen = os.path.join(models, "tiny-qwen2")
        digests = set()
        for extra in (["-j", "1"], ["-j", "2"], ["--compile-every-layer"],
                      ["--asymmetric", "-j", "1"]):
            out = os.path.join(tmp, "same.llmc")
            result = convert(llmc, qwen, out, "-q", "W4BF16", *extra)
            if result.returncode != 0:
                failures.append(f"{extra}: {result.stderr.strip()}")
                continue
            if "--asymmetric" in extra:
                if digest(out) in digests:
                    failures.append("--asymmetric produced the symmetric binary")
            else:
                digests.add(digest(out))
        if len(digests) != 1:
            failures.append(f"thread count or relocation changed the bytes: {digests}")
        # Relocation keys on what lowering decided: a qtable rule for layer 1
        # alone, and INT8's per-layer scales, give the bytes of compiling
        # every layer.
        qtable = os.path.join(tmp, "layer1.qtable")
        with open(qtable, "w") as f:
            f.write("model.layers.1.mlp* F16\n")
        for extra in (["-q", "W4BF16", "--qtable", qtable], ["-q", "INT8"]):
            pair = []
            for every in ([], ["--compile-every-layer"]):
                out = os.path.join(tmp, f"layered{len(pair)}.llmc")
                result = convert(llmc, qwen, out, *extra, *every)
                if result.returncode != 0:
                    failures.append(f"{extra + every}: {result.stderr.strip()}")
                    break
                pair.append(digest(out))
            if len(pair) == 2 and pair[0] != pair[1]:
                failures.append(f"{extra}: relocated layers differ from compiled ones")
        bad = [
            (["-q", "W4BF16", "-c", "bm9999"], "unknown chip 'bm9999'"),
            ([], "needs -q/--quantize"),
            (["-q", "W5"], "unknown quantization mode 'W5'"),
            # A group size that divides no K falls back (lower_group_fallback
            # .mlir); a negative one is an error.
            (["-q", "W4BF16", "-g", "-2"], "group size must be positive"),
        ]
        for extra, message in bad:
            out = os.path.join(tmp, "bad.llmc")
            command = [llmc, "convert", "-m", qwen, "-o", out, "--quiet"]
            if "-c" not in extra:
                command += ["-c", "bm1684x"]
            result = subprocess.run(command + extra, capture_output=True, text=True)
            if result.returncode == 0 or message not in result.stderr:
                failures.append(f"{extra}: expected an error with '{message}', got "
                                f"rc={result.returncode} {result.stderr.strip()}")
            if os.path.exists(out):
                failures.append(f"{extra}: left {out} behind")
        missing = convert(llmc, os.path.join(tmp, "nope"), os.path.join(tmp, "x.llmc"),
                          "-q", "F32")
        if missing.returncode == 0 or "nope" not in missing.stderr:
            failures.append(f"missing checkpoint: {missing.stderr.strip()}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
