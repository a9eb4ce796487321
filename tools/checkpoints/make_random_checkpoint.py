#!/usr/bin/python3
"""Writes a random-weight Hugging Face checkpoint of a known model's shape.

  make_random_checkpoint.py --shape qwen2.5-0.5b --dtype bf16 -o DIR

The result has the real model's config.json and tensor names and shapes with
N(0, 0.02) matrices and 1 + 0.1 N(0, 1) norms, so it exercises the compiler at
full size (memory, time) without downloading weights. Tensors are streamed to
the file one at a time; the script never holds the whole model in memory.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

SHAPES = {
    # Qwen2.5-0.5B-Instruct's config.json.
    "qwen2.5-0.5b": dict(
        architectures=["Qwen2ForCausalLM"], model_type="qwen2",
        vocab_size=151936, hidden_size=896, intermediate_size=4864,
        num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
        hidden_act="silu", max_position_embeddings=32768, rms_norm_eps=1e-6,
        rope_theta=1000000.0, rope_scaling=None, tie_word_embeddings=True,
        bos_token_id=151643, eos_token_id=151645),
    # A small Llama for quick runs of the same code paths.
    "llama-tiny": dict(
        architectures=["LlamaForCausalLM"], model_type="llama",
        vocab_size=512, hidden_size=256, intermediate_size=768,
        num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=2,
        hidden_act="silu", max_position_embeddings=512, rms_norm_eps=1e-6,
        rope_theta=10000.0, rope_scaling=None, tie_word_embeddings=False,
        bos_token_id=1, eos_token_id=2),
    # The smallest Qwen2 the chips compile: a fuzzing seed of a few kilobytes.
    "qwen2-micro": dict(
        architectures=["Qwen2ForCausalLM"], model_type="qwen2",
        vocab_size=64, hidden_size=64, intermediate_size=128,
        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
        hidden_act="silu", max_position_embeddings=64, rms_norm_eps=1e-6,
        rope_theta=10000.0, rope_scaling=None, tie_word_embeddings=False,
        bos_token_id=62, eos_token_id=63),
}


def tensor_shapes(config):
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    kv_heads = config["num_key_value_heads"]
    head_dim = config.get("head_dim", hidden // heads)
    inner = config["intermediate_size"]
    qwen2 = config["model_type"] == "qwen2"
    shapes = [("model.embed_tokens.weight", (config["vocab_size"], hidden))]
    for layer in range(config["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        shapes += [
            (p + "input_layernorm.weight", (hidden,)),
            (p + "self_attn.q_proj.weight", (heads * head_dim, hidden)),
            (p + "self_attn.k_proj.weight", (kv_heads * head_dim, hidden)),
            (p + "self_attn.v_proj.weight", (kv_heads * head_dim, hidden)),
            (p + "self_attn.o_proj.weight", (hidden, heads * head_dim)),
            (p + "post_attention_layernorm.weight", (hidden,)),
            (p + "mlp.gate_proj.weight", (inner, hidden)),
            (p + "mlp.up_proj.weight", (inner, hidden)),
            (p + "mlp.down_proj.weight", (hidden, inner)),
        ]
        if qwen2:
            shapes += [
                (p + "self_attn.q_proj.bias", (heads * head_dim,)),
                (p + "self_attn.k_proj.bias", (kv_heads * head_dim,)),
                (p + "self_attn.v_proj.bias", (kv_heads * head_dim,)),
            ]
    shapes.append(("model.norm.weight", (hidden,)))
    if not config["tie_word_embeddings"]:
        shapes.append(("lm_head.weight", (config["vocab_size"], hidden)))
    return shapes


def random_tensor(rng, name, shape, dtype):
    if name.endswith("norm.weight"):
        values = 1.0 + 0.1 * rng.standard_normal(shape, dtype=np.float32)
    else:
        values = 0.02 * rng.standard_normal(shape, dtype=np.float32)
    if dtype == "F32":
        return values.tobytes()
    if dtype == "F16":
        return values.astype(np.float16).tobytes()
    # BF16: round to nearest even on the upper 16 bits.
    bits = values.view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16).tobytes()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), required=True)
    parser.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="bf16")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layers", type=int,
                        help="Override the shape's number of layers")
    parser.add_argument("--vocab", type=int,
                        help="Override the shape's vocabulary size")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()

    config = dict(SHAPES[args.shape])
    if args.layers:
        config["num_hidden_layers"] = args.layers
    if args.vocab:
        config["vocab_size"] = args.vocab
        config["bos_token_id"] = args.vocab - 2
        config["eos_token_id"] = args.vocab - 1
    dtype = args.dtype.upper()
    config["torch_dtype"] = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(args.output, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": config["bos_token_id"],
                   "eos_token_id": config["eos_token_id"]}, f)

    element = 4 if dtype == "F32" else 2
    header, offset = {}, 0
    shapes = tensor_shapes(config)
    for name, shape in shapes:
        size = int(np.prod(shape)) * element
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    header_bytes = json.dumps(header, separators=(",", ":")).encode()
    header_bytes += b" " * (-len(header_bytes) % 8)
    rng = np.random.default_rng(args.seed)
    path = os.path.join(args.output, "model.safetensors")
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes)))
        f.write(header_bytes)
        for name, shape in shapes:
            f.write(random_tensor(rng, name, shape, dtype))
    os.replace(path + ".tmp", path)
    print(f"wrote {path}: {len(shapes)} tensors, {offset / 2**20:.0f} MiB", file=sys.stderr)


if __name__ == "__main__":
    main()
