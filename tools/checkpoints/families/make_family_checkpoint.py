#!/usr/bin/python3
"""Writes a tiny random-weight checkpoint of a model family, HF and GGUF.

  make_family_checkpoint.py --family FAMILY -o DIR
      --tokenizer-from ../shared/refdata/models/tiny-llama
      [--gguf-py LLAMA_CPP/gguf-py] [--check-tokenizer REF.gguf]

Families (tests/families/README.md describes them):
  tiny-llama31    LlamaForCausalLM with Llama 3.1's rope scaling ("rope_type":
                  "llama3", factor 8, original context 64);
  tiny-mistral    MistralForCausalLM with "sliding_window": 32;
  tiny-phi3       Phi3ForCausalLM: fused qkv_proj and gate_up_proj,
                  "sliding_window": 48, LongRoPE ("type": "longrope", short
                  and long factors, original context 256 of 512);
  tiny-internlm2  InternLM2ForCausalLM (remote code): wqkv packed by KV head,
                  w1/w3/w2, tok_embeddings and output; 4 heads / 2 KV heads
                  of 16.
  tiny-qwen2-swa  Qwen2ForCausalLM with Q, K and V biases, rope theta 1e6,
                  "use_sliding_window": true, "sliding_window": 32,
                  "max_window_layers": 1, so "layer_types" ["full_attention",
                  "sliding_attention"]: layer 0 attends to the whole context,
                  layer 1 through the window.
  tiny-gemma2     Gemma2ForCausalLM: GELU (tanh) MLP, four norms per layer
                  (input, post-attention, pre- and post-feedforward) of
                  Gemma's kind, x * (1 + w), embeddings scaled by
                  sqrt(hidden), "query_pre_attn_scalar": 32,
                  "attn_logit_softcapping": 5.0, "final_logit_softcapping":
                  3.0, "sliding_window": 32 with "layer_types"
                  ["sliding_attention", "full_attention"] (layer 0 slides,
                  as Gemma 2's every other layer from the first does), tied
                  embeddings;
  tiny-gemma3     Gemma3ForCausalLM ("gemma3_text"): tiny-gemma2's layer
                  without softcapping, plus per-head Q and K norms
                  (q_norm, k_norm) before RoPE; rope theta 1e6 with linear
                  rope scaling (factor 4) in the global layer,
                  "rope_local_base_freq" 1e4 and no scaling in the sliding
                  one ("sliding_window_pattern": 2: layer 0 slides).
All: vocab 512, hidden 64, 2 layers, ffn 128, rope theta 1e4 (except
tiny-qwen2-swa, and tiny-gemma3's global layer), no biases (except
tiny-qwen2-swa's), untied embeddings (except the Gemmas'); 2 heads / 1 KV
head of 32 except tiny-internlm2.

DIR receives the Hugging Face files (config.json, generation_config.json,
model.safetensors in F32 with HF tensor names, laid out as the safetensors
library lays them out: names sorted, {"format": "pt"} metadata), the
tokenizer.json and tokenizer_config.json copied from --tokenizer-from, and
model-f32.gguf: what llama.cpp's convert_hf_to_gguf.py writes for these
weights in F32:
  - Llama and Mistral (LlamaModel, which converts Mistral too): architecture
    `llama`; Q and K weight rows permuted by LlamaModel.permute (n_head for
    Q, n_head_kv for K), llama.cpp's interleaved RoPE; for rope_type llama3,
    the rope_freqs.weight factors of LlamaModel.generate_extra_tensors,
    evaluated in float32 step by step as torch evaluates that code; no
    sliding-window key (convert_hf_to_gguf.py writes none for Mistral, so
    llama.cpp runs tiny-mistral's GGUF with full attention);
  - Phi-3 (Phi3MiniModel): architecture `phi3`, the fused tensors as they are
    (blk.N.attn_qkv, blk.N.ffn_up holding gate then up; NEOX RoPE, so no
    permutation), the keys of Phi3MiniModel.set_gguf_parameters (with
    phi3.attention.sliding_window, which llama.cpp reads and then disables
    for phi3) and phi3.rope.scaling.attn_factor, and the LongRoPE factors
    as rope_factors_long.weight and rope_factors_short.weight;
  - InternLM2 (InternLM2Model): architecture `internlm2`, wqkv split into
    attn_q/attn_k/attn_v as InternLM2Model.modify_tensors splits it, Q and K
    permuted like Llama's; the keys of TextModel.set_gguf_parameters;
  - Qwen2 (Qwen2Model): architecture `qwen2`, the tensors as they are (NEOX
    RoPE, so no permutation), the biases as attn_{q,k,v}.bias; the keys of
    TextModel.set_gguf_parameters, so no sliding-window key: Qwen2Model
    writes none, and llama.cpp's qwen2 has no sliding window;
  - Gemma 2 and Gemma 3 (Gemma2Model, Gemma3Model): architecture `gemma2`
    / `gemma3`, the tensors as they are (NEOX RoPE, so no permutation)
    except the norms: every tensor whose HF name ends in "norm.weight" is
    stored as w + 1 (a float32 add, as modify_tensors' data_torch + 1), so
    that llama.cpp's plain RMSNorm multiplies by 1 + w; no output.weight
    (tied: llama.cpp's LM head is token_embd). Keys: those of
    Gemma2Model.set_gguf_parameters (which does not call TextModel's: no
    rope freq base, llama.cpp's default 1e4 applies) with both softcaps and
    the sliding window; for Gemma 3, TextModel.set_gguf_parameters' (rope
    scaling type linear and factor 4, freq base 1e6, freq_base_swa 1e4 from
    rope_local_base_freq) and Gemma3Model's sliding window, then
    gemma3.attention.sliding_window_pattern [true, false], which the
    converter does not write: without it llama.cpp's gemma3 takes its
    default pattern 6, in which both of two layers slide;
  - for every family, the tokenizer as the reference tiny-llama GGUF carries
    it (tokenizer model "llama", i.e. SentencePiece): scores 0 for special
    and byte tokens, -rank for a token its BPE merge of that rank makes,
    -1e6 for the other single characters; types UNKNOWN/CONTROL/BYTE/NORMAL.
    With --check-tokenizer the tokenizer.* keys are compared with that
    GGUF's. (Phi3MiniModel and InternLM2Model read a tokenizer.model, which
    these checkpoints do not have; Qwen2Model, lacking it, would fall back to
    a "gpt2" vocabulary, whose pre-tokenizer it recognizes by hashing what
    transformers' tokenizer makes of a test text: this tokenizer is not one
    it knows.)

Weights come from numpy's default_rng with the family's fixed seed: norms
1 + 0.1 N(0, 1) (the Gemmas': 0.1 N(0, 1), the w of 1 + w), matrices
N(0, sigma) with the per-tensor sigmas of SIGMAS (larger than the usual 0.02
so that logits are not flat and positions and the window visibly matter;
the Gemmas' tied embedding, their LM head too, 0.05: see GEMMA_SIGMAS),
Qwen2's biases N(0, 0.2). They are drawn as Llama's separate tensors (with
Qwen2's biases after their weights; the Gemmas' own tensors), in
llama.cpp's order, then packed into the family's HF tensors (Q, K and V rows
with their own sigmas inside a fused QKV). Python 3 and numpy only, plus
llama.cpp's gguf-py (--gguf-py, or on PYTHONPATH) for the GGUF. Same bytes
on every run.
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

# tools/bench/llamacpp/checkpoint_io.py: what this script shares with
# make_gguf.py there.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                "..", "..", "bench", "llamacpp"))
import checkpoint_io  # noqa: E402
from checkpoint_io import add_size_keys, import_gguf  # noqa: E402

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
    # Qwen2's attention biases.
    "q_proj.bias": 0.2,
    "k_proj.bias": 0.2,
    "v_proj.bias": 0.2,
}

# The LongRoPE factors of tiny-phi3, one per pair of rotary dimensions (16):
# short 1 + 3/16 (i + 1) (1.1875 .. 4), which apply while the sequence stays
# within original_max_position_embeddings (256, so in every reference), and
# long 1 + (i + 1) / 2 (1.5 .. 9) beyond it. All are exact in float32.
PHI3_SHORT_FACTOR = [1 + 0.1875 * (i + 1) for i in range(16)]
PHI3_LONG_FACTOR = [1 + 0.5 * (i + 1) for i in range(16)]

# tiny-qwen2-swa's seed, chosen for its margins (tests/families/README.md).
QWEN2_SEED = 25

# The Gemmas' embedding, which is also their LM head, is N(0, 0.05), not
# 1.0: it enters the residual stream times sqrt(hidden) = 8, and the logits
# are its dot products with the final hidden state, so that a token's own
# embedding weighs on its logit; with sigma 0.2, every case generated the
# same token over and over. With 0.05 the logits' std is about 0.4.
GEMMA_SIGMAS = {"embed_tokens.weight": 0.05}

# The Gemmas' seeds, chosen for their margins (greedy top two more than 4e-3
# apart), and tiny-gemma2's softcaps, small enough that each visibly changes
# the logits (tests/families/README.md).
GEMMA2_SEED = 43
GEMMA3_SEED = 44
GEMMA2_ATTN_SOFTCAP = 5.0
GEMMA2_FINAL_SOFTCAP = 3.0

# What the Gemmas' configs share (Gemma2Config's and Gemma3TextConfig's
# keys): COMMON with GELU (tanh), whose HF key is hidden_activation
# (hidden_act is written too, as Gemma's released configs do), tied
# embeddings, 1 / sqrt(query_pre_attn_scalar) = 1 / sqrt(head_dim) as the
# attention scale, and layer 0 sliding through a window of 32, layer 1
# global.
GEMMA_COMMON = dict(
    COMMON, hidden_act="gelu_pytorch_tanh", tie_word_embeddings=True,
    hidden_activation="gelu_pytorch_tanh", attention_bias=False,
    query_pre_attn_scalar=32, sliding_window=32,
    layer_types=["sliding_attention", "full_attention"])

FAMILIES = {
    "tiny-llama31": dict(
        seed=31, layout="llama",
        config=dict(
            architectures=["LlamaForCausalLM"], model_type="llama",
            **COMMON, attention_bias=False, mlp_bias=False, pretraining_tp=1,
            rope_scaling={"rope_type": "llama3", "factor": 8.0,
                          "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 64})),
    "tiny-mistral": dict(
        seed=8, layout="llama",
        config=dict(
            architectures=["MistralForCausalLM"], model_type="mistral",
            **COMMON, sliding_window=32)),
    "tiny-phi3": dict(
        # The GGUF's general.name avoids "phi3" and "phi-3": llama.cpp's
        # vocabulary loader sets Phi-3's token attributes for a model whose
        # lowercased name contains either, and throws std::out_of_range
        # (token_to_id.at) when the vocabulary lacks "<|endoftext|>", as
        # the shared one does.
        seed=3, layout="phi3", gguf_name="tiny Phi 3",
        config=dict(
            architectures=["Phi3ForCausalLM"], model_type="phi3",
            **COMMON, attention_bias=False, embd_pdrop=0.0, resid_pdrop=0.0,
            original_max_position_embeddings=256, partial_rotary_factor=1.0,
            sliding_window=48,
            rope_scaling={"type": "longrope", "short_factor": PHI3_SHORT_FACTOR,
                          "long_factor": PHI3_LONG_FACTOR})),
    "tiny-internlm2": dict(
        seed=2, layout="internlm2",
        config=dict(
            architectures=["InternLM2ForCausalLM"], model_type="internlm2",
            auto_map={
                "AutoConfig": "configuration_internlm2.InternLM2Config",
                "AutoModel": "modeling_internlm2.InternLM2ForCausalLM",
                "AutoModelForCausalLM": "modeling_internlm2.InternLM2ForCausalLM",
            },
            # InternLM2Config has no head_dim: hidden_size / heads (16).
            **dict({key: value for key, value in COMMON.items() if key != "head_dim"},
                   num_attention_heads=4, num_key_value_heads=2),
            bias=False, rope_scaling=None)),
    "tiny-qwen2-swa": dict(
        seed=QWEN2_SEED, layout="qwen2", biases=True,
        # The keys of Qwen2Config (transformers >= 4.53, which writes
        # layer_types), which has no head_dim (hidden_size / heads = 32).
        # Layer i slides when use_sliding_window and i >= max_window_layers.
        config=dict(
            architectures=["Qwen2ForCausalLM"], model_type="qwen2",
            **dict({key: value for key, value in COMMON.items() if key != "head_dim"},
                   rope_theta=1000000.0),
            rope_scaling=None, use_sliding_window=True, sliding_window=32,
            max_window_layers=1,
            layer_types=["full_attention", "sliding_attention"])),
    "tiny-gemma2": dict(
        seed=GEMMA2_SEED, layout="gemma2", norm_mean=0.0,
        sigmas=GEMMA_SIGMAS,
        config=dict(
            architectures=["Gemma2ForCausalLM"], model_type="gemma2",
            **GEMMA_COMMON, attn_logit_softcapping=GEMMA2_ATTN_SOFTCAP,
            final_logit_softcapping=GEMMA2_FINAL_SOFTCAP)),
    "tiny-gemma3": dict(
        seed=GEMMA3_SEED, layout="gemma3", norm_mean=0.0,
        sigmas=GEMMA_SIGMAS,
        config=dict(
            architectures=["Gemma3ForCausalLM"], model_type="gemma3_text",
            **dict(GEMMA_COMMON, rope_theta=1000000.0),
            rope_local_base_freq=10000.0,
            rope_scaling={"rope_type": "linear", "factor": 4.0},
            sliding_window_pattern=2, attn_logit_softcapping=None,
            final_logit_softcapping=None)),
}

# Per-layer tensors: GGUF name (blk.N.) and Hugging Face name
# (model.layers.N.), in llama.cpp's order: checkpoint_io's, without Qwen2's
# biases. The weights are drawn as these (Llama's) tensors for every family,
# and for a family with biases as QWEN2_LAYER_TENSORS (checkpoint_io's: each
# bias after its weight), and for the Gemmas as their own tensors.
LAYER_TENSORS = [(gguf_name, hf_name) for gguf_name, hf_name in checkpoint_io.LAYER_TENSORS
                 if not gguf_name.endswith(".bias")]
QWEN2_LAYER_TENSORS = list(checkpoint_io.LAYER_TENSORS)

# Gemma 2's and Gemma 3's layers, in llama.cpp's order (that of
# llama_model_gemma2/gemma3::load_arch_tensors), drawn as they are.
GEMMA2_LAYER_TENSORS = [
    ("attn_norm.weight", "input_layernorm.weight"),
    ("attn_q.weight", "self_attn.q_proj.weight"),
    ("attn_k.weight", "self_attn.k_proj.weight"),
    ("attn_v.weight", "self_attn.v_proj.weight"),
    ("attn_output.weight", "self_attn.o_proj.weight"),
    ("post_attention_norm.weight", "post_attention_layernorm.weight"),
    ("ffn_norm.weight", "pre_feedforward_layernorm.weight"),
    ("ffn_gate.weight", "mlp.gate_proj.weight"),
    ("ffn_up.weight", "mlp.up_proj.weight"),
    ("ffn_down.weight", "mlp.down_proj.weight"),
    ("post_ffw_norm.weight", "post_feedforward_layernorm.weight"),
]
GEMMA3_LAYER_TENSORS = (
    GEMMA2_LAYER_TENSORS[:6]
    + [("attn_k_norm.weight", "self_attn.k_norm.weight"),
       ("attn_q_norm.weight", "self_attn.q_norm.weight")]
    + GEMMA2_LAYER_TENSORS[6:])

# Each layout's tensors: the embedding, final norm and output (HF names;
# None for the Gemmas' tied embedding), and per layer (GGUF name, HF name,
# the Llama tensors it packs, in order); the Gemmas' are drawn as `draw`
# lists them. A fused Phi-3 tensor stacks its parts' rows; InternLM2's wqkv
# interleaves them by KV head (pack_internlm2_wqkv), and its GGUF name is
# None: the converter splits it into attn_q, attn_k and attn_v again.
LAYOUTS = {
    "llama": dict(
        arch="llama", embed="model.embed_tokens.weight", norm="model.norm.weight",
        output="lm_head.weight",
        layer=[(gguf_name, hf_name, (hf_name,)) for gguf_name, hf_name in LAYER_TENSORS]),
    "phi3": dict(
        arch="phi3", embed="model.embed_tokens.weight", norm="model.norm.weight",
        output="lm_head.weight",
        layer=[
            ("attn_norm.weight", "input_layernorm.weight", ("input_layernorm.weight",)),
            ("attn_qkv.weight", "self_attn.qkv_proj.weight",
             ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight")),
            ("attn_output.weight", "self_attn.o_proj.weight", ("self_attn.o_proj.weight",)),
            ("ffn_norm.weight", "post_attention_layernorm.weight",
             ("post_attention_layernorm.weight",)),
            ("ffn_up.weight", "mlp.gate_up_proj.weight",
             ("mlp.gate_proj.weight", "mlp.up_proj.weight")),
            ("ffn_down.weight", "mlp.down_proj.weight", ("mlp.down_proj.weight",)),
        ]),
    "internlm2": dict(
        arch="internlm2", embed="model.tok_embeddings.weight", norm="model.norm.weight",
        output="output.weight",
        layer=[
            ("attn_norm.weight", "attention_norm.weight", ("input_layernorm.weight",)),
            (None, "attention.wqkv.weight",
             ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight")),
            ("attn_output.weight", "attention.wo.weight", ("self_attn.o_proj.weight",)),
            ("ffn_norm.weight", "ffn_norm.weight", ("post_attention_layernorm.weight",)),
            ("ffn_gate.weight", "feed_forward.w1.weight", ("mlp.gate_proj.weight",)),
            ("ffn_up.weight", "feed_forward.w3.weight", ("mlp.up_proj.weight",)),
            ("ffn_down.weight", "feed_forward.w2.weight", ("mlp.down_proj.weight",)),
        ]),
    "qwen2": dict(
        arch="qwen2", embed="model.embed_tokens.weight", norm="model.norm.weight",
        output="lm_head.weight",
        layer=[(gguf_name, hf_name, (hf_name,)) for gguf_name, hf_name in QWEN2_LAYER_TENSORS]),
    "gemma2": dict(
        arch="gemma2", embed="model.embed_tokens.weight", norm="model.norm.weight",
        output=None, draw=GEMMA2_LAYER_TENSORS,
        layer=[(gguf_name, hf_name, (hf_name,)) for gguf_name, hf_name in GEMMA2_LAYER_TENSORS]),
    "gemma3": dict(
        arch="gemma3", embed="model.embed_tokens.weight", norm="model.norm.weight",
        output=None, draw=GEMMA3_LAYER_TENSORS,
        layer=[(gguf_name, hf_name, (hf_name,)) for gguf_name, hf_name in GEMMA3_LAYER_TENSORS]),
}


def log(message):
    print(f"make_family_checkpoint: {message}", file=sys.stderr, flush=True)


def head_dim(config):
    return config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]


def tensor_shapes(config, layer_tensors=LAYER_TENSORS):
    """(HF name, GGUF name, shape) of every tensor, in llama.cpp's order,
    the layers' as `layer_tensors` lists them (Llama's, QWEN2_LAYER_TENSORS
    with Qwen2's Q, K and V biases, or a Gemma's); no lm_head for tied
    embeddings."""
    hidden = config["hidden_size"]
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    dim, inner = head_dim(config), config["intermediate_size"]
    shapes = {
        "input_layernorm.weight": (hidden,),
        "self_attn.q_proj.weight": (heads * dim, hidden),
        "self_attn.q_proj.bias": (heads * dim,),
        "self_attn.k_proj.weight": (kv_heads * dim, hidden),
        "self_attn.k_proj.bias": (kv_heads * dim,),
        "self_attn.v_proj.weight": (kv_heads * dim, hidden),
        "self_attn.v_proj.bias": (kv_heads * dim,),
        "self_attn.o_proj.weight": (hidden, heads * dim),
        "post_attention_layernorm.weight": (hidden,),
        "mlp.gate_proj.weight": (inner, hidden),
        "mlp.up_proj.weight": (inner, hidden),
        "mlp.down_proj.weight": (hidden, inner),
        "pre_feedforward_layernorm.weight": (hidden,),
        "post_feedforward_layernorm.weight": (hidden,),
        "self_attn.q_norm.weight": (dim,),
        "self_attn.k_norm.weight": (dim,),
    }
    plan = [("model.embed_tokens.weight", "token_embd.weight",
             (config["vocab_size"], hidden))]
    for layer in range(config["num_hidden_layers"]):
        for gguf_name, hf_name in layer_tensors:
            plan.append((f"model.layers.{layer}.{hf_name}",
                         f"blk.{layer}.{gguf_name}", shapes[hf_name]))
    plan.append(("model.norm.weight", "output_norm.weight", (hidden,)))
    if not config.get("tie_word_embeddings", False):
        plan.append(("lm_head.weight", "output.weight", (config["vocab_size"], hidden)))
    return plan


def random_weights(family):
    """Llama HF name (a Gemma's own) -> float32 array, drawn in llama.cpp's
    tensor order. Norms are norm_mean + 0.1 N(0, 1): 1 by default, 0 for
    the Gemmas, whose norms multiply by 1 + w."""
    spec = FAMILIES[family]
    rng = np.random.default_rng(spec["seed"])
    sigmas = dict(SIGMAS, **spec.get("sigmas", {}))
    layer_tensors = (QWEN2_LAYER_TENSORS if spec.get("biases", False)
                     else LAYOUTS[spec["layout"]].get("draw", LAYER_TENSORS))
    weights = {}
    for hf_name, _, shape in tensor_shapes(spec["config"], layer_tensors):
        if hf_name.endswith("norm.weight"):
            values = spec.get("norm_mean", 1.0) + 0.1 * rng.standard_normal(shape)
        else:
            sigma = next(sigma for suffix, sigma in sigmas.items()
                         if hf_name.endswith(suffix))
            values = sigma * rng.standard_normal(shape)
        weights[hf_name] = values.astype(np.float32)
    return weights


def pack_internlm2_wqkv(q, k, v, kv_heads):
    """modeling_internlm2.py's wqkv: output rows (kv_heads, groups + 2,
    head_dim), i.e. per KV head its `groups` query heads, then its key head,
    then its value head; query head h * groups + g reads KV head h."""
    hidden = q.shape[1]
    dim = k.shape[0] // kv_heads
    q = q.reshape(kv_heads, -1, dim, hidden)
    k = k.reshape(kv_heads, 1, dim, hidden)
    v = v.reshape(kv_heads, 1, dim, hidden)
    return np.concatenate([q, k, v], axis=1).reshape(-1, hidden)


def layout_weights(layout, config, weights):
    """The family's HF tensors (name -> array) made of Llama's: renamed,
    and fused where the family fuses them (see LAYOUTS)."""
    names = LAYOUTS[layout]
    hf = {names["embed"]: weights["model.embed_tokens.weight"]}
    for layer in range(config["num_hidden_layers"]):
        prefix = f"model.layers.{layer}."
        for _, hf_name, parts in names["layer"]:
            values = [weights[prefix + part] for part in parts]
            if hf_name == "attention.wqkv.weight":
                hf[prefix + hf_name] = pack_internlm2_wqkv(
                    *values, config["num_key_value_heads"])
            else:
                hf[prefix + hf_name] = np.concatenate(values, axis=0)
    hf[names["norm"]] = weights["model.norm.weight"]
    if names["output"]:
        hf[names["output"]] = weights["lm_head.weight"]
    return hf


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


def longrope_attention_factor(config):
    """Phi3MiniModel.generate_extra_tensors' attention factor for "su" and
    "longrope": sqrt(1 + ln(s) / ln(original context)), s = max_position_
    embeddings / original_max_position_embeddings (transformers'
    _compute_longrope_parameters computes the same)."""
    original = config["original_max_position_embeddings"]
    scale = config["max_position_embeddings"] / original
    return math.sqrt(1 + math.log(scale) / math.log(original)) if scale > 1.0 else 1.0


def write_model_keys(writer, layout, config, gguf):
    """The model's keys, as convert_hf_to_gguf.py writes them for the layout
    (after the general.* ones)."""
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    if layout == "phi3":
        # Phi3MiniModel.set_gguf_parameters, which does not call TextModel's
        # (so no rope.scaling.type key: llama.cpp keeps its default, linear
        # with factor 1), then the attention factor generate_extra_tensors
        # adds for LongRoPE.
        writer.add_context_length(config["max_position_embeddings"])
        writer.add_rope_scaling_orig_ctx_len(config["original_max_position_embeddings"])
        writer.add_embedding_length(hidden)
        writer.add_feed_forward_length(config["intermediate_size"])
        writer.add_block_count(config["num_hidden_layers"])
        writer.add_head_count(heads)
        writer.add_head_count_kv(config["num_key_value_heads"])
        writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
        writer.add_rope_dimension_count(
            int(config.get("partial_rotary_factor", 1.0) * hidden) // heads)
        writer.add_rope_freq_base(config["rope_theta"])
        writer.add_file_type(gguf.LlamaFileType.ALL_F32)
        writer.add_sliding_window(config.get("sliding_window") or 0)
        writer.add_rope_scaling_attn_factors(longrope_attention_factor(config))
        return
    if layout == "gemma2":
        # Gemma2Model.set_gguf_parameters, which does not call TextModel's:
        # no rope freq base (llama.cpp's default, 1e4, is rope_theta).
        writer.add_context_length(config["max_position_embeddings"])
        writer.add_embedding_length(hidden)
        writer.add_block_count(config["num_hidden_layers"])
        writer.add_feed_forward_length(config["intermediate_size"])
        writer.add_head_count(heads)
        writer.add_head_count_kv(config["num_key_value_heads"])
        writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
        writer.add_key_length(config["head_dim"])
        writer.add_value_length(config["head_dim"])
        writer.add_file_type(gguf.LlamaFileType.ALL_F32)
        writer.add_attn_logit_softcapping(config["attn_logit_softcapping"])
        writer.add_final_logit_softcapping(config["final_logit_softcapping"])
        writer.add_sliding_window(config["sliding_window"])
        return
    # TextModel.set_gguf_parameters (InternLM2Model adds nothing, and
    # Qwen2Model nothing for a causal LM, whose directory has no
    # sentence-transformers modules.json for _try_set_pooling_type; their
    # configs have no head_dim, so no key_length or value_length, and no
    # rope_scaling, so no rope scaling keys; Gemma3Model calls it first).
    add_size_keys(writer, config)
    rope = config.get("rope_scaling") or {}
    if rope.get("rope_type") == "linear":
        # Gemma 3's (TextModel reads the rope_scaling, or transformers'
        # rope_parameters["full_attention"], which holds the same).
        writer.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        writer.add_rope_scaling_factor(rope["factor"])
    writer.add_rope_freq_base(config["rope_theta"])
    if "rope_local_base_freq" in config:
        # Gemma 3's sliding layers' base (rope_parameters["sliding_attention"]).
        writer.add_rope_freq_base_swa(config["rope_local_base_freq"])
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    if "head_dim" in config:
        writer.add_key_length(config["head_dim"])
        writer.add_value_length(config["head_dim"])
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    if layout == "gemma3":
        # Gemma3Model's additions after TextModel's: it writes the context
        # length, head counts, rms eps, key and value lengths and freq base
        # again, with the same values (the writer keeps their places), no
        # final softcap (null), and the sliding window (its
        # sliding_window_pattern is not 1).
        writer.add_sliding_window(config["sliding_window"])
        # Not the converter's: which layers slide, from layer_types. llama.cpp
        # reads gemma3.attention.sliding_window_pattern (a bool per layer, or
        # a period) and defaults to 6 for gemma3, in which both of two layers
        # would slide.
        writer.add_sliding_window_pattern(
            [kind == "sliding_attention" for kind in config["layer_types"]])
    if layout == "llama":
        # LlamaModel's additions.
        writer.add_vocab_size(config["vocab_size"])
        writer.add_rope_dimension_count(head_dim(config))


def split_internlm2_wqkv(wqkv, config):
    """InternLM2Model.modify_tensors' split of wqkv into Q, K and V rows."""
    num_heads = config["num_attention_heads"]
    num_kv_heads = config["num_key_value_heads"]
    n_embd = config["hidden_size"]
    q_per_kv = num_heads // num_kv_heads
    dim = n_embd // num_heads
    num_groups = num_heads // q_per_kv
    qkv = wqkv.reshape((num_groups, q_per_kv + 2, dim, n_embd))
    q, k, v = qkv[:, :q_per_kv], qkv[:, -2], qkv[:, -1]
    return q.reshape((-1, n_embd)), k.reshape((-1, n_embd)), v.reshape((-1, n_embd))


