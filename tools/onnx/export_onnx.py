#!/usr/bin/python3
"""Exports a Hugging Face checkpoint to ONNX with PyTorch's exporter.

  export_onnx.py -m MODEL_DIR -o OUT_DIR --layout pieces|decoder [--opset 17]
  export_onnx.py -m MODEL_DIR --check-refs REFS.json
  export_onnx.py --verify OUT_DIR [-m MODEL_DIR] [--refs REFS.json]

llmc's ONNX importer needs graphs like the ones users bring: the decoder is
written here in plain torch the way Hugging Face's modeling code writes it
(RMSNorm by pow/mean/rsqrt, rotate_half, repeat_kv, eager attention), so
torch.onnx.export emits the primitive patterns real exports contain. The
`pieces` layout cuts the model as llmc does (docs/pieces.md); `decoder` is
the whole model in one graph. tools/onnx/README.md describes both layouts.

There is no `transformers` here: --check-refs proves the torch model against
the reference logits, and --verify evaluates every exported file with the
numpy evaluator of onnx_eval.py (no onnxruntime) against the torch model.
"""
import argparse
import json
import math
import os
import re
import shutil
import sys
import time
from collections import Counter

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_eval  # noqa: E402

MASKED = -10000.0  # llmc's additive mask value (frontends/llm/Masks.h).
TOLERANCE = 1e-4

# --------------------------------------------------------------------------
# Checkpoint
# --------------------------------------------------------------------------

_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def load_safetensors(path):
    """Every tensor of a .safetensors file as a float32 numpy array."""
    with open(path, "rb") as f:
        header_len = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(header_len))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in _DTYPES:
            raise ValueError(f"{name}: unsupported dtype {info['dtype']}")
        begin, end = info["data_offsets"]
        raw = np.frombuffer(data[begin:end], dtype=_DTYPES[info["dtype"]])
        if info["dtype"] == "BF16":  # the top half of a float32
            raw = (raw.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = raw.astype(np.float32).reshape(info["shape"])
    return tensors


class Config:
    """The config.json fields the decoder uses."""

    def __init__(self, raw):
        if raw["model_type"] not in ("llama", "qwen2", "qwen3"):
            raise ValueError(f"unsupported model_type {raw['model_type']}")
        if raw.get("rope_scaling"):
            raise ValueError("rope_scaling is not supported")
        self.model_type = raw["model_type"]
        self.vocab_size = raw["vocab_size"]
        self.hidden_size = raw["hidden_size"]
        self.intermediate_size = raw["intermediate_size"]
        self.num_hidden_layers = raw["num_hidden_layers"]
        self.num_attention_heads = raw["num_attention_heads"]
        self.num_key_value_heads = raw.get("num_key_value_heads",
                                           self.num_attention_heads)
        self.head_dim = raw.get("head_dim") or (self.hidden_size //
                                                self.num_attention_heads)
        self.rms_norm_eps = raw["rms_norm_eps"]
        self.rope_theta = raw.get("rope_theta", 10000.0)
        self.max_position_embeddings = raw["max_position_embeddings"]
        self.tie_word_embeddings = raw.get("tie_word_embeddings", False)
        self.attention_bias = (self.model_type == "qwen2"
                               or raw.get("attention_bias", False))

    def to_json(self):
        return dict(vars(self))


# --------------------------------------------------------------------------
# The decoder, as Hugging Face's modeling code writes it
# --------------------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance +
                                                    self.variance_epsilon)
        return self.weight * hidden_states


class RotaryTables(nn.Module):
    """cos/sin [S, head_dim] of positions 0..S-1, gathered by position id.

    Each block holds its own copy (as TPU toolchain exports do), so a block
    file stands alone. Computed in float64, stored as float32.
    """

    def __init__(self, head_dim, theta, positions):
        super().__init__()
        inv_freq = 1.0 / theta**(np.arange(0, head_dim, 2) / head_dim)
        freqs = np.outer(np.arange(positions), inv_freq)
        emb = np.concatenate([freqs, freqs], axis=-1)
        self.register_buffer("cos_cached",
                             torch.from_numpy(np.cos(emb).astype(np.float32)))
        self.register_buffer("sin_cached",
                             torch.from_numpy(np.sin(emb).astype(np.float32)))

    def forward(self, position_ids):
        # An embedding lookup is a Gather that takes int32 or int64 ids.
        return (F.embedding(position_ids, self.cos_cached),
                F.embedding(position_ids, self.sin_cached))


