//===- Qwen2.cpp - Qwen2 and Qwen2.5 --------------------------------------===//
//
// transformers' Qwen2ForCausalLM: the Llama layout with Q/K/V biases, which
// its config has no field for. `use_sliding_window` gates `sliding_window`.
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

namespace llmc::families {

const Family &getQwen2Family() {
  static constexpr llvm::StringLiteral kNames[] = {"qwen2"};
  static const Family kFamily = [] {
    Family family;
    family.name = "qwen2";
    family.hfModelTypes = kNames;
    family.ggufArchitectures = kNames;
    family.attentionBias = AttentionBias::Always;
    family.slidingWindow = SlidingWindowKey::Gated;
    family.nameHfTensors = nameLlamaHfTensors;
    family.nameGgufTensors = nameLlamaGgufTensors;
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
