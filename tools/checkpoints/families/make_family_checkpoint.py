#!/usr/bin/python3
"""Writes a tiny random-weight checkpoint of a model family, HF and GGUF.

  make_family_checkpoint.py --family {tiny-llama31,tiny-mistral} -o DIR
      --tokenizer-from ../shared/refdata/models/tiny-llama
      [--gguf-py LLAMA_CPP/gguf-py] [--check-tokenizer REF.gguf]

Families (tests/families/README.md describes them):
  tiny-llama31  LlamaForCausalLM with Llama 3.1's rope scaling ("rope_type":
                "llama3", factor 8, original context 64);
  tiny-mistral  MistralForCausalLM with "sliding_window": 32.
Both: vocab 512, hidden 64, 2 layers, 2 heads / 1 KV head of 32, ffn 128,
rope theta 1e4, no biases, untied embeddings.

DIR receives the Hugging Face files (config.json, generation_config.json,
model.safetensors in F32 with HF tensor names, laid out as the safetensors
library lays them out: names sorted, {"format": "pt"} metadata), the
tokenizer.json and tokenizer_config.json copied from --tokenizer-from, and
model-f32.gguf: what llama.cpp's convert_hf_to_gguf.py (LlamaModel, which
converts Mistral too) writes for these weights in F32:
  - architecture `llama`; Q and K weight rows permuted by LlamaModel.permute
    (n_head for Q, n_head_kv for K), llama.cpp's interleaved RoPE;
  - for rope_type llama3, the rope_freqs.weight factors of
    LlamaModel.generate_extra_tensors, evaluated in float32 step by step as
    torch evaluates that code;
  - no sliding-window key (convert_hf_to_gguf.py writes none for Mistral, so
    llama.cpp runs tiny-mistral's GGUF with full attention);
  - the tokenizer as the reference tiny-llama GGUF carries it (tokenizer
    model "llama", i.e. SentencePiece): scores 0 for special and byte
    tokens, -rank for a token its BPE merge of that rank makes, -1e6 for the
    other single characters; types UNKNOWN/CONTROL/BYTE/NORMAL. With
    --check-tokenizer the tokenizer.* keys are compared with that GGUF's.

Weights come from numpy's default_rng with the family's fixed seed: norms
1 + 0.1 N(0, 1), matrices N(0, sigma) with the per-tensor sigmas of SIGMAS
(larger than the usual 0.02 so that logits are not flat and positions and
the window visibly matter). Python 3 and numpy only, plus llama.cpp's gguf-py
(--gguf-py, or on PYTHONPATH) for the GGUF. Same bytes on every run.
"""
import argparse
import json
import math
import os
import re
import shutil
import struct
import sys

import numpy as np

COMMON = dict(
    vocab_size=512, hidden_size=64, intermediate_size=128,
    num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
    head_dim=32, hidden_act="silu", max_position_embeddings=512,
    initializer_range=0.02, rms_norm_eps=1e-6, use_cache=True,
    rope_theta=10000.0, tie_word_embeddings=False, bos_token_id=1,
    eos_token_id=2, attention_dropout=0.0, torch_dtype="float32")

# sigma of each matrix, by the suffix of its Hugging Face name. With these,
# logits spread over about +-6 (std 1.6), the greedy top two stay 3e-3 or
# more apart, and tiny-mistral's window moves the long case's logits by
# several units. Q and K stay at 0.1: llama.cpp computes RoPE angles in
# float32 (theta *= powf(base, -2/d) per pair), which at 0.25 put its long
# case 5e-5 away from the float64 port, at 0.1 4e-6.
SIGMAS = {
    "embed_tokens.weight": 1.0,
    "q_proj.weight": 0.1,
    "k_proj.weight": 0.1,
    "v_proj.weight": 0.2,
    "o_proj.weight": 0.2,
    "gate_proj.weight": 0.2,
    "up_proj.weight": 0.2,
    "down_proj.weight": 0.2,
    "lm_head.weight": 0.2,
}