class RotaryEmbedding(nn.Module):
    """Hugging Face's current LlamaRotaryEmbedding: cos and sin [1, T,
    head_dim] computed in the graph from the inverse frequencies and the
    position ids, once per model, in float32."""

    def __init__(self, head_dim, theta):
        super().__init__()
        inv_freq = 1.0 / (theta**(torch.arange(
            0, head_dim, 2, dtype=torch.int64).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = 1.0

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(
            position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float()
                 @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., :x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    cos = cos.unsqueeze(1)  # [1, 1, L, head_dim], broadcast over heads
    sin = sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) *
                                                            sin)


def repeat_kv(hidden_states, n_rep):
    batch, kv_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(
        batch, kv_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, kv_heads * n_rep, slen, head_dim)


class Attention(nn.Module):
    def __init__(self, config, positions, rotary):
        super().__init__()
        self.head_dim = config.head_dim
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        bias = config.attention_bias
        hidden, hd = config.hidden_size, config.head_dim
        self.q_proj = nn.Linear(hidden, self.num_heads * hd, bias=bias)
        self.k_proj = nn.Linear(hidden, self.num_kv_heads * hd, bias=bias)
        self.v_proj = nn.Linear(hidden, self.num_kv_heads * hd, bias=bias)
        self.o_proj = nn.Linear(self.num_heads * hd, hidden, bias=False)
        if config.model_type == "qwen3":
            self.q_norm = RMSNorm(hd, config.rms_norm_eps)
            self.k_norm = RMSNorm(hd, config.rms_norm_eps)
        if rotary == "tables":
            self.rotary_emb = RotaryTables(hd, config.rope_theta, positions)

    def forward(self, hidden_states, position_ids, mask, history_k,
                history_v, position_embeddings=None, past=None):
        """position_embeddings: cos and sin [1, L, head_dim] computed by the
        model, else gathered here from the tables; mask: additive
        [1, L, K] or [1, 1, L, K]; history_*: [1, H, kv_heads, head_dim] or
        None. Returns the output and the new rotated keys and values
        [1, L, kv_heads, head_dim]; with `past`, Hugging Face's cache [1,
        kv_heads, P, head_dim] each, the present cache [1, kv_heads, P + L,
        head_dim] instead."""
        bsz, q_len, _ = hidden_states.size()
        q = self.q_proj(hidden_states).view(bsz, q_len, -1, self.head_dim)
        k = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim)
        v = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim)
        if hasattr(self, "q_norm"):
            q, k = self.q_norm(q), self.k_norm(k)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        if position_embeddings is None:
            position_embeddings = self.rotary_emb(position_ids)
        cos, sin = position_embeddings
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        new_k, new_v = k.transpose(1, 2), v.transpose(1, 2)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
            new_k, new_v = k, v
        if history_k is not None:
            k = torch.cat([history_k.transpose(1, 2), k], dim=2)
            v = torch.cat([history_v.transpose(1, 2), v], dim=2)
        n_rep = self.num_heads // self.num_kv_heads
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        attn_weights = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(
            self.head_dim)
        if mask.dim() == 3:
            mask = mask.unsqueeze(1)
        attn_weights = attn_weights + mask
        attn_weights = F.softmax(attn_weights, dim=-1,
                                 dtype=torch.float32).to(q.dtype)
        attn_output = torch.matmul(attn_weights, v)
        attn_output = attn_output.transpose(1, 2).contiguous().reshape(
            bsz, q_len, -1)
        return self.o_proj(attn_output), new_k, new_v


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        hidden, inner = config.hidden_size, config.intermediate_size
        self.gate_proj = nn.Linear(hidden, inner, bias=False)
        self.up_proj = nn.Linear(hidden, inner, bias=False)
        self.down_proj = nn.Linear(inner, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, config, positions, rotary):
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config, positions, rotary)
        self.post_attention_layernorm = RMSNorm(config.hidden_size,
                                                config.rms_norm_eps)
        self.mlp = MLP(config)

    def forward(self, hidden, position_ids, mask, history_k=None,
                history_v=None, position_embeddings=None, past=None):
        attn, new_k, new_v = self.self_attn(self.input_layernorm(hidden),
                                            position_ids, mask, history_k,
                                            history_v, position_embeddings,
                                            past)
        hidden = hidden + attn
        hidden = hidden + self.mlp(self.post_attention_layernorm(hidden))
        return hidden, new_k, new_v


def causal_mask(tgt_len):
    """Hugging Face's _make_causal_mask: min above the diagonal, else 0."""
    mask = torch.full((tgt_len, tgt_len), torch.finfo(torch.float32).min)
    mask_cond = torch.arange(mask.size(-1))
    return mask.masked_fill(mask_cond < (mask_cond + 1).view(-1, 1), 0.0)


