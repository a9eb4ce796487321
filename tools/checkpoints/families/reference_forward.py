#!/usr/bin/python3
"""A float64 numpy port of Hugging Face's Llama, Mistral, Phi-3, InternLM2, Qwen2 and Gemma 2 / 3.

  reference_forward.py run MODEL_DIR --ids CASE.json -o OUT_PREFIX
      [--no-window | --window-all-layers] [--no-rope-scaling]
      [--longrope-factors {short,long}] [--no-attn-softcap]
      [--no-final-softcap] [--no-local-rope-base]
      [--rope-scaling-all-layers]
  reference_forward.py compare PREFIX_A PREFIX_B [--tolerance 1e-5]
      [--expect-change MIN]
  reference_forward.py margins PREFIX... [--min-gap 3e-3]

`run` reads MODEL_DIR's config.json and model.safetensors (F32, F16 or BF16,
HF tensor names) and does what transformers' LlamaForCausalLM,
MistralForCausalLM, Phi3ForCausalLM, Qwen2ForCausalLM, Gemma2ForCausalLM
and Gemma3ForCausalLM, and InternLM2's remote modeling_internlm2.py
InternLM2ForCausalLM, do, in float64 throughout:
  - RMSNorm: x / sqrt(mean(x^2) + eps) * weight (Gemma's: * (1 + weight));
  - the projections: separate q/k/v_proj (Llama, Mistral; Qwen2's with
    their biases, the only biases accepted); Phi-3's fused
    qkv_proj (Q, K, then V columns of its output) and gate_up_proj (gate,
    then up); InternLM2's wqkv, whose output is (kv_heads, groups + 2,
    head_dim): per KV head its `groups` query heads, its key head and its
    value head (modeling_internlm2.py's rearrange), w1 (gate), w3 (up), w2;
  - rotate_half RoPE with inv_freq = 1 / theta^(2i/d), rescaled as
    transformers' rope init functions do: "llama3"
    (_compute_llama3_parameters), and "longrope" (_compute_longrope_
    parameters, Phi-3: inv_freq / short_factor while the sequence is at
    most original_max_position_embeddings long, / long_factor beyond, as
    the rotary embedding's dynamic update picks them; cos and sin times
    sqrt(1 + ln(max_position_embeddings / original) / ln(original))); no
    "linear" (_compute_linear_scaling_rope_parameters: inv_freq / factor);
    no other scaling is accepted. --no-rope-scaling ignores the config's
    rope_scaling; --longrope-factors forces the short or the long factors;
    Gemma 3's sliding layers take rope_local_base_freq as theta and no
    scaling (its rotary_emb_local), the others rope_theta and the config's
    rope_scaling: --no-local-rope-base gives the sliding layers rope_theta
    too, --rope-scaling-all-layers the rope_scaling too;
  - grouped-query attention with the causal mask and, in a layer with a
    sliding window W, the window: a query at position p sees the keys at
    positions p - W < j <= p, W positions including itself (transformers'
    sliding_window_overlay). Which layers slide: those whose entry in the
    config's layer_types is "sliding_attention" (the others must be
    "full_attention"); without layer_types, for Qwen2 the layers i >=
    max_window_layers when use_sliding_window is true (Qwen2Config's
    default layer_types), and for the other types every layer when the
    config has a sliding_window (Mistral, Phi-3), for Gemma 2 layers 0, 2,
    4, ..., for Gemma 3 the layers i with (i + 1) % sliding_window_pattern
    != 0. --no-window runs full causal attention in every layer instead,
    --window-all-layers the window in every layer;
  - the SiLU-gated MLP, the final norm and lm_head (or the tied embedding).
Gemma 2 and Gemma 3 (Gemma2Model, Gemma3TextModel) differ: the embeddings
are scaled by sqrt(hidden_size); a layer is h = x + post_attention_
layernorm(attn(input_layernorm(x))), then h + post_feedforward_layernorm(
mlp(pre_feedforward_layernorm(h))); the MLP is down(gelu_tanh(gate(x)) *
up(x)) (hidden_activation gelu_pytorch_tanh); the attention scale is
query_pre_attn_scalar^-0.5; Gemma 3 applies q_norm and k_norm to each
head's Q and K before RoPE; Gemma 2 softcaps the attention scores (cap *
tanh(scores / cap), attn_logit_softcapping, before the mask) and the logits
(final_logit_softcapping), which --no-attn-softcap and --no-final-softcap
leave out.
It then generates greedily (argmax of the float64 logits, the lowest id on a
tie) under the protocol of ../shared/refdata's references: CASE.json is one
of those references (`{"prompt", "generated", "turns": [{"input_ids",
"generated"}, ...]}`), whose turns' input ids are fed in turn, each appended
after the whole history (every earlier input and generated token), and as
many tokens generated after each turn as the reference generated there. It
writes OUT_PREFIX.npy (float32 [generated tokens, vocab]: row i the logits
generated token i was chosen from) and OUT_PREFIX.json in the references'
format. Every step recomputes the whole sequence: slow, but with no cache to
get wrong.

`compare` prints, for two such outputs, max |delta logit| (over all rows,
and over the first row, which both runs compute from the same history) and
whether the prompts and greedy ids agree; it exits 1 when they do not, or
when the difference exceeds --tolerance. With --expect-change MIN it checks
the opposite, that two runs differ: the first row by more than MIN.

`margins` checks that references are safe for greedy comparison: in every
row the top two logits are more than --min-gap apart (so float32 noise
cannot decide a greedy id), and no generated id is a special token (ids 0-2
of the shared tokenizer: a runtime that stops at EOS still generates every
token). It prints the smallest gap of each and exits 1 if one fails.

Python 3 and numpy only. tools/checkpoints/families/make_family_refs.sh runs
them to make and check tests/families/refs.
"""
import os

