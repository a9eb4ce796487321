#!/usr/bin/python3
"""Writes a pre-quantized copy of a Hugging Face checkpoint, as GPTQ, AWQ,
AutoRound or compressed-tensors store it.

  quantize_checkpoint.py --format gptq --bits 4 --group-size 128 [--asym] \
      [--dequantized-out DIR] MODEL OUT

Every Linear weight of the decoder layers (q/k/v/o and gate/up/down
projections) is quantized round-to-nearest with min/max parameters, as the
reference quantizers compute them before their error-correcting searches, and
packed exactly as the reference implementations pack it:

- gptq:        AutoGPTQ ("checkpoint_format": "gptq"): qweight int32
               [K*b/32, N] packed along K, qzeros int32 [G, N*b/32] holding
               zero - 1, scales f16 [G, N], g_idx int32 [K];
- gptq_v2:     GPTQModel's v2 layout, the same with plain zero points;
- awq:         AutoAWQ GEMM (4-bit, asymmetric): qweight int32 [K, N/8] and
               qzeros int32 [G, N/8] in AWQ's nibble order 0 2 4 6 1 3 5 7,
               scales f16 [G, N];
- auto-round:  AutoRound's own packing ("auto_round:gptq", plain zeros),
  auto-round-gptq: its "auto_round:auto_gptq" packing (zero - 1),
  auto-round-awq:  its "auto_round:auto_awq" packing (AWQ's);
- compressed-tensors: llm-compressor's pack-quantized: weight_packed int32
               [N, K*b/32] holding q + 2^(b-1), weight_scale bf16 [N, G],
               weight_zero_point int32 [N*b/32, G] (asymmetric), weight_shape.

--group-size -1 is one group per output channel. --act-order (GPTQ's
desc_act, compressed-tensors' actorder "group") groups shuffled input
channels and stores each channel's group in g_idx / weight_g_idx. The other tensors, the
tokenizer and generation files are copied. Before writing, every packed
tensor is unpacked again with the format's reader and checked to give back
its integers, scales and zero points; the dequantized weights stay within half
a step of the float weights they were made from (within two for the values
clipped at the ends of the range). --dequantized-out writes an unquantized checkpoint holding
those dequantized weights: the same model, for comparing a compiler's reading
of the packed files with. A relative MODEL that does not exist is looked up in
the reference data ($LLMC_REFDATA or ../shared/refdata beside the repo).
"""
import argparse
import json
import os
import shutil
import struct
import sys

import numpy as np

LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
          "down_proj")
AWQ_ORDER = (0, 2, 4, 6, 1, 3, 5, 7)
DTYPES = {"F32": np.float32, "F16": np.float16, "I32": np.int32,
          "I64": np.int64, "BF16": np.uint16}
