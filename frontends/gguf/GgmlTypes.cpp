//===- GgmlTypes.cpp - the tensor element types of ggml -------------------===//
//
// Block sizes and byte counts follow the block structs of ggml-common.h
// (QK_K = 256 elements per K-quant super-block).
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgmlTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

namespace llmc::gguf {
namespace {

struct Entry {
  GgmlType type;
  GgmlTypeTraits traits;
};

constexpr Entry kTypes[] = {
    {GgmlType::F32, {"f32", 1, 4}},
    {GgmlType::F16, {"f16", 1, 2}},
    {GgmlType::Q4_0, {"q4_0", 32, 18}},
    {GgmlType::Q4_1, {"q4_1", 32, 20}},
    {GgmlType::Q5_0, {"q5_0", 32, 22}},
    {GgmlType::Q5_1, {"q5_1", 32, 24}},
    {GgmlType::Q8_0, {"q8_0", 32, 34}},
    {GgmlType::Q8_1, {"q8_1", 32, 36}},
    {GgmlType::Q2_K, {"q2_K", 256, 84}},
    {GgmlType::Q3_K, {"q3_K", 256, 110}},
    {GgmlType::Q4_K, {"q4_K", 256, 144}},
    {GgmlType::Q5_K, {"q5_K", 256, 176}},
    {GgmlType::Q6_K, {"q6_K", 256, 210}},
    {GgmlType::Q8_K, {"q8_K", 256, 292}},
    {GgmlType::IQ2_XXS, {"iq2_xxs", 256, 66}},
    {GgmlType::IQ2_XS, {"iq2_xs", 256, 74}},
    {GgmlType::IQ3_XXS, {"iq3_xxs", 256, 98}},
    {GgmlType::IQ1_S, {"iq1_s", 256, 50}},
    {GgmlType::IQ4_NL, {"iq4_nl", 32, 18}},
    {GgmlType::IQ3_S, {"iq3_s", 256, 110}},
    {GgmlType::IQ2_S, {"iq2_s", 256, 82}},
    {GgmlType::IQ4_XS, {"iq4_xs", 256, 136}},
    {GgmlType::I8, {"i8", 1, 1}},
    {GgmlType::I16, {"i16", 1, 2}},
    {GgmlType::I32, {"i32", 1, 4}},
    {GgmlType::I64, {"i64", 1, 8}},
    {GgmlType::F64, {"f64", 1, 8}},
    {GgmlType::IQ1_M, {"iq1_m", 256, 56}},
    {GgmlType::BF16, {"bf16", 1, 2}},
    {GgmlType::TQ1_0, {"tq1_0", 256, 54}},
    {GgmlType::TQ2_0, {"tq2_0", 256, 66}},
    {GgmlType::MXFP4, {"mxfp4", 32, 17}},
};

const Entry *find(uint32_t id) {
  const Entry *it = llvm::find_if(
      kTypes, [&](const Entry &entry) {
        return static_cast<uint32_t>(entry.type) == id;
      });
  return it == std::end(kTypes) ? nullptr : it;
}

} // namespace

std::optional<GgmlType> lookupGgmlType(uint32_t id) {
  if (const Entry *entry = find(id))
    return entry->type;
  return std::nullopt;
}

const GgmlTypeTraits &getGgmlTypeTraits(GgmlType type) {
  if (const Entry *entry = find(static_cast<uint32_t>(type)))
    return entry->traits;
  llvm_unreachable("GgmlType values come from lookupGgmlType");
}

} // namespace llmc::gguf