# One BLAS thread: the same sums in the same order on every run.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import math
import sys

import numpy as np

# tools/bench/llamacpp/checkpoint_io.py, for reading safetensors.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                "..", "..", "bench", "llamacpp"))
from checkpoint_io import SafetensorsCheckpoint  # noqa: E402


def log(message):
    print(f"reference_forward: {message}", file=sys.stderr, flush=True)


def rope_parameters(config, head_dim, seq_len, longrope_factors=None):
    """(inv_freq, attention_scaling) of transformers' rope init functions
    for a sequence of seq_len positions: "default", "llama3" and
    "longrope"."""
    base = config.get("rope_theta", 10000.0)
    inv_freq = 1.0 / base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    rope = config.get("rope_scaling") or {}
    rope_type = rope.get("rope_type", rope.get("type", "default"))
    if rope_type == "default":
        return inv_freq, 1.0
    if rope_type == "longrope":
        # _compute_longrope_parameters with Phi-3's config: the factor is
        # max_position_embeddings / original_max_position_embeddings. The
        # rotary embedding's longrope update takes the long factors once
        # max(position_ids) + 1 exceeds the original context.
        original = config.get("original_max_position_embeddings",
                              config["max_position_embeddings"])
        factor = config["max_position_embeddings"] / original
        attention_factor = rope.get("attention_factor")
        if attention_factor is None:
            attention_factor = (1.0 if factor <= 1.0 else
                                math.sqrt(1 + math.log(factor) / math.log(original)))
        if longrope_factors is None:
            longrope_factors = "long" if seq_len > original else "short"
        ext_factors = np.asarray(rope[longrope_factors + "_factor"], dtype=np.float64)
        if ext_factors.shape != inv_freq.shape:
            raise SystemExit(f"reference_forward: {longrope_factors}_factor has "
                             f"{ext_factors.size} values, not {inv_freq.size}")
        return 1.0 / (ext_factors * base ** (np.arange(0, head_dim, 2) / head_dim)), attention_factor
    if rope_type == "linear":
        # _compute_linear_scaling_rope_parameters.
        return inv_freq / rope["factor"], 1.0
    if rope_type != "llama3":
        raise SystemExit(f"reference_forward: rope_type {rope_type!r} is not supported")
    # _compute_llama3_parameters (attention_factor stays 1).
    factor = rope["factor"]
    low_freq_factor = rope["low_freq_factor"]
    high_freq_factor = rope["high_freq_factor"]
    old_context_len = rope["original_max_position_embeddings"]
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama), 1.0


