"""llmc tokenize reads the tokenizer of a checkpoint directory, of its
tokenizer.json and of a converted binary alike."""

import json
import os

import cli_common


def test(options, failures):
    llmc = options["llmc"]
    scratch = cli_common.scratch_directory()
    binary = cli_common.convert_demo(llmc, os.path.join(scratch, "demo.llmc"))
    texts = os.path.join(scratch, "texts.jsonl")
    with open(texts, "w") as f:
        for text in ["Hello, world!", "你好，世界", "  spaces\tand\nnewlines  ", ""]:
            f.write(json.dumps(text) + "\n")
    outputs = {}
    for source in [cli_common.DEMO, os.path.join(cli_common.DEMO, "tokenizer.json"), binary]:
        result = cli_common.run_llmc(llmc, "tokenize", "-m", source, "--text-file", texts)
        if failures.check(result.returncode == 0, f"{source}: {result.stderr.strip()}"):
            outputs[source] = result.stdout
    failures.check(len(set(outputs.values())) == 1 and len(outputs) == 3,
                   f"the three sources tokenize differently: {outputs}")
    failures.check(all(json.loads(line)["ids"] for line in
                       next(iter(outputs.values()), "").splitlines()[:3]),
                   "no ids for non-empty text")
    failures.expect_error(
        cli_common.run_llmc(llmc, "tokenize", "-m", os.path.join(scratch, "none.llmc"),
                            "--text-file", texts),
        "none.llmc", "a missing binary")


if __name__ == "__main__":
    cli_common.main(test)