def causal_mask_4d(attention_mask, tgt_len, past_len):
    """Hugging Face's _prepare_4d_causal_attention_mask [1, 1, T, P + T]:
    the causal mask after P visible past slots, with the slots
    `attention_mask` (0/1, [1, P + T]) closes masked too."""
    minimum = torch.finfo(torch.float32).min
    mask = causal_mask(tgt_len)
    if past_len > 0:
        mask = torch.cat([torch.zeros(tgt_len, past_len), mask], dim=-1)
    bsz, src_len = attention_mask.shape
    mask = mask[None, None, :, :].expand(bsz, 1, tgt_len, src_len)
    expanded = attention_mask[:, None, None, :].expand(
        bsz, 1, tgt_len, src_len).to(torch.float32)
    inverted = 1.0 - expanded
    inverted = inverted.masked_fill(inverted.to(torch.bool), minimum)
    return mask.masked_fill(inverted.bool(), minimum)


class CausalLM(nn.Module):
    """Parameters named as the checkpoint names them (model.layers.N....).

    rotary "tables": each layer gathers cos/sin from its own precomputed
    tables; "in-graph": the model computes them from the position ids as
    Hugging Face's current code does."""

    def __init__(self, config, positions, rotary="tables"):
        super().__init__()
        self.config = config
        self.model = nn.Module()
        self.model.embed_tokens = nn.Embedding(config.vocab_size,
                                               config.hidden_size)
        self.model.layers = nn.ModuleList(
            DecoderLayer(config, positions, rotary)
            for _ in range(config.num_hidden_layers))
        self.model.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        if rotary == "in-graph":
            self.model.rotary_emb = RotaryEmbedding(config.head_dim,
                                                    config.rope_theta)
        if not config.tie_word_embeddings:
            self.lm_head = nn.Linear(config.hidden_size, config.vocab_size,
                                     bias=False)

    def head_weight(self):
        if self.config.tie_word_embeddings:
            return self.model.embed_tokens.weight
        return self.lm_head.weight

    def position_embeddings(self, hidden, position_ids):
        """cos and sin computed once for every layer, or None when each layer
        gathers them from its tables."""
        if hasattr(self.model, "rotary_emb"):
            return self.model.rotary_emb(hidden, position_ids)
        return None

    def forward(self, input_ids, position_ids):
        """Logits [1, T, V] of every position, without a cache."""
        hidden = self.model.embed_tokens(input_ids)
        mask = causal_mask(input_ids.shape[1])[None, :, :]
        rotary = self.position_embeddings(hidden, position_ids)
        for layer in self.model.layers:
            hidden, _, _ = layer(hidden, position_ids, mask,
                                 position_embeddings=rotary)
        return F.linear(self.model.norm(hidden), self.head_weight())


class CachedDecoder(nn.Module):
    """The decoder with optimum's cache I/O: input_ids, attention_mask [1,
    P + T], position_ids and past_key_values.N.key/value [1, kv, P, hd] in;
    logits and present.N.key/value [1, kv, P + T, hd] out."""

    head_weight = CausalLM.head_weight
    position_embeddings = CausalLM.position_embeddings

    def __init__(self, lm):
        super().__init__()
        self.config = lm.config
        self.model = lm.model  # the checkpoint's names, as in CausalLM
        if hasattr(lm, "lm_head"):
            self.lm_head = lm.lm_head

    def forward(self, input_ids, attention_mask, position_ids, *past):
        hidden = self.model.embed_tokens(input_ids)
        past_len = past[0].shape[2]
        mask = causal_mask_4d(attention_mask, input_ids.shape[1], past_len)
        rotary = self.position_embeddings(hidden, position_ids)
        presents = []
        for i, layer in enumerate(self.model.layers):
            hidden, k, v = layer(hidden, position_ids, mask,
                                 position_embeddings=rotary,
                                 past=(past[2 * i], past[2 * i + 1]))
            presents += [k, v]
        logits = F.linear(self.model.norm(hidden), self.head_weight())
        return (logits, *presents)


def load_model(model_dir, positions, rotary="tables"):
    with open(os.path.join(model_dir, "config.json")) as f:
        config = Config(json.load(f))
    model = CausalLM(config, positions, rotary)
    tensors = load_safetensors(os.path.join(model_dir, "model.safetensors"))
    state = {k: torch.from_numpy(v) for k, v in tensors.items()}
    # The rotary tables are generated, not read; a tied head has no tensor.
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if "rotary_emb" not in m]
    if missing or unexpected:
        raise ValueError(f"missing {missing}, unexpected {unexpected}")
    return model.eval()


