"""`llmc tokenize` on SentencePiece model files against SentencePiece's ids.

  sentencepiece_parity.py --llmc=PATH --data=tests/tokenizer/data
  sentencepiece_parity.py --llmc=PATH --model=M.model --refs=refs.jsonl

llmc converts each model to the tokenizer.json transformers' converters
write (frontends/hf/SentencePieceModel.h) and must give, on every line of
sentencepiece_refs.jsonl (tools/tokenizers/make_sentencepiece_refs.py),
SentencePiece's ids, or at a Unigram tie one of the tied segmentations.
The second form checks one model against a refs file of its own
(tools/tokenizers/make_charsmap_refs.py).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llmc", required=True)
    parser.add_argument("--data")
    parser.add_argument("--model")
    parser.add_argument("--refs")
    args = parser.parse_args()
    refs_path = args.refs or os.path.join(args.data,
                                          "sentencepiece_refs.jsonl")
    with open(refs_path, encoding="utf-8") as f:
        refs = [json.loads(line) for line in f if line.strip()]
    models = {}
    if args.model:
        name = os.path.basename(args.model)
        models[name] = args.model
        for ref in refs:
            ref["model"] = name
    else:
        for model in {ref["model"] for ref in refs}:
            models[model] = os.path.join(args.data,
                                         f"sentencepiece_{model}.model")
    failed = 0
    for model, path in sorted(models.items()):
        cases = [ref for ref in refs if ref["model"] == model]
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl",
                                         encoding="utf-8") as texts:
            for case in cases:
                texts.write(json.dumps(case["text"]) + "\n")
            texts.flush()
            result = subprocess.run(
                [args.llmc, "tokenize", "-m", path, "--text-file", texts.name],
                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"FAIL {model}: llmc tokenize: {result.stderr}")
            failed += 1
            continue
        ours = [json.loads(line)["ids"] for line in result.stdout.split("\n")
                if line]
        same = 0
        for case, ids in zip(cases, ours):
            if ids == case["ids"] or ids in case.get("ties", []):
                same += 1
            else:
                print(f"differs ({model}): {json.dumps(case['text'])}\n"
                      f"  sentencepiece: {case['ids']}\n  llmc:          {ids}")
        ok = same == len(cases) and len(ours) == len(cases)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {model}: {same}/{len(cases)} "
              "lines as SentencePiece encodes them")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
