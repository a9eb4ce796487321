//===- Qwen3.cpp - Qwen3 dense models -------------------------------------===//
//
// transformers' Qwen3ForCausalLM: the Llama layout with Q and K
// RMS-normalized per head (`q_norm`, `k_norm`); biases only where
// `attention_bias` says so.
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

namespace llmc::families {

const Family &getQwen3Family() {
  static constexpr llvm::StringLiteral kNames[] = {"qwen3"};
  static const Family kFamily = [] {
    Family family;
    family.name = "qwen3";
    family.hfModelTypes = kNames;
    family.ggufArchitectures = kNames;
    family.attentionBias = AttentionBias::Optional;
    family.qkNorm = true;
    family.slidingWindow = SlidingWindowKey::Gated;
    family.nameHfTensors = nameLlamaHfTensors;
    family.nameGgufTensors = nameLlamaGgufTensors;
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