# --------------------------------------------------------------------------
# Pieces: modules whose parameter names keep the checkpoint's names
# --------------------------------------------------------------------------


class EmbeddingPiece(nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.model = nn.Module()
        self.model.embed_tokens = lm.model.embed_tokens

    def forward(self, input_ids):
        return self.model.embed_tokens(input_ids)


class BlockPiece(nn.Module):
    def __init__(self, lm, index):
        super().__init__()
        self.model = nn.Module()
        self.model.layers = nn.ModuleDict({str(index): lm.model.layers[index]})
        if hasattr(lm.model, "rotary_emb"):
            self.model.rotary_emb = lm.model.rotary_emb
        self.index = str(index)

    def forward(self, hidden, position_ids, mask, history_k=None,
                history_v=None):
        rotary = CausalLM.position_embeddings(self, hidden, position_ids)
        return self.model.layers[self.index](hidden, position_ids, mask,
                                             history_k, history_v, rotary)


class LmHeadPiece(nn.Module):
    """The final RMSNorm and the head, as llmc's lm_head (HeadBuilder.cpp)."""

    def __init__(self, lm):
        super().__init__()
        self.tied = lm.config.tie_word_embeddings
        self.model = nn.Module()
        self.model.norm = lm.model.norm
        if self.tied:
            self.model.embed_tokens = lm.model.embed_tokens
        else:
            self.lm_head = lm.lm_head

    def forward(self, hidden):
        hidden = self.model.norm(hidden)
        if self.tied:
            return F.linear(hidden, self.model.embed_tokens.weight)
        return self.lm_head(hidden)


def piece_specs(lm, seq_length, max_input):
    """(file, module, {input: example}, output names, dynamic axes) for every
    file of a layout; the examples fix the static shapes."""
    c = lm.config
    kv = (c.num_key_value_heads, c.head_dim)
    ids = lambda n: torch.zeros(1, n, dtype=torch.int32)  # noqa: E731
    specs = [
        ("embedding.onnx", EmbeddingPiece(lm), {"input_ids": ids(max_input)},
         ["hidden"], None),
        ("embedding_cache.onnx", EmbeddingPiece(lm), {"input_ids": ids(1)},
         ["hidden"], None),
    ]
    for i in range(c.num_hidden_layers):
        block = BlockPiece(lm, i)
        prefill = {
            "hidden": torch.zeros(1, max_input, c.hidden_size),
            "position_ids": ids(max_input),
            "mask": torch.zeros(1, max_input, max_input),
        }
        decode = {
            "hidden": torch.zeros(1, 1, c.hidden_size),
            "position_ids": ids(1),
            "mask": torch.zeros(1, 1, seq_length + 1),
            "history_k": torch.zeros(1, seq_length, *kv),
            "history_v": torch.zeros(1, seq_length, *kv),
        }
        # ONNX names are unique: a block cannot output the name it takes.
        outputs = ["hidden_out", "new_k", "new_v"]
        specs.append((f"block_{i}.onnx", block, prefill, outputs, None))
        specs.append((f"block_cache_{i}.onnx", block, decode, outputs, None))
    specs.append(("lm_head.onnx", LmHeadPiece(lm),
                  {"hidden": torch.zeros(1, c.hidden_size)}, ["logits"], None))
    return specs


PAST_EXAMPLE = 2  # P of the cache example; P stays dynamic


def cache_names(lm, kind):
    """optimum's names of the cache inputs (past_key_values) or outputs
    (present), key and value of each layer."""
    return [f"{kind}.{i}.{part}" for i in range(lm.config.num_hidden_layers)
            for part in ("key", "value")]


def decoder_specs(lm, tokens, cache_io=False, past=PAST_EXAMPLE):
    if not cache_io:
        example = {
            "input_ids": torch.zeros(1, tokens, dtype=torch.int64),
            "position_ids": torch.arange(tokens).view(1, -1),
        }
        dynamic = {"input_ids": {1: "T"}, "position_ids": {1: "T"},
                   "logits": {1: "T"}}
        return [("decoder.onnx", lm, example, ["logits"], dynamic)]
    # As optimum exports a decoder with its cache: batch, T and P dynamic.
    c, P = lm.config, past
    example = {
        "input_ids": torch.zeros(1, tokens, dtype=torch.int64),
        "attention_mask": torch.ones(1, P + tokens, dtype=torch.int64),
        "position_ids": torch.arange(P, P + tokens).view(1, -1),
    }
    dynamic = {"input_ids": {0: "batch_size", 1: "sequence_length"},
               "attention_mask": {0: "batch_size",
                                  1: "past_sequence_length + 1"},
               "position_ids": {0: "batch_size", 1: "sequence_length"},
               "logits": {0: "batch_size", 1: "sequence_length"}}
    for name in cache_names(lm, "past_key_values"):
        example[name] = torch.zeros(1, c.num_key_value_heads, P, c.head_dim)
        dynamic[name] = {0: "batch_size", 2: "past_sequence_length"}
    presents = cache_names(lm, "present")
    for name in presents:
        dynamic[name] = {0: "batch_size", 2: "past_sequence_length + 1"}
    return [("decoder.onnx", CachedDecoder(lm), example, ["logits"] + presents,
             dynamic)]


# --------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------


COMPANION_FILES = ("tokenizer.json", "tokenizer_config.json",
                   "generation_config.json", "chat_template.jinja")


def as_branch(graph, prefix, initializers, by_content):
    """`graph` as a branch of an If: its initializers move to the outer
    graph (`initializers`, equal ones once), the values its nodes compute
    and its outputs are renamed under `prefix`, and it reads the outer
    graph's inputs by name."""
    rename = {}
    for init in graph.initializer:
        key = (init.data_type, tuple(init.dims), init.raw_data)
        if key not in by_content:
            name = init.name if init.name not in initializers else (
                prefix + init.name)
            copy = onnx.TensorProto()
            copy.CopyFrom(init)
            copy.name = name
            initializers[name] = copy
            by_content[key] = name
        rename[init.name] = by_content[key]
    for node in graph.node:
        rename.update((o, prefix + o) for o in node.output if o)
    nodes = []
    for node in graph.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.name = prefix + node.name
        del copy.input[:], copy.output[:]
        copy.input.extend(rename.get(i, i) for i in node.input)
        copy.output.extend(rename.get(o, o) for o in node.output)
        nodes.append(copy)
    outputs = []
    for output in graph.output:
        copy = onnx.ValueInfoProto()
        copy.CopyFrom(output)
        copy.name = rename.get(output.name, output.name)
        outputs.append(copy)
    return onnx.helper.make_graph(nodes, prefix.rstrip("/"), [], outputs)


def merge_decoders(with_past, without_past, path):
    """optimum's merged decoder: one If on the input use_cache_branch (bool
    [1]) runs the export traced with a past or the one traced without."""
    initializers, by_content = {}, {}
    then_branch = as_branch(with_past.graph, "with_past/", initializers,
                            by_content)
    else_branch = as_branch(without_past.graph, "no_past/", initializers,
                            by_content)
    outputs = list(with_past.graph.output)
    node = onnx.helper.make_node("If", ["use_cache_branch"],
                                 [o.name for o in outputs],
                                 name="optimum::if", then_branch=then_branch,
                                 else_branch=else_branch)
    flag = onnx.helper.make_tensor_value_info("use_cache_branch",
                                              onnx.TensorProto.BOOL, [1])
    graph = onnx.helper.make_graph([node], "merged",
                                   list(with_past.graph.input) + [flag],
                                   outputs, list(initializers.values()))
    model = onnx.helper.make_model(graph,
                                   opset_imports=with_past.opset_import)
    model.ir_version = with_past.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, path)