# Each model type's HF tensor names: the embedding, the final norm and the
# output, then per layer (model.layers.N.) the two norms (the Gemmas' first
# two of four: GEMMA_NORMS are the other two).
NAMES = {
    "llama": ("model.embed_tokens.weight", "model.norm.weight", "lm_head.weight",
              "input_layernorm.weight", "post_attention_layernorm.weight"),
    "internlm2": ("model.tok_embeddings.weight", "model.norm.weight", "output.weight",
                  "attention_norm.weight", "ffn_norm.weight"),
}
NAMES["mistral"] = NAMES["phi3"] = NAMES["qwen2"] = NAMES["llama"]
NAMES["gemma2"] = NAMES["gemma3_text"] = NAMES["llama"]
GEMMA = ("gemma2", "gemma3_text")
GEMMA_NORMS = ("pre_feedforward_layernorm.weight", "post_feedforward_layernorm.weight")

# The biases a model type has: Qwen2's attention has Q, K and V biases (and
# none on o_proj).
BIASES = {"qwen2": ("self_attn.q_proj.bias", "self_attn.k_proj.bias", "self_attn.v_proj.bias")}


def layer_windows(config):
    """The sliding window of each layer, None for full attention: from
    layer_types if the config has it, else as transformers' configs default
    it (Qwen2Config: the layers from max_window_layers on, when
    use_sliding_window; Mistral and Phi-3: every layer)."""
    layers = config["num_hidden_layers"]
    window = config.get("sliding_window")
    layer_types = config.get("layer_types")
    if layer_types is not None:
        if len(layer_types) != layers:
            raise SystemExit(f"reference_forward: layer_types has {len(layer_types)} "
                             f"entries for {layers} layers")
        unknown = sorted(set(layer_types) - {"full_attention", "sliding_attention"})
        if unknown:
            raise SystemExit(f"reference_forward: layer type {unknown[0]!r} is not supported")
        if "sliding_attention" in layer_types and not window:
            raise SystemExit("reference_forward: sliding_attention layers without a sliding_window")
        return [window if kind == "sliding_attention" else None for kind in layer_types]
    if config.get("model_type") == "qwen2":
        if not config.get("use_sliding_window", False):
            return [None] * layers
        first = config.get("max_window_layers", 28)
        return [window if window and layer >= first else None for layer in range(layers)]
    if config.get("model_type") in GEMMA:
        # Gemma2Config: layer i slides when (i + 1) % 2; Gemma3TextConfig:
        # when (i + 1) % sliding_window_pattern (6 by default).
        pattern = 2 if config["model_type"] == "gemma2" else config.get("sliding_window_pattern", 6)
        return [window if window and (layer + 1) % pattern else None for layer in range(layers)]
    return [window or None] * layers


