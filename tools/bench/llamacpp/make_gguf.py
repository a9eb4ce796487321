#!/usr/bin/python3
"""Writes a Hugging Face Qwen2 checkpoint as a GGUF file for llama.cpp.

  make_gguf.py CHECKPOINT_DIR OUT.gguf {F16,Q8_0,Q4_0} [--gguf-py LLAMA_CPP/gguf-py]

The file is what llama.cpp's convert_hf_to_gguf.py (Qwen2Model) writes for
the same weights, made without transformers or safetensors (neither is
installed here): every 2-D weight, token_embd included, is stored in the
chosen type (Q4_0 is "pure": no tensor is kept at a higher precision), the
norms and biases in F32, and a checkpoint with tied embeddings has no
output.weight. Only the benchmark of tools/bench/vs_llamacpp.sh uses it.

gguf-py is llama.cpp's own Python package (its source tree's gguf-py
directory): --gguf-py, or found on PYTHONPATH. A checkpoint without
tokenizer.json (tools/checkpoints/make_random_checkpoint.py writes none)
gets a stand-in byte-level vocabulary of the configured size, enough for
llama.cpp to load the model and decode token ids.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

# checkpoint_io.py lies beside this script, whose directory Python puts on
# sys.path.
from checkpoint_io import LAYER_TENSORS, SafetensorsCheckpoint, add_size_keys, import_gguf

TYPES = ("F16", "Q8_0", "Q4_0")


def log(message):
    print(f"make_gguf: {message}", file=sys.stderr, flush=True)


def bytes_to_unicode():
    """GPT-2's byte-level alphabet: the printable character standing for
    each byte (what tokenizer.json's vocab and merges are spelled in)."""
    printable = (list(range(ord("!"), ord("~") + 1))
                 + list(range(ord("¡"), ord("¬") + 1))
                 + list(range(ord("®"), ord("ÿ") + 1)))
    characters = {}
    shifted = 0
    for byte in range(256):
        if byte in printable:
            characters[byte] = chr(byte)
        else:
            characters[byte] = chr(256 + shifted)
            shifted += 1
    return characters


def read_vocab(checkpoint, vocab_size, special_ids, gguf):
    """The token texts and types: tokenizer.json's vocabulary and added
    tokens (or the stand-in's), padded to the model's vocab_size with unused
    [PADn] tokens as convert_hf_to_gguf.py pads it; and the stand-in's BPE
    merges (a real tokenizer's are gguf.SpecialVocab's)."""
    texts, types, merges = {}, {}, []
    path = os.path.join(checkpoint, "tokenizer.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            tokenizer = json.load(f)
        if tokenizer["model"]["type"] != "BPE":
            raise SystemExit(f"make_gguf: {path}: not a BPE tokenizer")
        for text, token in tokenizer["model"]["vocab"].items():
            texts[token] = text
            types[token] = gguf.TokenType.NORMAL
        for added in tokenizer.get("added_tokens", []):
            texts[added["id"]] = added["content"]
            types[added["id"]] = (gguf.TokenType.CONTROL if added["special"]
                                  else gguf.TokenType.USER_DEFINED)
        # The merges come from gguf.SpecialVocab, which reads both spellings
        # ("a b" strings and, since transformers 4.45, [a, b] pairs).
    else:
        log(f"{checkpoint} has no tokenizer.json: writing a stand-in "
            "byte-level vocabulary")
        alphabet = bytes_to_unicode()
        for byte in range(min(256, vocab_size)):
            texts[byte] = alphabet[byte]
            types[byte] = gguf.TokenType.NORMAL
        # llama.cpp refuses a BPE vocabulary without merges: one real merge.
        space = alphabet[ord(" ")]
        merges = [f"{space} {space}"]
        if vocab_size > 256:
            texts[256] = space + space
            types[256] = gguf.TokenType.NORMAL
        # Qwen's names, which llama.cpp recognises as end-of-generation.
        names = {"bos": "<|endoftext|>", "eos": "<|im_end|>"}
        if special_ids.get("eos") == special_ids.get("bos"):
            names["eos"] = names["bos"]
        for kind, name in names.items():
            if kind in special_ids:
                texts[special_ids[kind]] = name
                types[special_ids[kind]] = gguf.TokenType.CONTROL
    if max(texts) >= vocab_size:
        raise SystemExit(f"make_gguf: token id {max(texts)} is outside the "
                         f"model's vocab_size {vocab_size}")
    tokens = [texts.get(i, f"[PAD{i}]") for i in range(vocab_size)]
    token_types = [types.get(i, gguf.TokenType.UNUSED) for i in range(vocab_size)]
    return tokens, token_types, merges


def tensor_plan(config, checkpoint, qtype, gguf):
    """(GGUF name, Hugging Face name, ggml type) of every tensor to write."""
    F32 = gguf.GGMLQuantizationType.F32
    plan = [("token_embd.weight", "model.embed_tokens.weight", qtype)]
    for layer in range(config["num_hidden_layers"]):
        for name, hf_name in LAYER_TENSORS:
            hf_name = f"model.layers.{layer}.{hf_name}"
            is_matrix = len(checkpoint.shape(hf_name)) == 2
            plan.append((f"blk.{layer}.{name}", hf_name, qtype if is_matrix else F32))
    plan.append(("output_norm.weight", "model.norm.weight", F32))
    # Tied embeddings: llama.cpp reuses token_embd when output is absent.
    if not config.get("tie_word_embeddings", False):
        plan.append(("output.weight", "lm_head.weight", qtype))
    missing = [hf_name for _, hf_name, _ in plan if hf_name not in checkpoint]
    if missing:
        raise SystemExit(f"make_gguf: the checkpoint lacks {', '.join(missing)}")
    unused = set(checkpoint.entries) - {hf_name for _, hf_name, _ in plan}
    if unused:
        log(f"ignoring {', '.join(sorted(unused))}")
    return plan


def add_metadata(writer, config, name, qtype, gguf):
    file_types = {"F16": gguf.LlamaFileType.MOSTLY_F16,
                  "Q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
                  "Q4_0": gguf.LlamaFileType.MOSTLY_Q4_0}
    writer.add_name(name)
    writer.add_file_type(file_types[qtype.name])
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    add_size_keys(writer, config)
    head_dim = config.get("head_dim")
    if head_dim and head_dim != config["hidden_size"] // config["num_attention_heads"]:
        writer.add_key_length(head_dim)
        writer.add_value_length(head_dim)
    writer.add_rope_freq_base(config.get("rope_theta", 10000.0))
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    if config.get("rope_scaling"):
        log(f"ignoring rope_scaling {config['rope_scaling']} (not needed "
            "within the benchmark's context)")


def add_tokenizer(writer, checkpoint_dir, config, gguf):
    vocab_size = config["vocab_size"]
    # tokenizer_config.json, then config.json, name the special tokens, as
    # convert_hf_to_gguf.py reads them; generation_config.json fills gaps.
    special = gguf.SpecialVocab(checkpoint_dir, load_merges=True, n_vocab=vocab_size)
    generation_path = os.path.join(checkpoint_dir, "generation_config.json")
    if os.path.exists(generation_path):
        with open(generation_path) as f:
            generation = json.load(f)
        for kind in ("bos", "eos", "pad"):
            token = generation.get(f"{kind}_token_id")
            if isinstance(token, list) and token:
                token = token[0]
            if isinstance(token, int) and kind not in special.special_token_ids:
                special.special_token_ids[kind] = token
    tokens, token_types, merges = read_vocab(
        checkpoint_dir, vocab_size, special.special_token_ids, gguf)
    if merges:
        special.merges = merges
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(token_types)
    special.add_to_gguf(writer, quiet=True)


def encode(values, qtype, gguf):
    """The tensor's bytes in ggml's type qtype (gguf.quants matches ggml's
    reference quantizers), as uint8 rows."""
    return gguf.quants.quantize(values, qtype).view(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="Hugging Face Qwen2 checkpoint directory")
    parser.add_argument("output", help="GGUF file to write")
    parser.add_argument("type", choices=TYPES, help="Type of every 2-D weight")
    parser.add_argument("--gguf-py", help="llama.cpp's gguf-py directory")
    args = parser.parse_args()
    gguf = import_gguf(args.gguf_py, "make_gguf")

    started = time.monotonic()
    with open(os.path.join(args.checkpoint, "config.json")) as f:
        config = json.load(f)
    if config.get("model_type") != "qwen2":
        raise SystemExit(f"make_gguf: model_type {config.get('model_type')!r} "
                         "is not qwen2")
    qtype = gguf.GGMLQuantizationType[args.type]
    checkpoint = SafetensorsCheckpoint(args.checkpoint, "make_gguf")
    plan = tensor_plan(config, checkpoint, qtype, gguf)

    # Written to a temporary name: an interrupted run leaves no GGUF that
    # looks complete.
    partial = args.output + ".partial"
    writer = gguf.GGUFWriter(partial, "qwen2")
    name = os.path.basename(os.path.normpath(args.checkpoint))
    add_metadata(writer, config, name, qtype, gguf)
    add_tokenizer(writer, args.checkpoint, config, gguf)
    # The tensor infos precede the data in the file: they are declared from
    # the shapes, then each tensor is read, converted and written in turn,
    # so only one is ever in memory.
    for gguf_name, hf_name, tensor_type in plan:
        byte_shape = gguf.quant_shape_to_byte_shape(checkpoint.shape(hf_name), tensor_type)
        writer.add_tensor_info(gguf_name, byte_shape, np.dtype(np.uint8),
                               int(np.prod(byte_shape)), raw_dtype=tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    layer_started = time.monotonic()
    for gguf_name, hf_name, tensor_type in plan:
        writer.write_tensor_data(encode(checkpoint.read(hf_name), tensor_type, gguf))
        if gguf_name.endswith("ffn_down.weight") or not gguf_name.startswith("blk."):
            log(f"{gguf_name.rsplit('.', 2)[0]}: {time.monotonic() - layer_started:.1f} s")
            layer_started = time.monotonic()
    writer.close()
    os.replace(partial, args.output)
    size = os.path.getsize(args.output)
    log(f"wrote {args.output}: {len(plan)} tensors, {args.type}, "
        f"{size / 2**20:.0f} MiB in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