FAMILIES = {
    "tiny-llama31": dict(
        seed=31,
        config=dict(
            architectures=["LlamaForCausalLM"], model_type="llama",
            **COMMON, attention_bias=False, mlp_bias=False, pretraining_tp=1,
            rope_scaling={"rope_type": "llama3", "factor": 8.0,
                          "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 64})),
    "tiny-mistral": dict(
        seed=8,
        config=dict(
            architectures=["MistralForCausalLM"], model_type="mistral",
            **COMMON, sliding_window=32)),
}

# Per-layer tensors: GGUF name (blk.N.) and Hugging Face name
# (model.layers.N.), in llama.cpp's order.
LAYER_TENSORS = [
    ("attn_norm.weight", "input_layernorm.weight"),
    ("attn_q.weight", "self_attn.q_proj.weight"),
    ("attn_k.weight", "self_attn.k_proj.weight"),
    ("attn_v.weight", "self_attn.v_proj.weight"),
    ("attn_output.weight", "self_attn.o_proj.weight"),
    ("ffn_norm.weight", "post_attention_layernorm.weight"),
    ("ffn_gate.weight", "mlp.gate_proj.weight"),
    ("ffn_up.weight", "mlp.up_proj.weight"),
    ("ffn_down.weight", "mlp.down_proj.weight"),
]


def log(message):
    print(f"make_family_checkpoint: {message}", file=sys.stderr, flush=True)


def tensor_shapes(config):
    """(HF name, GGUF name, shape) of every tensor, in llama.cpp's order."""
    hidden = config["hidden_size"]
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    head_dim, inner = config["head_dim"], config["intermediate_size"]
    shapes = {
        "input_layernorm.weight": (hidden,),
        "self_attn.q_proj.weight": (heads * head_dim, hidden),
        "self_attn.k_proj.weight": (kv_heads * head_dim, hidden),
        "self_attn.v_proj.weight": (kv_heads * head_dim, hidden),
        "self_attn.o_proj.weight": (hidden, heads * head_dim),
        "post_attention_layernorm.weight": (hidden,),
        "mlp.gate_proj.weight": (inner, hidden),
        "mlp.up_proj.weight": (inner, hidden),
        "mlp.down_proj.weight": (hidden, inner),
    }
    plan = [("model.embed_tokens.weight", "token_embd.weight",
             (config["vocab_size"], hidden))]
    for layer in range(config["num_hidden_layers"]):
        for gguf_name, hf_name in LAYER_TENSORS:
            plan.append((f"model.layers.{layer}.{hf_name}",
                         f"blk.{layer}.{gguf_name}", shapes[hf_name]))
    plan.append(("model.norm.weight", "output_norm.weight", (hidden,)))
    plan.append(("lm_head.weight", "output.weight", (config["vocab_size"], hidden)))
    return plan


def random_weights(family):
    """HF name -> float32 array, drawn in llama.cpp's tensor order."""
    spec = FAMILIES[family]
    rng = np.random.default_rng(spec["seed"])
    weights = {}
    for hf_name, _, shape in tensor_shapes(spec["config"]):
        if hf_name.endswith("norm.weight"):
            values = 1.0 + 0.1 * rng.standard_normal(shape)
        else:
            sigma = next(sigma for suffix, sigma in SIGMAS.items()
                         if hf_name.endswith(suffix))
            values = sigma * rng.standard_normal(shape)
        weights[hf_name] = values.astype(np.float32)
    return weights


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)


def write_safetensors(path, weights):
    """F32 tensors as safetensors' save_file writes them: names sorted, data
    in that order, {"format": "pt"} metadata, header padded with spaces to 8
    bytes."""
    header, offset = {}, 0
    names = sorted(weights)
    for name in names:
        size = weights[name].nbytes
        header[name] = {"dtype": "F32", "shape": list(weights[name].shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    header_bytes = json.dumps(header, separators=(",", ":")).encode()
    header_bytes += b" " * (-len(header_bytes) % 8)
    with open(path + ".partial", "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes)))
        f.write(header_bytes)
        for name in names:
            f.write(np.ascontiguousarray(weights[name], "<f4").tobytes())
    os.replace(path + ".partial", path)


def permute(weights, n_head, n_head_kv):
    """convert_hf_to_gguf.py's LlamaModel.permute: the rows of each head
    from HF's rotate_half order to llama.cpp's interleaved pairs."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
            .swapaxes(1, 2)
            .reshape(weights.shape))


def llama3_rope_factors(config):
    """LlamaModel.generate_extra_tensors for rope_type llama3, each step in
    float32 as torch runs it (a Python number / tensor is torch's
    reciprocal() * number; tensor ops with Python scalars stay float32).
    numpy's float32 power may differ from torch's vectorized one in the
    last bit of a frequency; the factors stay within 1e-7 of the float64
    ratio either way."""
    f32 = np.float32
    rope = config["rope_scaling"]
    base = config.get("rope_theta", 10000.0)
    dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    exponents = np.arange(0, dim, 2, dtype=f32) / f32(dim)
    freqs = f32(1.0) / np.power(f32(base), exponents)
    factor = rope.get("factor", 8.0)
    low_freq_factor = rope.get("low_freq_factor", 1.0)
    high_freq_factor = rope.get("high_freq_factor", 4.0)
    old_context_len = rope.get("original_max_position_embeddings", 8192)
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    factors = []
    for freq in freqs:
        wavelen = (f32(1.0) / freq) * f32(2 * math.pi)
        if wavelen < high_freq_wavelen:
            factors.append(f32(1))
        elif wavelen > low_freq_wavelen:
            factors.append(f32(factor))
        else:
            smooth = ((f32(1.0) / wavelen) * f32(old_context_len) - f32(low_freq_factor)) \
                / f32(high_freq_factor - low_freq_factor)
            factors.append(f32(1.0) / ((f32(1) - smooth) / f32(factor) + smooth))
    return np.array(factors, dtype=np.float32)


def tokenizer_metadata(directory, vocab_size, gguf):
    """Token texts, scores and types of tokenizer.json, as the reference
    tiny-llama GGUF holds them (see the docstring)."""
    with open(os.path.join(directory, "tokenizer.json"), encoding="utf-8") as f:
        tokenizer = json.load(f)
    model = tokenizer["model"]
    if model["type"] != "BPE" or not model.get("byte_fallback"):
        raise SystemExit("make_family_checkpoint: tokenizer.json is not a "
                         "SentencePiece-style BPE with byte fallback")
    rank = {}
    for index, merge in enumerate(model["merges"]):
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        rank.setdefault(left + right, index)
    added = {token["id"]: token for token in tokenizer.get("added_tokens", [])}
    unk = model.get("unk_token")
    texts = {token: text for text, token in model["vocab"].items()}
    for token, entry in added.items():
        texts.setdefault(token, entry["content"])
    if sorted(texts) != list(range(vocab_size)):
        raise SystemExit("make_family_checkpoint: tokenizer.json's ids are not "
                         f"0..{vocab_size - 1}")
    tokens, scores, types = [], [], []
    for token in range(vocab_size):
        text = texts[token]
        if token in added:
            score = 0.0
            kind = gguf.TokenType.UNKNOWN if text == unk else gguf.TokenType.CONTROL
        elif re.fullmatch(r"<0x[0-9A-Fa-f]{2}>", text):
            score, kind = 0.0, gguf.TokenType.BYTE
        elif text in rank:
            score, kind = -float(rank[text]), gguf.TokenType.NORMAL
        else:
            score, kind = -1e6, gguf.TokenType.NORMAL
        tokens.append(text)
        scores.append(score)
        types.append(kind)
    return tokens, scores, types


def write_gguf(path, name, config, weights, directory, gguf):
    writer = gguf.GGUFWriter(path + ".partial", "llama")
    writer.add_name(name)
    writer.add_type("model")
    # TextModel.set_gguf_parameters, then LlamaModel's additions.
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])
    writer.add_rope_freq_base(config["rope_theta"])
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_key_length(config["head_dim"])
    writer.add_value_length(config["head_dim"])
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_vocab_size(config["vocab_size"])
    writer.add_rope_dimension_count(config["head_dim"])
    # The vocabulary: "llama" (SentencePiece) as in the reference GGUF, with
    # its special ids and add_bos/add_eos flags from tokenizer_config.json
    # (gguf.SpecialVocab would read the flags off tokenizer.json's
    # post-processor instead and write add_sep, which the reference lacks).
    tokens, scores, types = tokenizer_metadata(directory, config["vocab_size"], gguf)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    with open(os.path.join(directory, "tokenizer_config.json")) as f:
        tokenizer_config = json.load(f)
    writer.add_bos_token_id(tokens.index(tokenizer_config["bos_token"]))
    writer.add_eos_token_id(tokens.index(tokenizer_config["eos_token"]))
    writer.add_unk_token_id(tokens.index(tokenizer_config["unk_token"]))
    writer.add_add_bos_token(tokenizer_config.get("add_bos_token", True))
    writer.add_add_eos_token(tokenizer_config.get("add_eos_token", False))

    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    if (config.get("rope_scaling") or {}).get("rope_type") == "llama3":
        writer.add_tensor("rope_freqs.weight", llama3_rope_factors(config))
    for hf_name, gguf_name, _ in tensor_shapes(config):
        values = weights[hf_name]
        if hf_name.endswith("q_proj.weight"):
            values = permute(values, heads, heads)
        elif hf_name.endswith("k_proj.weight"):
            values = permute(values, heads, kv_heads)
        writer.add_tensor(gguf_name, np.ascontiguousarray(values, np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(path + ".partial", path)


def check_tokenizer(path, reference, gguf):
    """The tokenizer.* keys of two GGUF files must hold the same values."""
    def fields(file):
        reader = gguf.GGUFReader(file)
        return {key: field.contents() for key, field in reader.fields.items()
                if key.startswith("tokenizer.")}
    ours, theirs = fields(path), fields(reference)
    if ours != theirs:
        differing = sorted(k for k in set(ours) | set(theirs)
                           if ours.get(k) != theirs.get(k))
        raise SystemExit(f"make_family_checkpoint: {path}: tokenizer keys "
                         f"differ from {reference}: {', '.join(differing)}")
    log(f"tokenizer metadata matches {reference} ({len(ours)} keys)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), required=True)
    parser.add_argument("-o", "--output", required=True, help="Directory to write")
    parser.add_argument("--tokenizer-from", required=True,
                        help="Directory holding tokenizer.json and tokenizer_config.json")
    parser.add_argument("--gguf-py", help="llama.cpp's gguf-py directory")
    parser.add_argument("--check-tokenizer", metavar="REF.gguf",
                        help="Compare the tokenizer keys with this GGUF's")
    args = parser.parse_args()
    if args.gguf_py:
        sys.path.insert(0, args.gguf_py)
    try:
        import gguf
    except ImportError:
        raise SystemExit("make_family_checkpoint: gguf-py not found: pass "
                         "--gguf-py LLAMA_CPP/gguf-py or put it on PYTHONPATH")

    config = FAMILIES[args.family]["config"]
    os.makedirs(args.output, exist_ok=True)
    write_json(os.path.join(args.output, "config.json"), config)
    write_json(os.path.join(args.output, "generation_config.json"),
               {"bos_token_id": config["bos_token_id"],
                "eos_token_id": config["eos_token_id"], "do_sample": False})
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(args.tokenizer_from, name),
                        os.path.join(args.output, name))
    weights = random_weights(args.family)
    write_safetensors(os.path.join(args.output, "model.safetensors"), weights)
    gguf_path = os.path.join(args.output, "model-f32.gguf")
    write_gguf(gguf_path, args.family, config, weights, args.output, gguf)
    if args.check_tokenizer:
        check_tokenizer(gguf_path, args.check_tokenizer, gguf)
    log(f"wrote {args.output}: {len(weights)} tensors, "
        f"{sum(w.nbytes for w in weights.values()) / 2**10:.0f} KiB")


if __name__ == "__main__":
    main()
