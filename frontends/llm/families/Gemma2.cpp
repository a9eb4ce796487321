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
  static const TensorNames kNames = [] {
    TensorNames names = getLlamaHfNames();
    names.mlpNorm = "pre_feedforward_layernorm.weight";
    names.postAttentionNorm = "post_attention_layernorm.weight";
    names.postMlpNorm = "post_feedforward_layernorm.weight";
    return names;
  }();
  nameTensors(kNames, spec);
}

void nameGemmaGgufTensors(plugins::ModelSpec &spec) {
  static const TensorNames kNames = [] {
    TensorNames names = getLlamaGgufNames();
    names.postAttentionNorm = "post_attention_norm.weight";
    names.postMlpNorm = "post_ffw_norm.weight";
    return names;
  }();
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