def gguf_tensors(layout, config, hf):
    """(GGUF name, array) of every tensor, as convert_hf_to_gguf.py converts
    the family's HF tensors `hf`: the extra tensors of generate_extra_tensors
    first, then the model's in llama.cpp's order."""
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    rope = config.get("rope_scaling") or {}
    tensors = []
    if rope.get("rope_type") == "llama3":
        tensors.append(("rope_freqs.weight", llama3_rope_factors(config)))
    if layout == "phi3" and rope.get("long_factor"):
        tensors.append(("rope_factors_long.weight", np.array(rope["long_factor"], np.float32)))
        tensors.append(("rope_factors_short.weight", np.array(rope["short_factor"], np.float32)))
    names = LAYOUTS[layout]
    # Gemma's norms multiply by 1 + w: Gemma2Model and Gemma3Model store
    # w + 1 (torch's float32 add) for every tensor whose name ends in
    # "norm.weight".
    shift = layout in ("gemma2", "gemma3")
    tensors.append(("token_embd.weight", hf[names["embed"]]))
    for layer in range(config["num_hidden_layers"]):
        for gguf_name, hf_name, _ in names["layer"]:
            values = hf[f"model.layers.{layer}.{hf_name}"]
            if shift and hf_name.endswith("norm.weight"):
                values = values + np.float32(1)
            if gguf_name is None:
                # InternLM2: split, then Q and K permuted like Llama's.
                q, k, v = split_internlm2_wqkv(values, config)
                tensors += [(f"blk.{layer}.attn_q.weight", permute(q, heads, heads)),
                            (f"blk.{layer}.attn_k.weight", permute(k, heads, kv_heads)),
                            (f"blk.{layer}.attn_v.weight", v)]
                continue
            if layout == "llama" and gguf_name == "attn_q.weight":
                values = permute(values, heads, heads)
            elif layout == "llama" and gguf_name == "attn_k.weight":
                values = permute(values, heads, kv_heads)
            tensors.append((f"blk.{layer}.{gguf_name}", values))
    norm = hf[names["norm"]]
    tensors.append(("output_norm.weight", norm + np.float32(1) if shift else norm))
    if names["output"]:
        tensors.append(("output.weight", hf[names["output"]]))
    return tensors


