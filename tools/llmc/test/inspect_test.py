"""llmc inspect on the demo model: the text report and --json, checked
against the checkpoint's config and the file itself."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import DEMO, convert_demo, main, run_llmc, scratch_directory  # noqa: E402


def check_json(report, binary, failures):
    config = json.load(open(os.path.join(DEMO, "config.json")))
    failures.check(report["chip"] == "bm1684x" and report["precision"] == "W4BF16",
                   f"chip/precision: {report['chip']} {report['precision']}")
    failures.check(report["q_group_size"] == 64 and report["asymmetric"] is False,
                   "group size 64, symmetric")
    model = report["model"]
    for key, config_key in (("num_layers", "num_hidden_layers"), ("hidden_size", "hidden_size"),
                            ("vocab_size", "vocab_size"), ("num_heads", "num_attention_heads"),
                            ("num_kv_heads", "num_key_value_heads")):
        failures.check(model[key] == config[config_key],
                       f"model.{key} {model[key]}, config {config[config_key]}")
    failures.check(model["family"] == "qwen2" and model["seq_length"] == 512
                   and model["max_input_length"] == 128 and model["prefill_lengths"] == [16, 64]
                   and model["layer_windows"] == [],
                   f"model: {model}")
    failures.check(report["file_bytes"] == os.path.getsize(binary), "file_bytes")

    pieces = {piece["name"]: piece for piece in report["pieces"]}
    layers = config["num_hidden_layers"]
    lengths = ("", ".16", ".64")
    expected = {"embed.decode", "lm_head", "greedy_head", "sample_head"} | {
        f"embed.prefill{length}" for length in lengths} | {
        f"block.{i}.{phase}" for i in range(layers) for phase in ("prefill", "prefill_kv", "decode")
    } | {f"block.{i}.{phase}{length}" for i in range(layers) for phase in ("prefill", "prefill_kv")
         for length in lengths}
    failures.check(set(pieces) == expected, f"pieces: {sorted(set(pieces) ^ expected)}")
    for name, piece in pieces.items():
        failures.check(piece["stream_bytes"] > 0 and piece["modelled_us"] > 0,
                       f"{name}: stream {piece['stream_bytes']} B, {piece['modelled_us']} us")
        for tensor in piece["inputs"] + piece["outputs"]:
            failures.check(tensor["dtype"] in ("f32", "bf16", "f16", "i32") and tensor["shape"],
                           f"{name}: tensor {tensor}")
    chunk = pieces["block.2.prefill_kv.16"]
    failures.check(chunk["phase"] == "prefill_kv" and chunk["layer"] == 2,
                   f"block.2.prefill_kv.16: {chunk['phase']} {chunk['layer']}")
    # 16 new tokens after S - 16 history slots.
    failures.check([t["shape"][1] for t in chunk["inputs"] if t["role"] == "history_k"] == [496],
                   f"block.2.prefill_kv.16 inputs: {chunk['inputs']}")
    decode = pieces["block.0.decode"]
    failures.check(decode["phase"] == "decode" and decode["layer"] == 0,
                   f"block.0.decode: {decode['phase']} {decode['layer']}")
    # The manifest's KV cache is in the dtype the pieces' history IO carries.
    history = [t["dtype"] for t in decode["inputs"] if t["role"].startswith("history_")]
    failures.check(history and set(history) == {report["kv_cache"]["dtype"]} == {"bf16"},
                   f"KV cache {report['kv_cache']}, history IO {history}")
    failures.check([t["shape"] for t in decode["inputs"]][0] == [1, 1, config["hidden_size"]],
                   f"block.0.decode inputs: {decode['inputs']}")

    # The phases of a layer share their weights: each blob counts once.
    weights = report["weights"]
    failures.check(0 < weights["bytes"] <= weights["coeff_bytes"] < report["file_bytes"],
                   f"weights: {weights}")
    failures.check(weights["references"] > weights["count"] > 0, f"weights: {weights}")
    failures.check(report["tokenizer"] == {"present": True, "vocab_size": 4096},
                   f"tokenizer: {report['tokenizer']}")
    chat = report["chat_template"]
    failures.check(chat["format"] == "chatml" and chat["in_binary"] and chat["jinja"]
                   and chat["problem"] == ""
                   and chat["default_system_prompt"] == "You are a helpful assistant.",
                   f"chat template: {chat}")
    generation = report["generation"]
    failures.check(generation["stop_token_ids"] == [4093]
                   and generation["max_new_tokens"] == 512, f"generation: {generation}")
    failures.check(0 < report["modelled"]["decode_seconds"] < 0.01, f"{report['modelled']}")


def test(options, failures):
    llmc = os.path.realpath(options["llmc"])
    binary = convert_demo(llmc, os.path.join(scratch_directory(), "fortune.llmc"),
                          "-q", "W4BF16")
    result = run_llmc(llmc, "inspect", binary, "--json")
    if failures.check(result.returncode == 0, f"--json: {result.stderr.strip()}"):
        check_json(json.loads(result.stdout), binary, failures)
    text = run_llmc(llmc, "inspect", binary)
    for line in ("chip: bm1684x", "precision: W4BF16, group size 64", "model: qwen2, 6 layers",
                 "block.5.prefill_kv [prefill_kv]",
                 "prefill pieces take 128 tokens (L), shorter chunks 16, 64", "tokenizer: yes, vocabulary 4096",
                 "chat template: the binary's Jinja chat_template (stop strings of chatml)",
                 "generation defaults: stop tokens 4093",
                 "weights: ", "tokens/s"):
        failures.check(line in text.stdout, f"the report lacks '{line}'")


if __name__ == "__main__":
    main(test)
