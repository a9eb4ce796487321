//===- InternLM2.cpp - InternLM2 and InternLM2.5 --------------------------===//
//
// InternLM's InternLM2ForCausalLM (remote code), the language model of
// InternVL2-2B and -8B: its own tensor names, and Q, K and V packed in one
// `wqkv` grouped by key/value head (each group: its query heads, its key
// head, its value head). llama.cpp's `internlm2` architecture splits wqkv
// and permutes Q and K as for Llama, so its file has the Llama layout.
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

using llmc::plugins::ModelSpec;
using llmc::plugins::RowSlice;
using llmc::plugins::TensorRole;

namespace llmc::families {
namespace {

void nameHfTensors(ModelSpec &spec) {
  static const TensorNames kNames = {
      "model.tok_embeddings.weight",
      "model.norm.weight",
      "output.weight",
      "model.layers.{layer}.",
      "attention_norm.weight",
      "attention.wqkv.weight:q",
      "attention.wqkv.weight:k",
      "attention.wqkv.weight:v",
      "attention.wo.weight",
      "attention.wqkv.bias:q",
      "attention.wqkv.bias:k",
      "attention.wqkv.bias:v",
      "attention.q_norm.weight",
      "attention.k_norm.weight",
      "ffn_norm.weight",
      "feed_forward.w1.weight",
      "feed_forward.w3.weight",
      "feed_forward.w2.weight",
  };
  nameTensors(kNames, spec);
}

/// wqkv's rows are [kv_heads, groups + 2, head_dim]: for KV head h, its
/// `groups` query heads, then its key head, then its value head.
std::vector<RowSlice> getHfSlices(const ModelSpec &spec) {
  int64_t groups = spec.numHeads / spec.numKvHeads;
  int64_t headRows = spec.headDim, groupRows = (groups + 2) * headRows;
  std::vector<RowSlice> slices;
  for (int64_t layer = 0; layer < spec.numLayers; ++layer) {
    for (auto [role, offset, count] :
         {std::tuple(TensorRole::QueryWeight, int64_t(0), groups * headRows),
          std::tuple(TensorRole::KeyWeight, groups * headRows, headRows),
          std::tuple(TensorRole::ValueWeight, (groups + 1) * headRows,
                     headRows)}) {
      std::vector<std::pair<int64_t, int64_t>> ranges;
      for (int64_t head = 0; head < spec.numKvHeads; ++head)
        ranges.push_back({head * groupRows + offset, count});
      slices.push_back(slicePart(spec, role, layer, std::move(ranges)));
    }
  }
  return slices;
}

} // namespace

const Family &getInternLM2Family() {
  static constexpr llvm::StringLiteral kNames[] = {"internlm2"};
  static constexpr llvm::StringLiteral kRefused[] = {"bias"};
  static const Family kFamily = [] {
    Family family;
    family.name = "internlm2";
    family.hfModelTypes = kNames;
    family.ggufArchitectures = kNames;
    family.refusedHfFlags = kRefused;
    family.ggufPermutesQK = true;
    family.nameHfTensors = nameHfTensors;
    family.nameGgufTensors = nameLlamaGgufTensors;
    family.getHfSlices = getHfSlices;
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