def trace(module, inputs, outputs, dynamic, path, args):
    """torch.onnx.export of `module` on the example `inputs` to `path`."""
    with torch.no_grad():
        torch.onnx.export(module, tuple(inputs.values()), path,
                          input_names=list(inputs), output_names=outputs,
                          dynamic_axes=dynamic, opset_version=args.opset,
                          do_constant_folding=not args.no_constant_folding)


def export_merged(lm, args, path):
    """Traces the cache decoder with a past and without (the trace keeps
    the Python branches the past's length takes) and merges the two."""
    traced = []
    for past in (PAST_EXAMPLE, 0):
        _, module, inputs, outputs, dynamic = decoder_specs(
            lm, args.tokens, cache_io=True, past=past)[0]
        part = f"{path}.{'with' if past else 'no'}_past"
        trace(module, inputs, outputs, dynamic, part, args)
        traced.append(onnx.load(part))
        os.remove(part)
    merge_decoders(traced[0], traced[1], path)


def export(args):
    os.makedirs(args.output, exist_ok=True)
    lm = load_model(args.model, args.seq_length, args.rotary)
    if args.layout == "pieces":
        specs = piece_specs(lm, args.seq_length, args.max_input_length)
    else:
        specs = decoder_specs(lm, args.tokens, args.cache_io)
    start = time.time()
    files = []
    for name, module, inputs, outputs, dynamic in specs:
        path = os.path.join(args.output, name)
        if args.merged:
            export_merged(lm, args, path)
        else:
            trace(module, inputs, outputs, dynamic, path, args)
        if args.external_data:
            data = path + ".data"
            if os.path.exists(data):  # onnx appends to an existing file
                os.remove(data)
            model = onnx.load(path)
            onnx.save_model(model, path, save_as_external_data=True,
                            all_tensors_to_one_file=True,
                            location=name + ".data", size_threshold=0)
        files.append(name)
    manifest = {
        "layout": args.layout,
        "model_type": lm.config.model_type,
        "config": lm.config.to_json(),
        "source": os.path.abspath(args.model),
        "opset": args.opset,
        "constant_folding": not args.no_constant_folding,
        "external_data": args.external_data,
        "seq_length": args.seq_length,
        "rotary": args.rotary,
        "rope_table_positions": (args.seq_length if args.rotary == "tables"
                                 else None),
        "mask_value": (MASKED if args.layout == "pieces" else
                       float(torch.finfo(torch.float32).min)),
        "files": files,
    }
    if args.layout == "pieces":
        manifest["max_input_length"] = args.max_input_length
    elif args.cache_io:
        manifest["cache_io"] = True
        manifest["merged"] = args.merged
        manifest["dynamic_axes"] = {
            "batch_size": "dimension 0 of every input and output",
            "sequence_length": "input_ids[1], position_ids[1], logits[1]",
            "past_sequence_length": "past_key_values.N.key/value[2]",
            "past_sequence_length + 1": "attention_mask[1], "
                                        "present.N.key/value[2]"}
    else:
        manifest["cache_io"] = False
        manifest["dynamic_axes"] = {"T": "input_ids[1], position_ids[1], "
                                         "logits[1]"}
    with open(os.path.join(args.output, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    # The tokenizer and generation defaults travel with the graphs, as they
    # do beside a Hugging Face checkpoint.
    for companion in COMPANION_FILES:
        source = os.path.join(args.model, companion)
        if os.path.exists(source):
            shutil.copyfile(source, os.path.join(args.output, companion))
    print(f"exported {len(files)} files to {args.output} in "
          f"{time.time() - start:.1f} s")


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------


def default_refs(model_dir):
    """refdata's F32 short case for a refdata model, else None."""
    name = os.path.basename(os.path.normpath(model_dir))
    refs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "..", "shared", "refdata", "refs",
                        f"{name}.f32.short.json")
    refs = os.path.normpath(refs)
    return refs if os.path.exists(refs) else None


def load_refs(path):
    with open(path) as f:
        ids = json.load(f)
    return ids, np.load(path[:-len(".json")] + ".npy")


def check_refs(args):
    """Greedy generation with the torch model, without a cache, against the
    reference logits [generated, vocab]."""
    refs = args.check_refs if args.check_refs != "auto" else default_refs(
        args.model)
    ids, logits = load_refs(refs)
    lm = load_model(args.model, args.seq_length)
    tokens = list(ids["prompt"])
    worst = 0.0
    for i, expected_id in enumerate(ids["generated"]):
        with torch.no_grad():
            row = lm(torch.tensor([tokens]),
                     torch.arange(len(tokens)).view(1, -1))[0, -1].numpy()
        worst = max(worst, float(np.abs(row - logits[i]).max()))
        if int(row.argmax()) != expected_id:
            sys.exit(f"FAIL: token {i}: greedy {row.argmax()} != "
                     f"{expected_id}")
        tokens.append(expected_id)
    status = "ok" if worst <= TOLERANCE else "FAIL"
    print(f"{status}: {args.model}: {len(ids['generated'])} greedy tokens "
          f"match {refs}, max |dlogit| {worst:.2e}")
    if worst > TOLERANCE:
        sys.exit(1)


class Verifier:
    """Runs each file with onnx_eval and the same module in torch."""

    def __init__(self, directory, specs):
        self.directory = directory
        self.specs = {s[0]: s for s in specs}
        self.worst = 0.0

    def run(self, name, **inputs):
        _, module, _, outputs, _ = self.specs[name]
        path = os.path.join(self.directory, name)
        onnx.checker.check_model(path)
        got = onnx_eval.run(onnx.load(path), inputs)
        with torch.no_grad():
            want = module(*(torch.from_numpy(v) for v in inputs.values()))
        want = want if isinstance(want, tuple) else (want,)
        for out, w in zip(outputs, want):
            diff = float(np.abs(got[out] - w.numpy()).max())
            self.worst = max(self.worst, diff)
            if diff > TOLERANCE:
                sys.exit(f"FAIL: {name} {out}: max |d| {diff:.2e}")
        return [got[o] for o in outputs]


def compare_refs(what, logits, expected):
    diff = float(np.abs(logits - expected).max())
    print(f"  {what}: max |dlogit| vs refs {diff:.2e}")
    if diff > TOLERANCE:
        sys.exit(f"FAIL: {what}")


def verify_pieces(check, manifest, ids, ref_logits):
    """Prefill of the prompt, then one decode step, as llmc's runner does."""
    c = manifest["config"]
    S, L = manifest["seq_length"], manifest["max_input_length"]
    prompt = ids["prompt"][:L]
    n = len(prompt)
    if n < len(ids["prompt"]):  # the references need the whole prompt
        ref_logits = None
    padded = np.zeros((1, L), np.int32)
    padded[0, :n] = prompt
    (hidden,) = check.run("embedding.onnx", input_ids=padded)
    positions = np.arange(L, dtype=np.int32)[None]
    mask = np.triu(np.full((L, L), MASKED, np.float32), 1)[None]
    cache_shape = (1, S, c["num_key_value_heads"], c["head_dim"])
    caches = []
    for i in range(c["num_hidden_layers"]):
        hidden, k, v = check.run(f"block_{i}.onnx", hidden=hidden,
                                 position_ids=positions, mask=mask)
        cache_k, cache_v = np.zeros(cache_shape, np.float32), np.zeros(
            cache_shape, np.float32)
        cache_k[:, :n], cache_v[:, :n] = k[:, :n], v[:, :n]
        caches.append((cache_k, cache_v))
    (logits,) = check.run("lm_head.onnx", hidden=np.ascontiguousarray(
        hidden[:, n - 1]))
    if ref_logits is not None:
        compare_refs("prefill logits", logits[0], ref_logits[0])

    token = np.array([[ids["generated"][0]]], np.int32)
    (hidden,) = check.run("embedding_cache.onnx", input_ids=token)
    mask = np.full((1, 1, S + 1), MASKED, np.float32)
    mask[..., :n] = 0
    mask[..., S] = 0
    for i, (cache_k, cache_v) in enumerate(caches):
        hidden, _, _ = check.run(f"block_cache_{i}.onnx", hidden=hidden,
                                 position_ids=np.array([[n]], np.int32),
                                 mask=mask, history_k=cache_k,
                                 history_v=cache_v)
    (logits,) = check.run("lm_head.onnx", hidden=np.ascontiguousarray(
        hidden[:, 0]))
    if ref_logits is not None:
        compare_refs("decode logits", logits[0], ref_logits[1])


def verify_decoder(check, ids, ref_logits):
    """The prompt, then the prompt and a generated token: two lengths of T."""
    for extra in (0, 1):
        tokens = np.array([ids["prompt"] + ids["generated"][:extra]])
        (logits,) = check.run("decoder.onnx", input_ids=tokens,
                              position_ids=np.arange(tokens.shape[1])[None])
        if ref_logits is not None:
            compare_refs(f"T={tokens.shape[1]} last logits", logits[0, -1],
                         ref_logits[extra])


class MergedReference(nn.Module):
    """The torch side of a merged decoder: the cache decoder, whatever
    use_cache_branch (the last input) says."""

    def __init__(self, decoder):
        super().__init__()
        self.decoder = decoder

    def forward(self, *inputs):
        return self.decoder(*inputs[:-1])


def verify_decoder_cache(check, lm, ids, ref_logits, merged=False):
    """The prompt against an empty cache, then the first generated token
    against the prompt's present cache, as a runtime with optimum's I/O
    runs it; a merged decoder takes its branch without and then with a
    past."""
    c = lm.config
    n = len(ids["prompt"])
    empty = np.zeros((1, c.num_key_value_heads, 0, c.head_dim), np.float32)
    feeds = {"input_ids": np.array([ids["prompt"]], np.int64),
             "attention_mask": np.ones((1, n), np.int64),
             "position_ids": np.arange(n)[None]}
    feeds.update((name, empty) for name in cache_names(lm, "past_key_values"))
    if merged:
        feeds["use_cache_branch"] = np.array([False])
    logits, *presents = check.run("decoder.onnx", **feeds)
    if ref_logits is not None:
        compare_refs(f"P=0 T={n} last logits", logits[0, -1], ref_logits[0])
    feeds = {"input_ids": np.array([ids["generated"][:1]], np.int64),
             "attention_mask": np.ones((1, n + 1), np.int64),
             "position_ids": np.array([[n]])}
    feeds.update(zip(cache_names(lm, "past_key_values"), presents))
    if merged:
        feeds["use_cache_branch"] = np.array([True])
    logits, *_ = check.run("decoder.onnx", **feeds)
    if ref_logits is not None:
        compare_refs(f"P={n} T=1 logits", logits[0, -1], ref_logits[1])


def verify(args):
    with open(os.path.join(args.verify, "manifest.json")) as f:
        manifest = json.load(f)
    model_dir = args.model or manifest["source"]
    lm = load_model(model_dir, manifest["seq_length"],
                    manifest.get("rotary", "tables"))
    refs = args.refs or default_refs(model_dir)
    if refs:
        ids, ref_logits = load_refs(refs)
    else:
        ids, ref_logits = {"prompt": list(range(1, 13)), "generated": [1]}, None
    if manifest["layout"] == "pieces":
        specs = piece_specs(lm, manifest["seq_length"],
                            manifest["max_input_length"])
        check = Verifier(args.verify, specs)
        verify_pieces(check, manifest, ids, ref_logits)
    elif manifest.get("cache_io"):
        specs = decoder_specs(lm, 1, cache_io=True)
        merged = manifest.get("merged", False)
        if merged:
            name, module, inputs, outputs, dynamic = specs[0]
            specs = [(name, MergedReference(module), inputs, outputs,
                      dynamic)]
        check = Verifier(args.verify, specs)
        verify_decoder_cache(check, lm, ids, ref_logits, merged)
    else:
        check = Verifier(args.verify, decoder_specs(lm, 1))
        verify_decoder(check, ids, ref_logits)
    print(f"ok: {len(manifest['files'])} files pass onnx.checker and match "
          f"torch, max |d| {check.worst:.2e}")
    print_ops(args.verify, manifest["files"])


def print_ops(directory, files):
    """The op types of each kind of file (block_0, block_1... are one kind),
    which are the ops an importer of the layout needs."""
    kinds = {}
    for name in files:
        model = onnx.load(os.path.join(directory, name),
                          load_external_data=False)
        ops = Counter(n.op_type for n in model.graph.node)
        kinds.setdefault(re.sub(r"_\d+\.onnx$", "_<i>.onnx", name), ops)
    for kind, ops in kinds.items():
        print(f"  {kind}: " + ", ".join(f"{op} {n}"
                                         for op, n in sorted(ops.items())))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-m", "--model", help="Hugging Face checkpoint directory")
    p.add_argument("-o", "--output", help="directory for the ONNX files")
    p.add_argument("--layout", choices=["pieces", "decoder"])
    p.add_argument("--opset", type=int, default=17, choices=range(13, 18))
    p.add_argument("-s", "--seq-length", type=int, default=512,
                   help="S: KV-cache capacity and rotary table rows")
    p.add_argument("--max-input-length", type=int, default=128,
                   help="L: tokens of one prefill block")
    p.add_argument("--tokens", type=int, default=8,
                   help="T of the decoder's example input (T stays dynamic)")
    p.add_argument("--rotary", choices=["tables", "in-graph"],
                   default="tables",
                   help="cos/sin gathered from precomputed tables, or "
                   "computed in the graph as Hugging Face's code does")
    p.add_argument("--cache-io", action="store_true",
                   help="decoder: optimum's past_key_values inputs and "
                   "present outputs")
    p.add_argument("--merged", action="store_true",
                   help="with --cache-io: optimum's merged decoder, an If on "
                   "use_cache_branch over the traces with and without a "
                   "past")
    p.add_argument("--external-data", action="store_true",
                   help="store initializers in FILE.onnx.data")
    p.add_argument("--no-constant-folding", action="store_true",
                   help="keep Transpose nodes so every weight keeps its "
                   "checkpoint name")
    p.add_argument("--check-refs", nargs="?", const="auto", metavar="JSON",
                   help="compare the torch model with reference logits "
                   "(default: refdata's <model>.f32.short.json)")
    p.add_argument("--verify", metavar="DIR",
                   help="check and evaluate an exported directory")
    p.add_argument("--refs", help="reference ids/logits for --verify")
    args = p.parse_args()
    if args.verify:
        verify(args)
    elif args.check_refs:
        if not args.model:
            p.error("--check-refs needs -m")
        check_refs(args)
    else:
        if not (args.model and args.output and args.layout):
            p.error("exporting needs -m, -o and --layout")
        if args.cache_io and args.layout != "decoder":
            p.error("--cache-io needs --layout decoder")
        if args.merged and not args.cache_io:
            p.error("--merged needs --cache-io")
        if args.max_input_length > args.seq_length:
            p.error("--max-input-length exceeds --seq-length")
        export(args)


if __name__ == "__main__":
    main()
