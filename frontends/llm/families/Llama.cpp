//===- Llama.cpp - Llama 2 and 3 ------------------------------------------===//
//
// transformers' LlamaForCausalLM; GGUF architecture `llama`, whose Q/K rows
// llama.cpp permutes. Biases on Q/K/V are optional (`attention_bias`).
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

namespace llmc::families {

const Family &getLlamaFamily() {
  static constexpr llvm::StringLiteral kNames[] = {"llama"};
  static const Family kFamily = [] {
    Family family;
    family.name = "llama";
    family.hfModelTypes = kNames;
    family.ggufArchitectures = kNames;
    family.attentionBias = AttentionBias::Optional;
    family.ggufPermutesQK = true;
    family.nameHfTensors = nameLlamaHfTensors;
    family.nameGgufTensors = nameLlamaGgufTensors;
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
