#!/usr/bin/python3
"""A float64 numpy port of Hugging Face's Llama and Mistral forward passes.

  reference_forward.py run MODEL_DIR --ids CASE.json -o OUT_PREFIX [--no-window]
  reference_forward.py compare PREFIX_A PREFIX_B [--tolerance 1e-5]

`run` reads MODEL_DIR's config.json and model.safetensors (F32, F16 or BF16,
HF tensor names) and does what transformers' LlamaForCausalLM and
MistralForCausalLM do, in float64 throughout:
  - RMSNorm: x / sqrt(mean(x^2) + eps) * weight;
  - rotate_half RoPE with inv_freq = 1 / theta^(2i/d), rescaled for
    "rope_type": "llama3" as transformers' _compute_llama3_parameters does
    (no other rope scaling is accepted);
  - grouped-query attention with the causal mask and, for a config with a
    sliding_window W (Mistral), the window: a query at position p sees the
    keys at positions p - W < j <= p, W positions including itself
    (--no-window runs full causal attention instead);
  - the SiLU-gated MLP, the final norm and lm_head (or the tied embedding).
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

Python 3 and numpy only. tools/checkpoints/families/make_family_refs.sh runs
both to make and check tests/families/refs.
"""
import os

# One BLAS thread: the same sums in the same order on every run.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import math
import struct
import sys

import numpy as np


def log(message):
    print(f"reference_forward: {message}", file=sys.stderr, flush=True)


