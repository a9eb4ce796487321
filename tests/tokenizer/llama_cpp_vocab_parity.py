"""`llmc tokenize` on GGUF vocabularies against Hugging Face's ids.

  llama_cpp_vocab_parity.py --llmc=PATH --data=DIR NAME...

For each NAME, DIR holds ggml-vocab-NAME.gguf.gz (a vocabulary-only GGUF
file), .inp (texts separated by `\\n__ggml_vocab_test__\\n`) and .out (the ids
transformers' AutoTokenizer gives each text, one line per text; see
data/llama_cpp_vocab/README.md). llmc converts the GGUF tokenizer metadata
to a tokenizer.json (frontends/gguf/GgufTokenizer.h) and must give every
text exactly those ids. Where DIR also holds ggml-vocab-NAME.llama_cpp.inp
and .out (more texts and the ids llama.cpp gives them), llmc must give
those texts exactly those ids too.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

SEPARATOR = "\n__ggml_vocab_test__\n"


def read_case(prefix):
    """The texts of PREFIX.inp and the ids of PREFIX.out, one line each."""
    # newline="": a text may hold \r.
    with open(prefix + ".inp", encoding="utf-8", newline="") as f:
        texts = f.read().split(SEPARATOR)
    if texts and texts[-1] == "":
        texts.pop()
    with open(prefix + ".out", encoding="utf-8") as f:
        expected = [[int(i) for i in line.split()]
                    for line in f.read().split("\n")[:len(texts)]]
    return texts, expected


def compare(llmc, vocab, name, source, texts, expected, scratch):
    """Whether llmc gives every text the ids SOURCE gave."""
    lines = os.path.join(scratch, f"{name}.jsonl")
    with open(lines, "w", encoding="utf-8") as f:
        for text in texts:
            f.write(json.dumps(text) + "\n")
    result = subprocess.run(
        [llmc, "tokenize", "-m", vocab, "--text-file", lines],
        capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAIL {name}: llmc tokenize: {result.stderr}")
        return False
    ours = [json.loads(line)["ids"] for line in result.stdout.split("\n")
            if line]
    same = 0
    for text, want, got in zip(texts, expected, ours):
        if want == got:
            same += 1
        else:
            print(f"differs ({name}): {json.dumps(text)}\n"
                  f"  {source + ':':13} {want}\n  llmc:         {got}")
    ok = same == len(texts) and len(ours) == len(texts)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {same}/{len(texts)} texts "
          f"as {source} encodes them")
    return ok


def check(llmc, data, name, scratch):
    base = os.path.join(data, f"ggml-vocab-{name}")
    vocab = os.path.join(scratch, f"{name}.gguf")
    with gzip.open(base + ".gguf.gz", "rb") as packed, \
            open(vocab, "wb") as out:
        shutil.copyfileobj(packed, out)
    texts, expected = read_case(base + ".gguf")
    ok = compare(llmc, vocab, name, "transformers", texts, expected, scratch)
    if os.path.exists(base + ".llama_cpp.inp"):
        texts, expected = read_case(base + ".llama_cpp")
        ok &= compare(llmc, vocab, name, "llama.cpp", texts, expected,
                      scratch)
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(
            dir=os.environ.get("TEST_TMPDIR")) as scratch:
        results = [check(args.llmc, args.data, name, scratch)
                   for name in args.names]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
