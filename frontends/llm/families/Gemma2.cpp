//===- Gemma2.cpp - Gemma 2 -----------------------------------------------===//
//
// transformers' Gemma2ForCausalLM (llama.cpp's `gemma2`): the Llama layout
// with a norm after attention and after the MLP, RMSNorm weights stored as
// offsets from 1, the embedding scaled by sqrt(hidden_size), GELU (tanh)
// gating, attention scores and logits soft-capped, and a sliding window in
// every other layer from the first.
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

namespace llmc::families {

void nameGemmaHfTensors(plugins::ModelSpec &spec) {
  // Gemma's `post_attention_layernorm` follows attention; Llama's of that
  // name precedes the MLP, which Gemma calls `pre_feedforward_layernorm`.
  static const TensorNames kNames = {
      "model.embed_tokens.weight",
      "model.norm.weight",
      "lm_head.weight",
      "model.layers.{layer}.",
      "input_layernorm.weight",
      "self_attn.q_proj.weight",
      "self_attn.k_proj.weight",
      "self_attn.v_proj.weight",
      "self_attn.o_proj.weight",
      "self_attn.q_proj.bias",
      "self_attn.k_proj.bias",
      "self_attn.v_proj.bias",
      "self_attn.q_norm.weight",
      "self_attn.k_norm.weight",
      "pre_feedforward_layernorm.weight",
      "mlp.gate_proj.weight",
      "mlp.up_proj.weight",
      "mlp.down_proj.weight",
      "post_attention_layernorm.weight",
      "post_feedforward_layernorm.weight",
  };
  nameTensors(kNames, spec);
}

void nameGemmaGgufTensors(plugins::ModelSpec &spec) {
  static const TensorNames kNames = {
      "token_embd.weight",
      "output_norm.weight",
      "output.weight",
      "blk.{layer}.",
      "attn_norm.weight",
      "attn_q.weight",
      "attn_k.weight",
      "attn_v.weight",
      "attn_output.weight",
      "attn_q.bias",
      "attn_k.bias",
      "attn_v.bias",
      "attn_q_norm.weight",
      "attn_k_norm.weight",
      "ffn_norm.weight",
      "ffn_gate.weight",
      "ffn_up.weight",
      "ffn_down.weight",
      "post_attention_norm.weight",
      "post_ffw_norm.weight",
  };
  nameTensors(kNames, spec);
}

Family makeGemmaFamily() {
  Family family;
  family.attentionBias = AttentionBias::Optional;
  family.slidingWindow = SlidingWindowKey::Alternating;
  family.defaultSlidingWindow = 4096;
  family.activation = "gelu_tanh";
  family.tiesEmbeddingsByDefault = true;
  family.scalesEmbedding = true;
  family.hfNormWeightOffset = 1.0;
  family.defaultQueryPreAttnScalar = 256.0;
  family.nameHfTensors = nameGemmaHfTensors;
  family.nameGgufTensors = nameGemmaGgufTensors;
  return family;
}

const Family &getGemma2Family() {
  static constexpr llvm::StringLiteral kNames[] = {"gemma2"};
  static const Family kFamily = [] {
    Family family = makeGemmaFamily();
    family.name = "gemma2";
    family.hfModelTypes = kNames;
    family.ggufArchitectures = kNames;
    family.slidingWindowPattern = 2;
    family.defaultAttentionSoftcap = 50.0;
    family.defaultFinalLogitSoftcap = 30.0;
    family.ggufWideScaleLayers = 46;
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