COMPANIONS = ("tokenizer.json", "tokenizer_config.json",
              "generation_config.json", "chat_template.jinja")


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    size = struct.unpack_from("<Q", data)[0]
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = np.frombuffer(data, DTYPES[entry["dtype"]], offset=8 + size + begin,
                            count=(end - begin) // np.dtype(DTYPES[entry["dtype"]]).itemsize)
        values = raw.reshape(entry["shape"])
        if entry["dtype"] == "BF16":
            values = (values.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = values.astype(np.float32) if entry["dtype"] in ("F16", "BF16") else values
    return tensors


def write_safetensors(path, tensors):
    """`tensors`: name -> (safetensors dtype, numpy array of that storage)."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        dtype, array = tensors[name]
        blob = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    header_bytes = json.dumps(header, separators=(",", ":")).encode()
    header_bytes += b" " * (-len(header_bytes) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes)))
        f.write(header_bytes)
        for blob in blobs:
            f.write(blob)
    os.replace(path + ".tmp", path)


def to_bf16_bits(values):
    bits = values.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def quantize(weight, bits, group, asym, style, scale_dtype):
    """Round-to-nearest of weight [N, K] in groups of `group` along K.

    Returns unsigned integers u [N, K] in [0, 2^bits - 1], the scales [N, G]
    as stored (float32 values exactly representable in `scale_dtype`) and
    unsigned zero points z [N, G], with weight ~ (u - z) * scale.
    `style` picks the parameter formulas: "gptq" (GPTQ's Quantizer, whose
    range includes 0; compressed-tensors' calculate_qparams gives the same
    parameters) or "awq" (AutoAWQ's pseudo_quantize_tensor, whose does not).
    """
    n, k = weight.shape
    maxq = (1 << bits) - 1
    x = weight.reshape(n, k // group, group).astype(np.float32)
    lo, hi = x.min(axis=2), x.max(axis=2)
    if style == "awq":
        scale = np.maximum(hi - lo, 1e-5) / maxq
    else:
        lo, hi = np.minimum(lo, 0), np.maximum(hi, 0)
        if not asym:
            hi = np.maximum(-lo, hi)
            lo = -hi
        both_zero = (lo == 0) & (hi == 0)
        lo, hi = np.where(both_zero, -1, lo), np.where(both_zero, 1, hi)
        scale = (hi - lo) / maxq
    scale = scale_dtype(scale)
    if asym:
        zero = np.clip(np.round(-lo / scale), 0, maxq)
    else:
        zero = np.full(scale.shape, float(1 << (bits - 1)), np.float32)
    u = np.clip(np.round(x / scale[:, :, None]) + zero[:, :, None], 0, maxq)
    return (u.reshape(n, k).astype(np.uint32), scale.astype(np.float32),
            zero.astype(np.uint32))


def dequantize(u, scale, zero, g_idx):
    """(u - zero) * scale in float32, one rounding per element, as llmc
    computes it; input channel k uses the parameters of group g_idx[k]."""
    centred = u.astype(np.int64) - zero[:, g_idx].astype(np.int64)
    return centred.astype(np.float32) * scale[:, g_idx]


def pack(values, bits, axis, order=None):
    """Packs unsigned `values` along `axis` into int32 words, value j of a
    word at bits `bits * j` (or at `bits * order.index(j)`)."""
    per_word = 32 // bits
    values = np.moveaxis(values.astype(np.uint32), axis, -1)
    pad = -values.shape[-1] % per_word
    values = np.pad(values, [(0, 0)] * (values.ndim - 1) + [(0, pad)])
    values = values.reshape(values.shape[:-1] + (-1, per_word))
    words = np.zeros(values.shape[:-1], np.uint32)
    for slot in range(per_word):
        column = order[slot] if order else slot
        words |= (values[..., column] & ((1 << bits) - 1)) << (bits * slot)
    return np.moveaxis(words, -1, axis).view(np.int32)


def unpack(words, bits, axis, count, order=None):
    per_word = 32 // bits
    words = np.moveaxis(words.view(np.uint32), axis, -1)
    slots = [(words >> (bits * order.index(j) if order else bits * j)) & ((1 << bits) - 1)
             for j in range(per_word)]
    values = np.stack(slots, axis=-1).reshape(words.shape[:-1] + (-1,))
    return np.moveaxis(values[..., :count], -1, axis)


class Format:
    def __init__(self, name, bits, group_size, asym, act_order):
        self.name, self.bits, self.asym = name, bits, asym
        self.act_order = act_order
        self.group_size = group_size
        self.awq = name in ("awq", "auto-round-awq")
        self.compressed = name == "compressed-tensors"
        self.minus_one = name in ("gptq", "auto-round-gptq")
        if self.awq and (bits != 4 or not asym):
            sys.exit(f"{name}: AWQ packing is 4-bit asymmetric (use --asym)")
        if self.awq and act_order:
            sys.exit(f"{name}: AWQ packing has no act-order")

    def config(self):
        group = self.group_size
        if self.compressed:
            weights = {"num_bits": self.bits, "type": "int",
                       "symmetric": not self.asym, "dynamic": False,
                       "strategy": "channel" if group == -1 else "group",
                       "group_size": None if group == -1 else group,
                       "actorder": "group" if self.act_order else None,
                       "observer": "minmax"}
            return {"quant_method": "compressed-tensors",
                    "format": "pack-quantized",
                    "quantization_status": "compressed",
                    "config_groups": {"group_0": {
                        "targets": ["Linear"], "weights": weights,
                        "input_activations": None,
                        "output_activations": None}},
                    "ignore": ["lm_head"]}
        if self.name in ("gptq", "gptq_v2"):
            return {"quant_method": "gptq", "bits": self.bits,
                    "group_size": group, "sym": not self.asym,
                    "desc_act": self.act_order, "static_groups": False,
                    "true_sequential": True, "damp_percent": 0.01,
                    "checkpoint_format": self.name}
        if self.name == "awq":
            return {"quant_method": "awq", "bits": 4, "group_size": group,
                    "zero_point": True, "version": "gemm",
                    "modules_to_not_convert": None}
        packing = {"auto-round": "auto_round:gptq",
                   "auto-round-gptq": "auto_round:auto_gptq",
                   "auto-round-awq": "auto_round:auto_awq"}[self.name]
        return {"quant_method": "auto-round", "bits": self.bits,
                "group_size": group, "sym": not self.asym, "data_type": "int",
                "packing_format": packing, "iters": 0}

    def scale_dtype(self, values):
        if self.compressed:
            return from_bf16_bits(to_bf16_bits(values))
        return values.astype(np.float16).astype(np.float32)

    def write(self, module, u, scale, zero, g_idx):
        """The packed tensors of one module from unsigned integers u [N, K],
        scales and zero points [N, G] and the group of each input channel."""
        n, k = u.shape
        b = self.bits
        if self.compressed:
            half = 1 << (b - 1)
            out = {module + ".weight_packed": ("I32", pack(u, b, axis=1)),
                   module + ".weight_scale": ("BF16", to_bf16_bits(scale)),
                   module + ".weight_shape": ("I64", np.array([n, k], np.int64))}
            if self.act_order:
                out[module + ".weight_g_idx"] = ("I32", g_idx.astype(np.int32))
            if self.asym:
                out[module + ".weight_zero_point"] = ("I32", pack(zero, b, axis=0))
            else:
                assert (zero == half).all()
            return out
        order = AWQ_ORDER if self.awq else None
        stored_zero = (zero - 1) if self.minus_one else zero
        out = {module + ".scales": ("F16", scale.T.astype(np.float16)),
               module + ".qzeros": ("I32", pack(stored_zero.T, b, axis=1, order=order))}
        if self.awq:
            out[module + ".qweight"] = ("I32", pack(u.T, b, axis=1, order=order))
        else:
            out[module + ".qweight"] = ("I32", pack(u.T, b, axis=0))
            out[module + ".g_idx"] = ("I32", g_idx.astype(np.int32))
        return out

    def read(self, tensors, module, n, k):
        """Unpacks module's integers, scales and zero points [N, G] as the
        format's reader does."""
        b = self.bits
        if self.compressed:
            u = unpack(tensors[module + ".weight_packed"][1], b, 1, k)
            scale = from_bf16_bits(tensors[module + ".weight_scale"][1])
            if self.asym:
                zero = unpack(tensors[module + ".weight_zero_point"][1], b, 0, n)
            else:
                zero = np.full(scale.shape, 1 << (b - 1), np.uint32)
        else:
            order = AWQ_ORDER if self.awq else None
            scale = tensors[module + ".scales"][1].astype(np.float32).T
            zero = unpack(tensors[module + ".qzeros"][1], b, 1, n, order).T
            if self.minus_one:
                zero = zero + 1
            if self.awq:
                u = unpack(tensors[module + ".qweight"][1], b, 1, n, order).T
            else:
                u = unpack(tensors[module + ".qweight"][1], b, 0, k).T
        return u, scale, zero


def resolve(path):
    if os.path.exists(path) or os.path.isabs(path):
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.environ.get("LLMC_REFDATA") or os.path.join(here, "..", "..", "..", "shared", "refdata")
    return os.path.join(root, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", required=True,
                        choices=["gptq", "gptq_v2", "awq", "auto-round", "auto-round-gptq",
                                 "auto-round-awq", "compressed-tensors"])
    parser.add_argument("--bits", type=int, choices=[4, 8], default=4)
    parser.add_argument("--group-size", type=int, default=128)
    parser.add_argument("--asym", action="store_true")
    parser.add_argument("--act-order", action="store_true",
                        help="GPTQ desc_act / compressed-tensors actorder=group: "
                             "groups of shuffled input channels, with g_idx")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dequantized-out")
    parser.add_argument("model")
    parser.add_argument("output")
    args = parser.parse_args()

    model = resolve(args.model)
    fmt = Format(args.format, args.bits, args.group_size, args.asym, args.act_order)
    rng = np.random.default_rng(args.seed)
    with open(os.path.join(model, "config.json")) as f:
        config = json.load(f)
    source = read_safetensors(os.path.join(model, "model.safetensors"))

    packed, dequantized = {}, {}
    for name in sorted(source):
        value = source[name]
        parts = name.split(".")
        if not (name.endswith(".weight") and len(parts) > 2 and parts[-2] in LINEAR):
            packed[name] = dequantized[name] = ("F32", value.astype(np.float32))
            continue
        module = name[:-len(".weight")]
        n, k = value.shape
        group = k if args.group_size == -1 else args.group_size
        if k % group:
            sys.exit(f"{name}: group size {group} does not divide {k}")
        # Act-order quantizes the input channels in a permuted order (GPTQ's
        # by decreasing Hessian diagonal; here a seeded shuffle), so channel
        # perm[i] lands in group i // group.
        perm = rng.permutation(k) if args.act_order else np.arange(k)
        g_idx = np.empty(k, np.int64)
        g_idx[perm] = np.arange(k) // group
        u, scale, zero = quantize(value[:, perm], args.bits, group, args.asym,
                                  "awq" if fmt.awq else "gptq", fmt.scale_dtype)
        u[:, perm] = u.copy()
        tensors = fmt.write(module, u, scale, zero, g_idx)
        if not all(np.array_equal(a, b) for a, b in
                   zip(fmt.read(tensors, module, n, k), (u, scale, zero))):
            sys.exit(f"{name}: {args.format} packing does not read back")
        weights = dequantize(u, scale, zero, g_idx)
        # Half a step, but for values clipped at the ends of the integer
        # range: where the zero point rounded up, or a scale rounded down to
        # bf16 (2^-9 relative, 255 steps of it at 8 bits) shrank the range.
        error = np.abs(weights - value) / np.abs(scale[:, g_idx])
        if np.mean(error <= 0.5 + 1e-3) < 0.99 or error.max() > 2:
            sys.exit(f"{name}: dequantized weights are up to {error.max():.3f} steps off")
        packed.update(tensors)
        dequantized[name] = ("F32", weights)

    os.makedirs(args.output, exist_ok=True)
    quantized_config = dict(config, quantization_config=fmt.config())
    with open(os.path.join(args.output, "config.json"), "w") as f:
        json.dump(quantized_config, f, indent=2)
    write_safetensors(os.path.join(args.output, "model.safetensors"), packed)
    outputs = [(args.output, packed)]
    if args.dequantized_out:
        os.makedirs(args.dequantized_out, exist_ok=True)
        with open(os.path.join(args.dequantized_out, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        write_safetensors(os.path.join(args.dequantized_out, "model.safetensors"), dequantized)
        outputs.append((args.dequantized_out, dequantized))
    for directory, _ in outputs:
        for companion in COMPANIONS:
            if os.path.exists(os.path.join(model, companion)):
                shutil.copyfile(os.path.join(model, companion), os.path.join(directory, companion))
    print(f"wrote {args.output}: {args.format} {args.bits}-bit group {args.group_size} "
          f"{'asym' if args.asym else 'sym'}{' act-order' if args.act_order else ''}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