def gelu_tanh(x):
    """transformers' gelu_pytorch_tanh."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


class Model:
    def __init__(self, directory, window=True, rope_scaling=True, longrope_factors=None,
                 window_all_layers=False, attn_softcap=True, final_softcap=True,
                 local_rope_base=True, rope_scaling_all_layers=False):
        with open(os.path.join(directory, "config.json")) as f:
            self.config = config = json.load(f)
        self.model_type = config.get("model_type")
        if self.model_type not in NAMES:
            raise SystemExit(f"reference_forward: model_type {self.model_type!r} is not "
                             f"one of {', '.join(sorted(NAMES))}")
        self.gemma = self.model_type in GEMMA
        if self.gemma:
            # Gemma2MLP and Gemma3MLP: ACT2FN[config.hidden_activation].
            if config.get("hidden_activation", "gelu_pytorch_tanh") != "gelu_pytorch_tanh":
                raise SystemExit("reference_forward: only hidden_activation gelu_pytorch_tanh "
                                 "is supported")
        elif config.get("hidden_act", "silu") != "silu":
            raise SystemExit("reference_forward: only hidden_act silu is supported")
        if config.get("partial_rotary_factor", 1.0) != 1.0:
            raise SystemExit("reference_forward: only partial_rotary_factor 1 is supported")
        if not rope_scaling:
            self.config = config = dict(config, rope_scaling=None)
        checkpoint = SafetensorsCheckpoint(directory, "reference_forward")
        self.weights = {name: checkpoint.read(name).astype(np.float64)
                        for name in checkpoint.entries}
        allowed = BIASES.get(self.model_type, ())
        biases = [name for name in self.weights if name.endswith(".bias")
                  and not (name.startswith("model.layers.")
                           and name.split(".", 3)[3] in allowed)]
        if biases:
            raise SystemExit(f"reference_forward: biases are not supported: {biases[0]}, ...")
        self.heads = config["num_attention_heads"]
        self.kv_heads = config.get("num_key_value_heads", self.heads)
        self.head_dim = config.get("head_dim") or config["hidden_size"] // self.heads
        self.eps = config["rms_norm_eps"]
        self.windows = layer_windows(config)
        if not window:
            self.windows = [None] * len(self.windows)
        elif window_all_layers:
            if not config.get("sliding_window"):
                raise SystemExit("reference_forward: --window-all-layers without a sliding_window")
            self.windows = [config["sliding_window"]] * len(self.windows)
        self.longrope_factors = longrope_factors
        (self.embed_name, self.norm_name, lm_head_name,
         self.attention_norm_name, self.ffn_norm_name) = NAMES[self.model_type]
        self.lm_head = self.weights.get(lm_head_name)
        if self.lm_head is None or config.get("tie_word_embeddings", False):
            self.lm_head = self.weights[self.embed_name]
        self.attn_softcap = config.get("attn_logit_softcapping") if attn_softcap else None
        self.final_softcap = config.get("final_logit_softcapping") if final_softcap else None
        if not self.gemma and (self.attn_softcap or self.final_softcap):
            raise SystemExit("reference_forward: softcapping is only supported for Gemma")
        # Each layer's RoPE: theta and rope_scaling (Gemma 3's sliding layers:
        # rope_local_base_freq, no scaling).
        self.ropes = ([(config.get("rope_theta", 10000.0), config.get("rope_scaling"))]
                      * len(self.windows))
        if "rope_local_base_freq" in config:
            sliding = layer_windows(config)
            local = (config["rope_local_base_freq"] if local_rope_base
                     else config.get("rope_theta", 10000.0),
                     config.get("rope_scaling") if rope_scaling_all_layers else None)
            self.ropes = [local if sliding[layer] else rope
                          for layer, rope in enumerate(self.ropes)]
        elif not local_rope_base or rope_scaling_all_layers:
            raise SystemExit("reference_forward: --no-local-rope-base and "
                             "--rope-scaling-all-layers need a rope_local_base_freq")

    def rms_norm(self, x, weight):
        if self.gemma:
            # Gemma2RMSNorm / Gemma3RMSNorm: * (1 + weight).
            return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * (1.0 + weight)
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * weight

    def rope(self, x, cos, sin):
        """x [heads, T, head_dim]: x * cos + rotate_half(x) * sin."""
        half = self.head_dim // 2
        rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
        return x * cos + rotated * sin

    @staticmethod
    def mask(length, window):
        """True where query i may attend to key j, with a sliding window of
        `window` positions, or none if it is None."""
        query = np.arange(length)[:, None]
        key = np.arange(length)[None, :]
        visible = key <= query
        if window:
            visible &= key > query - window
        return visible

    def qkv(self, x, prefix):
        """Q [T, heads, head_dim], K and V [T, kv_heads, head_dim] of layer
        `prefix` (model.layers.N.)."""
        w = self.weights
        length = x.shape[0]
        q_size = self.heads * self.head_dim
        kv_size = self.kv_heads * self.head_dim
        if self.model_type == "phi3":
            # Phi3Attention: qkv_proj's output holds Q, then K, then V.
            qkv = x @ w[prefix + "self_attn.qkv_proj.weight"].T
            q, k, v = qkv[:, :q_size], qkv[:, q_size:q_size + kv_size], qkv[:, q_size + kv_size:]
        elif self.model_type == "internlm2":
            # InternLM2Attention: "b q (h gs d) -> b q h gs d" with gs =
            # groups + 2; queries [..., :groups, :] ("b q h gs d -> b q (h
            # gs) d"), key [..., -2, :], value [..., -1, :].
            groups = self.heads // self.kv_heads
            qkv = (x @ w[prefix + "attention.wqkv.weight"].T).reshape(
                length, self.kv_heads, groups + 2, self.head_dim)
            q = qkv[:, :, :groups, :].reshape(length, q_size)
            k, v = qkv[:, :, -2, :], qkv[:, :, -1, :]
        else:
            q = x @ w[prefix + "self_attn.q_proj.weight"].T
            k = x @ w[prefix + "self_attn.k_proj.weight"].T
            v = x @ w[prefix + "self_attn.v_proj.weight"].T
            if self.model_type == "qwen2":
                # Qwen2Attention: q/k/v_proj are nn.Linear with bias=True.
                q = q + w[prefix + "self_attn.q_proj.bias"]
                k = k + w[prefix + "self_attn.k_proj.bias"]
                v = v + w[prefix + "self_attn.v_proj.bias"]
        return (q.reshape(length, self.heads, self.head_dim),
                k.reshape(length, self.kv_heads, self.head_dim),
                v.reshape(length, self.kv_heads, self.head_dim))

    def attention(self, x, prefix, cos, sin, visible):
        w = self.weights
        length = x.shape[0]
        q, k, v = self.qkv(x, prefix)
        if self.model_type == "gemma3_text":
            # Gemma3Attention: q_norm and k_norm over each head, before RoPE.
            q = self.rms_norm(q, w[prefix + "self_attn.q_norm.weight"])
            k = self.rms_norm(k, w[prefix + "self_attn.k_norm.weight"])
        q = self.rope(q.transpose(1, 0, 2), cos, sin)
        k = self.rope(k.transpose(1, 0, 2), cos, sin)
        v = v.transpose(1, 0, 2)
        # repeat_kv: query head h reads KV head h // (heads / kv_heads).
        group = self.heads // self.kv_heads
        k = np.repeat(k, group, axis=0)
        v = np.repeat(v, group, axis=0)
        if self.gemma:
            scores = q @ k.transpose(0, 2, 1) * self.config["query_pre_attn_scalar"] ** -0.5
            if self.attn_softcap:
                scores = self.attn_softcap * np.tanh(scores / self.attn_softcap)
        else:
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(self.head_dim)
        scores = np.where(visible, scores, -np.inf)
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        out = (probs @ v).transpose(1, 0, 2).reshape(length, self.heads * self.head_dim)
        output = "attention.wo.weight" if self.model_type == "internlm2" else "self_attn.o_proj.weight"
        return out @ w[prefix + output].T

    def mlp(self, x, prefix):
        w = self.weights
        if self.model_type == "phi3":
            # Phi3MLP: gate_up_proj's output chunked in two, gate first.
            gate, up = np.split(x @ w[prefix + "mlp.gate_up_proj.weight"].T, 2, axis=-1)
            down = w[prefix + "mlp.down_proj.weight"]
        elif self.model_type == "internlm2":
            # InternLM2MLP: w2(silu(w1(x)) * w3(x)).
            gate = x @ w[prefix + "feed_forward.w1.weight"].T
            up = x @ w[prefix + "feed_forward.w3.weight"].T
            down = w[prefix + "feed_forward.w2.weight"]
        else:
            gate = x @ w[prefix + "mlp.gate_proj.weight"].T
            up = x @ w[prefix + "mlp.up_proj.weight"].T
            down = w[prefix + "mlp.down_proj.weight"]
        if self.gemma:
            return (gelu_tanh(gate) * up) @ down.T
        return (gate / (1.0 + np.exp(-gate)) * up) @ down.T

    def last_logits(self, ids):
        """The logits after the last of `ids` (positions 0..len-1)."""
        w = self.weights
        length = len(ids)
        rotations = {}
        for theta, rope_scaling in self.ropes:
            key = (theta, json.dumps(rope_scaling))
            if key in rotations:
                continue
            inv_freq, scaling = rope_parameters(
                dict(self.config, rope_theta=theta, rope_scaling=rope_scaling),
                self.head_dim, length, self.longrope_factors)
            angles = np.arange(length, dtype=np.float64)[:, None] * inv_freq[None, :]
            angles = np.concatenate([angles, angles], axis=-1)
            cos, sin = np.cos(angles), np.sin(angles)
            if scaling != 1.0:
                cos, sin = cos * scaling, sin * scaling
            rotations[key] = cos, sin
        masks = {window: self.mask(length, window) for window in set(self.windows)}
        h = w[self.embed_name][np.asarray(ids)]
        if self.gemma:
            # Gemma2Model / Gemma3TextScaledWordEmbedding: * sqrt(hidden_size).
            h = h * math.sqrt(self.config["hidden_size"])
        for layer in range(self.config["num_hidden_layers"]):
            prefix = f"model.layers.{layer}."
            theta, rope_scaling = self.ropes[layer]
            cos, sin = rotations[(theta, json.dumps(rope_scaling))]
            x = self.rms_norm(h, w[prefix + self.attention_norm_name])
            if self.gemma:
                # Gemma2DecoderLayer / Gemma3DecoderLayer: each sublayer's
                # output normed before the residual add.
                x = self.attention(x, prefix, cos, sin, masks[self.windows[layer]])
                h = h + self.rms_norm(x, w[prefix + self.ffn_norm_name])
                x = self.rms_norm(h, w[prefix + GEMMA_NORMS[0]])
                h = h + self.rms_norm(self.mlp(x, prefix), w[prefix + GEMMA_NORMS[1]])
                continue
            h = h + self.attention(x, prefix, cos, sin, masks[self.windows[layer]])
            x = self.rms_norm(h, w[prefix + self.ffn_norm_name])
            h = h + self.mlp(x, prefix)
        h = self.rms_norm(h[-1], w[self.norm_name])
        logits = self.lm_head @ h
        if self.final_softcap:
            logits = self.final_softcap * np.tanh(logits / self.final_softcap)
        return logits


def read_turns(path):
    """(input ids, number of generated tokens) of each turn of a reference."""
    with open(path) as f:
        case = json.load(f)
    turns = case.get("turns") or [{"input_ids": case["prompt"],
                                   "generated": case["generated"]}]
    return [(turn["input_ids"], len(turn["generated"])) for turn in turns]


def run(args):
    model = Model(args.model, window=not args.no_window,
                  rope_scaling=not args.no_rope_scaling,
                  longrope_factors=args.longrope_factors,
                  window_all_layers=args.window_all_layers,
                  attn_softcap=not args.no_attn_softcap,
                  final_softcap=not args.no_final_softcap,
                  local_rope_base=not args.no_local_rope_base,
                  rope_scaling_all_layers=args.rope_scaling_all_layers)
    history, rows, turns = [], [], []
    for input_ids, count in read_turns(args.ids):
        history += input_ids
        generated = []
        for _ in range(count):
            logits = model.last_logits(history)
            token = int(np.argmax(logits))
            rows.append(logits.astype(np.float32))
            generated.append(token)
            history.append(token)
        turns.append({"input_ids": list(input_ids), "generated": generated})
    result = {"prompt": [t for turn in turns for t in turn["input_ids"]],
              "generated": [t for turn in turns for t in turn["generated"]],
              "turns": turns}
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    np.save(args.output + ".npy", np.stack(rows))
    with open(args.output + ".json", "w") as f:
        f.write(json.dumps(result))
    windows = [window or "none" for window in model.windows]
    window = windows[0] if len(set(windows)) == 1 else "per layer " + ", ".join(map(str, windows))
    rope = model.config.get("rope_scaling") or {}
    rope = rope.get("rope_type", rope.get("type", "none"))
    if rope == "longrope" and args.longrope_factors:
        rope += f", {args.longrope_factors} factors"
    if len(set(map(str, model.ropes))) > 1:
        rope += " per layer " + ", ".join(
            f"theta {theta:g} " + (scaling or {}).get("rope_type", "none")
            for theta, scaling in model.ropes)
    extra = ""
    if model.gemma:
        extra = f", softcaps {model.attn_softcap or 'none'} / {model.final_softcap or 'none'}"
    log(f"wrote {args.output}.{{npy,json}}: {len(rows)} tokens "
        f"(window {window}, rope scaling {rope}{extra})")


def compare(args):
    def load(prefix):
        with open(prefix + ".json") as f:
            return json.load(f), np.load(prefix + ".npy")
    (ids_a, logits_a), (ids_b, logits_b) = load(args.a), load(args.b)
    same_prompt = ids_a["prompt"] == ids_b["prompt"]
    same_ids = ids_a["generated"] == ids_b["generated"]
    if logits_a.shape != logits_b.shape:
        print(f"{args.a} vs {args.b}: shapes {logits_a.shape} and {logits_b.shape} differ")
        return 1
    deltas = np.max(np.abs(logits_a.astype(np.float64) - logits_b), axis=1)
    delta = float(deltas.max())
    first = next((i for i, (x, y) in enumerate(zip(ids_a["generated"], ids_b["generated"]))
                  if x != y), None)
    print(f"{os.path.basename(args.a)} vs {os.path.basename(args.b)}: "
          f"max |dlogit| {delta:.3g} (first token {deltas[0]:.3g}), greedy ids "
          + ("agree" if same_ids else f"differ from token {first}")
          + ("" if same_prompt else ", PROMPTS DIFFER"))
    if not same_prompt:
        return 1
    if args.expect_change is not None:
        # The first token's logits come from the same history in both runs.
        if deltas[0] <= args.expect_change:
            print(f"  the first token's logits differ by {deltas[0]:.3g}, "
                  f"not more than {args.expect_change:g}")
            return 1
        return 0
    if not same_ids:
        return 1
    if args.tolerance is not None and delta > args.tolerance:
        print(f"  exceeds the tolerance {args.tolerance:g}")
        return 1
    return 0


def margins(args):
    failed = 0
    for prefix in args.prefixes:
        with open(prefix + ".json") as f:
            generated = json.load(f)["generated"]
        top2 = -np.partition(-np.load(prefix + ".npy").astype(np.float64), 1, axis=1)[:, :2]
        gaps = top2[:, 0] - top2[:, 1]
        special = sorted({t for t in generated if t <= args.last_special})
        ok = gaps.min() > args.min_gap and not special
        print(f"{os.path.basename(prefix)}: smallest top-2 gap {gaps.min():.3g}"
              f" (row {int(gaps.argmin())})"
              + (f", special ids generated: {special}" if special else "")
              + ("" if ok else "  FAILS"))
        failed |= not ok
    return int(failed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="Generate and write the logits")
    run_parser.add_argument("model", help="Hugging Face checkpoint directory")
    run_parser.add_argument("--ids", required=True,
                            help="A reference .json whose turns' input ids to feed")
    run_parser.add_argument("-o", "--output", required=True,
                            help="Prefix of the .npy and .json to write")
    windows = run_parser.add_mutually_exclusive_group()
    windows.add_argument("--no-window", action="store_true",
                         help="Ignore the config's sliding_window: full attention in every layer")
    windows.add_argument("--window-all-layers", action="store_true",
                         help="The config's sliding_window in every layer, whatever "
                         "layer_types or max_window_layers say")
    run_parser.add_argument("--no-rope-scaling", action="store_true",
                            help="Ignore the config's rope_scaling (plain RoPE)")
    run_parser.add_argument("--longrope-factors", choices=("short", "long"),
                            help="LongRoPE: use these factors whatever the length")
    run_parser.add_argument("--no-attn-softcap", action="store_true",
                            help="Gemma 2: ignore the config's attn_logit_softcapping")
    run_parser.add_argument("--no-final-softcap", action="store_true",
                            help="Gemma 2: ignore the config's final_logit_softcapping")
    run_parser.add_argument("--no-local-rope-base", action="store_true",
                            help="Gemma 3: rope_theta in the sliding layers too, "
                            "not rope_local_base_freq")
    run_parser.add_argument("--rope-scaling-all-layers", action="store_true",
                            help="Gemma 3: the config's rope_scaling in the sliding "
                            "layers too")
    compare_parser = commands.add_parser("compare", help="Compare two outputs")
    compare_parser.add_argument("a", help="Prefix of the first .npy and .json")
    compare_parser.add_argument("b", help="Prefix of the second .npy and .json")
    compare_parser.add_argument("--tolerance", type=float,
                                help="Fail when max |dlogit| exceeds this")
    compare_parser.add_argument("--expect-change", type=float, metavar="MIN",
                                help="The outputs should differ: fail unless the "
                                "first token's logits differ by more than MIN "
                                "(then greedy ids may differ)")
    margins_parser = commands.add_parser("margins", help="Check references' greedy margins")
    margins_parser.add_argument("prefixes", nargs="+", metavar="PREFIX",
                                help="Prefix of a .npy and .json")
    margins_parser.add_argument("--min-gap", type=float, default=3e-3,
                                help="Smallest allowed gap between the top two logits")
    margins_parser.add_argument("--last-special", type=int, default=2,
                                help="Generated ids up to this one fail (special tokens)")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
        return 0
    if args.command == "margins":
        return margins(args)
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