def write_gguf(path, name, layout, config, hf, directory, gguf):
    writer = gguf.GGUFWriter(path + ".partial", LAYOUTS[layout]["arch"])
    writer.add_name(name)
    writer.add_type("model")
    write_model_keys(writer, layout, config, gguf)
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

    for gguf_name, values in gguf_tensors(layout, config, hf):
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
    gguf = import_gguf(args.gguf_py, "make_family_checkpoint")

    config = FAMILIES[args.family]["config"]
    layout = FAMILIES[args.family]["layout"]
    os.makedirs(args.output, exist_ok=True)
    write_json(os.path.join(args.output, "config.json"), config)
    write_json(os.path.join(args.output, "generation_config.json"),
               {"bos_token_id": config["bos_token_id"],
                "eos_token_id": config["eos_token_id"], "do_sample": False})
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(args.tokenizer_from, name),
                        os.path.join(args.output, name))
    weights = layout_weights(layout, config, random_weights(args.family))
    write_safetensors(os.path.join(args.output, "model.safetensors"), weights)
    gguf_path = os.path.join(args.output, "model-f32.gguf")
    write_gguf(gguf_path, FAMILIES[args.family].get("gguf_name", args.family), layout,
               config, weights, args.output, gguf)
    if args.check_tokenizer:
        check_tokenizer(gguf_path, args.check_tokenizer, gguf)
    log(f"wrote {args.output}: {len(weights)} tensors, "
        f"{sum(w.nbytes for w in weights.values()) / 2**10:.0f} KiB")


if __name__ == "__main__":
    main()
