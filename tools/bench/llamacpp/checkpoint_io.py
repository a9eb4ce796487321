"""Helpers shared by the scripts that make models for llama.cpp and check them.

Imported by make_gguf.py here (its own directory is on sys.path when it runs
as `python3 path/to/make_gguf.py`) and by tools/checkpoints/families'
make_family_checkpoint.py and reference_forward.py (which put this directory
on sys.path):
  SafetensorsCheckpoint  reads model.safetensors (or the shards its index
                         lists) through memory maps, a tensor at a time;
  LAYER_TENSORS          llama.cpp's names of a Llama-style decoder layer's
                         tensors, with Hugging Face's;
  add_size_keys          the GGUF keys of the model's sizes, as
                         convert_hf_to_gguf.py's TextModel writes them;
  import_gguf            llama.cpp's gguf-py package, from --gguf-py or
                         PYTHONPATH.
Python 3 and numpy only.
"""
import json
import os
import struct
import sys

import numpy as np

# Per-layer tensors: llama.cpp's name (blk.N. prefix) from Hugging Face's
# (model.layers.N. prefix), as gguf-py's tensor_mapping.py maps them, in
# llama.cpp's order. Only Qwen2 has the biases.
LAYER_TENSORS = [
    ("attn_norm.weight", "input_layernorm.weight"),
    ("attn_q.weight", "self_attn.q_proj.weight"),
    ("attn_q.bias", "self_attn.q_proj.bias"),
    ("attn_k.weight", "self_attn.k_proj.weight"),
    ("attn_k.bias", "self_attn.k_proj.bias"),
    ("attn_v.weight", "self_attn.v_proj.weight"),
    ("attn_v.bias", "self_attn.v_proj.bias"),
    ("attn_output.weight", "self_attn.o_proj.weight"),
    ("ffn_norm.weight", "post_attention_layernorm.weight"),
    ("ffn_gate.weight", "mlp.gate_proj.weight"),
    ("ffn_up.weight", "mlp.up_proj.weight"),
    ("ffn_down.weight", "mlp.down_proj.weight"),
]


class SafetensorsCheckpoint:
    """The tensors of model.safetensors (or of the shards its index lists),
    read through memory maps as float32 arrays, one tensor at a time.
    `program` prefixes the error for a dtype other than BF16, F16 and F32."""

    DTYPES = {"BF16": np.uint16, "F16": np.float16, "F32": np.float32}

    def __init__(self, directory, program):
        self.program = program
        index = os.path.join(directory, "model.safetensors.index.json")
        if os.path.exists(index):
            with open(index) as f:
                files = sorted(set(json.load(f)["weight_map"].values()))
        else:
            files = ["model.safetensors"]
        self.entries = {}
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                (header_size,) = struct.unpack("<Q", f.read(8))
                header = json.loads(f.read(header_size))
            header.pop("__metadata__", None)
            data = np.memmap(path, np.uint8, "r", offset=8 + header_size)
            for tensor, entry in header.items():
                self.entries[tensor] = (data, entry)

    def __contains__(self, name):
        return name in self.entries

    def shape(self, name):
        return tuple(self.entries[name][1]["shape"])

    def read(self, name):
        data, entry = self.entries[name]
        dtype = entry["dtype"]
        if dtype not in self.DTYPES:
            raise SystemExit(f"{self.program}: {name}: unsupported dtype {dtype}")
        begin, end = entry["data_offsets"]
        values = data[begin:end].view(self.DTYPES[dtype]).reshape(entry["shape"])
        if dtype == "BF16":
            # BF16 is the upper half of an F32: widen it exactly.
            return (values.astype(np.uint32) << 16).view(np.float32)
        return values.astype(np.float32)


def add_size_keys(writer, config):
    """The keys of the model's sizes, in the order in which
    convert_hf_to_gguf.py's TextModel.set_gguf_parameters writes them."""
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])


def import_gguf(gguf_py, program):
    """llama.cpp's gguf-py package (its source tree's gguf-py directory):
    from the directory `gguf_py` if given (a --gguf-py option), else from
    sys.path (PYTHONPATH)."""
    if gguf_py:
        sys.path.insert(0, gguf_py)
    try:
        import gguf
    except ImportError:
        raise SystemExit(f"{program}: gguf-py not found: pass --gguf-py "
                         "LLAMA_CPP/gguf-py or put it on PYTHONPATH")
    return gguf
