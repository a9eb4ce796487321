//===- Families.cpp - the family table and its lookups --------------------===//

#include "frontends/llm/families/Family.h"

#include "llvm/ADT/STLExtras.h"

namespace llmc::families {
namespace {

/// "a, b and c".
std::string joinNames(llvm::ArrayRef<llvm::StringRef> names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      text += i + 1 == names.size() ? " and " : ", ";
    text += names[i].str();
  }
  return text;
}

template <typename NamesOf>
std::string listNames(NamesOf namesOf,
                      llvm::ArrayRef<llvm::StringRef> more = {}) {
  std::vector<llvm::StringRef> names;
  for (const Family *family : getFamilies())
    for (llvm::StringRef name : namesOf(*family))
      names.push_back(name);
  names.insert(names.end(), more.begin(), more.end());
  return joinNames(names);
}

} // namespace

llvm::ArrayRef<const Family *> getFamilies() {
  // The order matchFamily tries: an ONNX export with biases and no Q/K
  // norms reads as Qwen2, one with neither as Llama (which Mistral without
  // a window also is).
  static const Family *const kFamilies[] = {
      &getQwen2Family(), &getQwen3Family(), &getLlamaFamily(),
      &getMistralFamily()};
  return kFamilies;
}

const Family *findHfFamily(llvm::StringRef modelType) {
  for (const Family *family : getFamilies())
    if (llvm::is_contained(family->hfModelTypes, modelType))
      return family;
  return nullptr;
}

const Family *findGgufFamily(llvm::StringRef architecture) {
  for (const Family *family : getFamilies())
    if (llvm::is_contained(family->ggufArchitectures, architecture))
      return family;
  return nullptr;
}

const Family *findFamily(llvm::StringRef name) {
  for (const Family *family : getFamilies())
    if (family->name == name)
      return family;
  return nullptr;
}

const Family *matchFamily(bool attentionBias, bool qkNorm) {
  for (const Family *family : getFamilies()) {
    bool biasFits = family->attentionBias == AttentionBias::Optional ||
                    attentionBias == (family->attentionBias ==
                                      AttentionBias::Always);
    if (biasFits && family->qkNorm == qkNorm)
      return family;
  }
  return nullptr;
}

std::string listHfModelTypes(llvm::ArrayRef<llvm::StringRef> more) {
  return listNames([](const Family &family) { return family.hfModelTypes; },
                   more);
}

std::string listGgufArchitectures() {
  return listNames(
      [](const Family &family) { return family.ggufArchitectures; });
}

} // namespace llmc::families