def read_safetensors(path):
    """Every tensor of a safetensors file, as float64 arrays."""
    dtypes = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}
    with open(path, "rb") as f:
        (header_size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_size))
        data = f.read()
    header.pop("__metadata__", None)
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] not in dtypes:
            raise SystemExit(f"reference_forward: {name}: unsupported dtype {entry['dtype']}")
        begin, end = entry["data_offsets"]
        values = np.frombuffer(data[begin:end], dtypes[entry["dtype"]])
        if entry["dtype"] == "BF16":
            values = (values.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = values.reshape(entry["shape"]).astype(np.float64)
    return tensors


def inverse_frequencies(config, head_dim):
    """transformers' rope init functions: "default" and "llama3"."""
    base = config.get("rope_theta", 10000.0)
    inv_freq = 1.0 / base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    rope = config.get("rope_scaling") or {}
    rope_type = rope.get("rope_type", rope.get("type", "default"))
    if rope_type == "default":
        return inv_freq
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
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


class Model:
    def __init__(self, directory, window=True):
        with open(os.path.join(directory, "config.json")) as f:
            self.config = config = json.load(f)
        if config.get("model_type") not in ("llama", "mistral"):
            raise SystemExit(f"reference_forward: model_type {config.get('model_type')!r} "
                             "is neither llama nor mistral")
        if config.get("hidden_act", "silu") != "silu":
            raise SystemExit("reference_forward: only hidden_act silu is supported")
        self.weights = read_safetensors(os.path.join(directory, "model.safetensors"))
        biases = [name for name in self.weights if name.endswith(".bias")]
        if biases:
            raise SystemExit(f"reference_forward: biases are not supported: {biases[0]}, ...")
        self.heads = config["num_attention_heads"]
        self.kv_heads = config.get("num_key_value_heads", self.heads)
        self.head_dim = config.get("head_dim") or config["hidden_size"] // self.heads
        self.eps = config["rms_norm_eps"]
        self.window = config.get("sliding_window") if window else None
        self.inv_freq = inverse_frequencies(config, self.head_dim)
        self.lm_head = self.weights.get("lm_head.weight")
        if self.lm_head is None or config.get("tie_word_embeddings", False):
            self.lm_head = self.weights["model.embed_tokens.weight"]

    def rms_norm(self, x, weight):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * weight

    def rope(self, x, cos, sin):
        """x [heads, T, head_dim]: x * cos + rotate_half(x) * sin."""
        half = self.head_dim // 2
        rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
        return x * cos + rotated * sin

    def mask(self, length):
        """True where query i may attend to key j."""
        query = np.arange(length)[:, None]
        key = np.arange(length)[None, :]
        visible = key <= query
        if self.window:
            visible &= key > query - self.window
        return visible

    def attention(self, x, prefix, cos, sin, visible):
        w = self.weights
        length = x.shape[0]
        q = (x @ w[prefix + "q_proj.weight"].T).reshape(length, self.heads, self.head_dim)
        k = (x @ w[prefix + "k_proj.weight"].T).reshape(length, self.kv_heads, self.head_dim)
        v = (x @ w[prefix + "v_proj.weight"].T).reshape(length, self.kv_heads, self.head_dim)
        q = self.rope(q.transpose(1, 0, 2), cos, sin)
        k = self.rope(k.transpose(1, 0, 2), cos, sin)
        v = v.transpose(1, 0, 2)
        # repeat_kv: query head h reads KV head h // (heads / kv_heads).
        group = self.heads // self.kv_heads
        k = np.repeat(k, group, axis=0)
        v = np.repeat(v, group, axis=0)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(self.head_dim)
        scores = np.where(visible, scores, -np.inf)
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        out = (probs @ v).transpose(1, 0, 2).reshape(length, self.heads * self.head_dim)
        return out @ w[prefix + "o_proj.weight"].T

    def mlp(self, x, prefix):
        w = self.weights
        gate = x @ w[prefix + "gate_proj.weight"].T
        up = x @ w[prefix + "up_proj.weight"].T
        return (gate / (1.0 + np.exp(-gate)) * up) @ w[prefix + "down_proj.weight"].T

    def last_logits(self, ids):
        """The logits after the last of `ids` (positions 0..len-1)."""
        w = self.weights
        length = len(ids)
        angles = np.arange(length, dtype=np.float64)[:, None] * self.inv_freq[None, :]
        angles = np.concatenate([angles, angles], axis=-1)
        cos, sin = np.cos(angles), np.sin(angles)
        visible = self.mask(length)
        h = w["model.embed_tokens.weight"][np.asarray(ids)]
        for layer in range(self.config["num_hidden_layers"]):
            prefix = f"model.layers.{layer}."
            x = self.rms_norm(h, w[prefix + "input_layernorm.weight"])
            h = h + self.attention(x, prefix + "self_attn.", cos, sin, visible)
            x = self.rms_norm(h, w[prefix + "post_attention_layernorm.weight"])
            h = h + self.mlp(x, prefix + "mlp.")
        h = self.rms_norm(h[-1], w["model.norm.weight"])
        return self.lm_head @ h


def read_turns(path):
    """(input ids, number of generated tokens) of each turn of a reference."""
    with open(path) as f:
        case = json.load(f)
    turns = case.get("turns") or [{"input_ids": case["prompt"],
                                   "generated": case["generated"]}]
    return [(turn["input_ids"], len(turn["generated"])) for turn in turns]


def run(args):
    model = Model(args.model, window=not args.no_window)
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
    window = model.window if model.window else "none"
    log(f"wrote {args.output}.{{npy,json}}: {len(rows)} tokens (window {window})")


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="Generate and write the logits")
    run_parser.add_argument("model", help="Hugging Face checkpoint directory")
    run_parser.add_argument("--ids", required=True,
                            help="A reference .json whose turns' input ids to feed")
    run_parser.add_argument("-o", "--output", required=True,
                            help="Prefix of the .npy and .json to write")
    run_parser.add_argument("--no-window", action="store_true",
                            help="Ignore the config's sliding_window")
    compare_parser = commands.add_parser("compare", help="Compare two outputs")
    compare_parser.add_argument("a", help="Prefix of the first .npy and .json")
    compare_parser.add_argument("b", help="Prefix of the second .npy and .json")
    compare_parser.add_argument("--tolerance", type=float,
                                help="Fail when max |dlogit| exceeds this")
    compare_parser.add_argument("--expect-change", type=float, metavar="MIN",
                                help="The outputs should differ: fail unless the "
                                "first token's logits differ by more than MIN "
                                "(then greedy ids may differ)")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
