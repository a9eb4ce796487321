"""llmc convert --report: per-piece agreement with the top interpreter, the
perplexity on a text file, and clear errors for options it cannot honour."""

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from parity import refdata_root  # noqa: E402

PIECE_ROW = re.compile(r"^  (\S+)\s+(\d+)\s+(\S+)\s+(\S+)(?:\s+(\d+)/(\d+) equal)?$")
PERPLEXITY = re.compile(r"F32 ([\d.]+), (\S+) ([\d.]+) \(([-+][\d.]+) %\)")


def convert(llmc, model, out, *extra):
    return subprocess.run(
        [llmc, "convert", "-m", model, "-c", "bm1684x", "-o", out, "--quiet", *extra],
        capture_output=True, text=True)


def piece_rows(stdout):
    rows = {}
    for line in stdout.splitlines():
        match = PIECE_ROW.match(line)
        if match and match.group(1) != "piece":
            rows[match.group(1)] = match.groups()
    return rows


def check_pieces(llmc, root, tmp, failures):
    """F32 on bm1684x computes every piece as the interpreter does."""
    model = os.path.join(root, "models", "tiny-qwen2")
    result = convert(llmc, model, os.path.join(tmp, "f32.llmc"), "-q", "F32", "--report")
    if result.returncode != 0:
        failures.append(f"--report F32: {result.stderr}")
        return
    rows = piece_rows(result.stdout)
    for phase in ["prefill", "prefill_kv", "decode"]:
        if f"block.0.{phase}" not in rows:
            failures.append(f"--report ran no block.0.{phase}: {result.stdout}")
    for piece, (_, runs, cosine, _, equal, total) in rows.items():
        if equal is not None:
            if equal != total:
                failures.append(f"{piece}: {equal}/{total} token ids equal")
        elif float(cosine) < 0.99999:
            failures.append(f"{piece}: min cosine {cosine} < 0.99999 in F32")


def check_perplexity(llmc, root, tmp, failures):
    """The binary's perplexity against F32: the same for F32, close for
    W8F16, on the demo model's held-out text."""
    model = os.path.join(root, "demo", "fortune-qwen2")
    text = os.path.join(model, "heldout.txt")
    for mode, bound in [("F32", 0.01), ("W8F16", 1.0)]:
        result = convert(llmc, model, os.path.join(tmp, f"{mode}.llmc"), "-q", mode,
                         "--report-text", text, "--report-windows", "3")
        match = PERPLEXITY.search(result.stdout)
        if result.returncode != 0 or not match:
            failures.append(f"--report-text {mode}: {result.stdout}{result.stderr}")
            continue
        f32, label, converted, change = match.groups()
        print(f"{mode}: perplexity F32 {f32}, {label} {converted} ({change} %)")
        if label != mode or abs(float(change)) > bound:
            failures.append(f"{mode}: perplexity change {change} % beyond {bound} %")
        if not 10 < float(f32) < 1000:
            failures.append(f"{mode}: implausible F32 perplexity {f32}")


def check_errors(llmc, root, tmp, failures):
    model = os.path.join(root, "models", "tiny-qwen2")
    out = os.path.join(tmp, "bad.llmc")
    for extra, message in [
        (["--report", "--pieces=lm_head"], "cannot follow --pieces"),
        (["--report-text", os.path.join(tmp, "missing.txt")], "no such file"),
        (["--report", "--report-context", "2"], "--report-context must be at least 4"),
    ]:
        result = convert(llmc, model, out, "-q", "F32", *extra)
        if result.returncode == 0 or message not in result.stderr:
            failures.append(f"{extra}: exit {result.returncode}, stderr {result.stderr!r}")
        if os.path.exists(out):
            failures.append(f"{extra}: left {out} behind")
            os.remove(out)
    short = os.path.join(tmp, "short.txt")
    with open(short, "w") as f:
        f.write("Only a few words.\n")
    result = convert(llmc, model, out, "-q", "F32", "--report-text", short)
    if result.returncode == 0 or "less than one window" not in result.stderr:
        failures.append(f"a text shorter than a window: {result.stderr!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    args = parser.parse_args()
    llmc = os.path.realpath(args.llmc)
    root = refdata_root()
    failures = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
        check_pieces(llmc, root, tmp, failures)
        check_perplexity(llmc, root, tmp, failures)
        check_errors(llmc, root, tmp, failures)
    for failure in failures:
        print("FAIL", failure)
    print("PASS" if not failures else f"{len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
