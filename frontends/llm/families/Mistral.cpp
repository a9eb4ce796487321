//===- Mistral.cpp - Mistral 7B and its successors ------------------------===//
//
// transformers' MistralForCausalLM: the Llama layout with `sliding_window`
// (an integer in v0.1, null from v0.2). llama.cpp converts Mistral to its
// `llama` architecture, so a Mistral GGUF reads as Llama.
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

namespace llmc::families {

const Family &getMistralFamily() {
  static constexpr llvm::StringLiteral kModelTypes[] = {"mistral"};
  static const Family kFamily = [] {
    Family family;
    family.name = "mistral";
    family.hfModelTypes = kModelTypes;
    family.slidingWindow = SlidingWindowKey::Direct;
    family.nameHfTensors = nameLlamaHfTensors;
    family.nameGgufTensors = nameLlamaGgufTensors;
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
