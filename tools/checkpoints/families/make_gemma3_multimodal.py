#!/usr/bin/python3
"""tiny-gemma3's weights in Gemma3ForConditionalGeneration's layout.

  make_gemma3_multimodal.py tests/families/models/tiny-gemma3 \\
      tests/families/models/tiny-gemma3-mm
  make_gemma3_multimodal.py --relaid tests/families/models/tiny-gemma3 \\
      tests/families/models/tiny-gemma3-mm-relaid

Google's Gemma 3 checkpoints of 4B and up are vision-language models: a
`gemma3` config.json whose `text_config` states little more than the
language model's sizes (transformers' Gemma3TextConfig supplies the rest),
the language model's tensors under `language_model.`, and a SigLIP tower
and projector beside them. This writes the same language model that way:
the text_config keeps only what differs from Gemma3TextConfig's defaults,
every tensor of tiny-gemma3 is renamed `language_model.<name>`, and two
small vision tensors stand in for the tower. The logits are tiny-gemma3's,
so its references (refs/tiny-gemma3.f32.*) apply unchanged. With
--relaid the names are those transformers 4.52 and later save:
`model.language_model.<name>` (and `lm_head.`), the tower under `model.`.
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

from make_family_checkpoint import write_safetensors

# Gemma3TextConfig's defaults for the keys tiny-gemma3 states.
TEXT_DEFAULTS = {
    "vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
    "num_hidden_layers": 26, "num_attention_heads": 8,
    "num_key_value_heads": 4, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh",
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0, "attention_bias": False,
    "query_pre_attn_scalar": 256, "sliding_window": 4096,
    "rope_local_base_freq": 10000.0, "attn_logit_softcapping": None,
    "final_logit_softcapping": None, "tie_word_embeddings": True,
}
# Keys of the text model's config that the outer config states instead, or
# that describe the class rather than the model.
OUTER_KEYS = {"architectures", "torch_dtype", "bos_token_id", "eos_token_id",
              "initializer_range", "use_cache", "attention_dropout",
              "hidden_act"}
VISION_TENSORS = {
    "vision_tower.vision_model.embeddings.patch_embedding.weight": [4, 3, 2, 2],
    "multi_modal_projector.mm_input_projection_weight": [4, 64],
}


def read_safetensors(path):
    """The F32 tensors of a safetensors file, by name."""
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(size))
        data = f.read()
    header.pop("__metadata__", None)
    return {name: np.frombuffer(
                data[entry["data_offsets"][0]:entry["data_offsets"][1]],
                "<f4").reshape(entry["shape"])
            for name, entry in header.items()}


def stored_name(name, relaid):
    """Where Google's files (or, relaid, transformers 4.52's) keep tensor
    `name` of the language model."""
    if not relaid:
        return "language_model." + name
    if name.startswith("model."):
        return "model.language_model." + name[len("model."):]
    return name


def main():
    relaid = "--relaid" in sys.argv
    source, out = [arg for arg in sys.argv[1:] if arg != "--relaid"]
    with open(os.path.join(source, "config.json")) as f:
        text = json.load(f)
    text_config = {key: value for key, value in text.items()
                   if key not in OUTER_KEYS
                   and not (key in TEXT_DEFAULTS
                            and TEXT_DEFAULTS[key] == value)}
    text_config["model_type"] = "gemma3_text"
    config = {
        "architectures": ["Gemma3ForConditionalGeneration"],
        "model_type": "gemma3",
        "bos_token_id": text["bos_token_id"],
        "eos_token_id": text["eos_token_id"],
        "image_token_index": 262144,
        "mm_tokens_per_image": 4,
        "text_config": dict(sorted(text_config.items())),
        "vision_config": {"model_type": "siglip_vision_model",
                          "hidden_size": 4, "image_size": 4,
                          "patch_size": 2, "num_hidden_layers": 0},
        "torch_dtype": "float32",
    }
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    tensors = {stored_name(name, relaid): value for name, value in
               read_safetensors(os.path.join(source, "model.safetensors"))
               .items()}
    for name, shape in VISION_TENSORS.items():
        if relaid:
            name = "model." + name
        tensors[name] = np.full(shape, 0.5, np.float32)
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    for name in ("generation_config.json", "tokenizer.json",
                 "tokenizer_config.json"):
        shutil.copyfile(os.path.join(source, name), os.path.join(out, name))


if __name__ == "__main__":
    main()
