"""llmc run end to end on a converted tiny-qwen2: text prompts through the
binary's tokenizer, reproducible sampling, the timing summary, and clear
errors (exit code 1, no crash) for bad binaries and bad requests."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from parity import refdata_root  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    args = parser.parse_args()
    llmc = os.path.realpath(args.llmc)
    qwen = os.path.join(refdata_root(), "models", "tiny-qwen2")
    failures = []

    def run(*extra):
        return subprocess.run([llmc, "run", *extra], capture_output=True, text=True)

    def ids(result):
        return json.loads(result.stdout)["generated"] if result.returncode == 0 else None

    def expect_error(result, message, what):
        if result.returncode != 1 or message not in result.stderr:
            failures.append(f"{what}: expected exit 1 with '{message}', got "
                            f"rc={result.returncode} {result.stderr.strip()}")

    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
        binary = os.path.join(tmp, "qwen2.llmc")
        subprocess.run([llmc, "convert", "-m", qwen, "-c", "bm1684x", "-q", "F32",
                        "-o", binary, "--quiet"], check=True, capture_output=True)

        # Text in, text out, with the binary's tokenizer; the ids match
        # `llmc tokenize` on the checkpoint.
        text = os.path.join(tmp, "text.jsonl")
        with open(text, "w") as f:
            f.write(json.dumps("Hello world") + "\n")
        tokenized = subprocess.run([llmc, "tokenize", "-m", qwen, "--text-file", text],
                                   capture_output=True, text=True, check=True)
        expected_prompt = json.loads(tokenized.stdout)["ids"]
        ids_out = os.path.join(tmp, "p.json")
        result = run("-m", binary, "-p", "Hello world", "--max-new-tokens", "6",
                     "--ids-out", ids_out)
        if result.returncode != 0:
            failures.append(f"-p: {result.stderr.strip()}")
        else:
            prompt = json.load(open(ids_out))["prompt"]
            if prompt != expected_prompt:
                failures.append(f"-p encoded {prompt}, tokenize gives {expected_prompt}")
            for line in ("first token after", "tokens/s on the host",
                         "tokens/s modelled on bm1684x"):
                if line not in result.stderr:
                    failures.append(f"summary lacks '{line}': {result.stderr.strip()}")

        # Greedy on the host sampler equals the greedy_head piece; a seed
        # reproduces a sampled run.
        turn = ["--input-ids", "5,6,7,8", "--max-new-tokens", "8"]
        greedy = ids(run("-m", binary, *turn))
        if greedy is None or ids(run("-m", binary, *turn, "--temperature", "0")) != greedy:
            failures.append("--temperature 0 differs from greedy decoding")
        sampled = [ids(run("-m", binary, *turn, "--temperature", "0.9", "--top-k", "40",
                           "--seed", "11")) for _ in range(2)]
        if sampled[0] is None or sampled[0] != sampled[1]:
            failures.append(f"the same seed sampled {sampled}")

        truncated = os.path.join(tmp, "truncated.llmc")
        with open(binary, "rb") as f, open(truncated, "wb") as g:
            g.write(f.read()[:5000])
        expect_error(run("-m", os.path.join(tmp, "none.llmc"), *turn), "none.llmc",
                     "missing binary")
        expect_error(run("-m", truncated, *turn), "truncated", "truncated binary")
        expect_error(run("-m", binary, "--input-ids", ",".join(["5"] * 513)),
                     "the KV cache holds 512", "prompt longer than S")
        expect_error(run("-m", binary, "--input-ids", "512"),
                     "outside the vocabulary", "id outside the vocabulary")
        expect_error(run("-m", binary), "either as --input-ids or as -p", "no turns")
        expect_error(run("-m", binary, "-p", "hi", "--input-ids", "1"),
                     "either as --input-ids or as -p", "both kinds of turns")
        expect_error(run("-m", binary, *turn, "--temperature", "-1"), "temperature",
                     "negative temperature")

        # A checkpoint without tokenizer.json gives a binary without one.
        bare = os.path.join(tmp, "bare")
        os.mkdir(bare)
        for name in os.listdir(qwen):
            if name.endswith(".json") and name != "tokenizer.json" or \
                    name == "model.safetensors":
                os.symlink(os.path.join(qwen, name), os.path.join(bare, name))
        bare_binary = os.path.join(tmp, "bare.llmc")
        subprocess.run([llmc, "convert", "-m", bare, "-c", "bm1684x", "-q", "F32",
                        "-o", bare_binary, "--quiet"], check=True, capture_output=True)
        expect_error(run("-m", bare_binary, "-p", "hi"), "holds no tokenizer",
                     "-p without a tokenizer")
        if ids(run("-m", bare_binary, *turn)) != greedy:
            failures.append("the binary without a tokenizer generates differently")

    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
