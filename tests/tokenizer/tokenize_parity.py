#!/usr/bin/python3
"""Runs `llmc tokenize` on the reference corpus and compares with the reference.

  tokenize_parity.py --llmc <binary> --name qwen3

Tokenizes ../shared/refdata/tokenizer/corpus.jsonl with the tokenizer in
tokenizer/<name>/ and requires, line for line, the text and the ids of
tokenizer/ref_<name>.jsonl (the Hugging Face `tokenizers` library's output).
"""
import argparse
import json
import os
import subprocess
import sys


def refdata_root():
    repo = os.path.dirname(os.path.realpath(__file__))
    while not os.path.exists(os.path.join(repo, "WORKSPACE")):
        parent = os.path.dirname(repo)
        if parent == repo:
            sys.exit("cannot find the repository root above " + __file__)
        repo = parent
    root = os.environ.get("LLMC_REFDATA") or os.path.join(repo, "..", "shared", "refdata")
    if not os.path.isdir(root):
        sys.exit(f"reference data not found at {root}")
    return root


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    parser.add_argument("--name", required=True)
    args = parser.parse_args()

    root = os.path.join(refdata_root(), "tokenizer")
    result = subprocess.run(
        [args.llmc, "tokenize", "-m", os.path.join(root, args.name),
         "--text-file", os.path.join(root, "corpus.jsonl")],
        capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"llmc tokenize failed ({result.returncode}):\n{result.stderr}")
    actual = [json.loads(line) for line in result.stdout.splitlines()]
    with open(os.path.join(root, f"ref_{args.name}.jsonl"), encoding="utf-8") as f:
        expected = [json.loads(line) for line in f if line.strip()]

    if len(actual) != len(expected):
        sys.exit(f"{len(actual)} output lines for {len(expected)} reference lines")
    mismatches = 0
    for number, (got, want) in enumerate(zip(actual, expected), 1):
        if got != want:
            mismatches += 1
            print(f"line {number}: text {json.dumps(want['text'])}\n"
                  f"  expected {want['ids']}\n  actual   {got.get('ids')}"
                  + ("" if got.get("text") == want["text"] else
                     f"\n  text echoed as {json.dumps(got.get('text'))}"))
    print(f"{args.name}: {len(expected) - mismatches}/{len(expected)} lines match")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
