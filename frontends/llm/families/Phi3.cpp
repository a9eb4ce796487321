//===- Phi3.cpp - Phi-3 and Phi-3.5 ---------------------------------------===//
//
// transformers' Phi3ForCausalLM: Q, K and V fused in one qkv_proj, gate and
// up in one gate_up_proj (gate rows first), `sliding_window`, and LongRoPE
// scaling. llama.cpp's `phi3` architecture keeps both fusions (attn_qkv,
// and ffn_up holding gate then up) and its rotary pairs unpermuted.
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
      "model.embed_tokens.weight",
      "model.norm.weight",
      "lm_head.weight",
      "model.layers.{layer}.",
      "input_layernorm.weight",
      "self_attn.qkv_proj.weight:q",
      "self_attn.qkv_proj.weight:k",
      "self_attn.qkv_proj.weight:v",
      "self_attn.o_proj.weight",
      "self_attn.qkv_proj.bias:q",
      "self_attn.qkv_proj.bias:k",
      "self_attn.qkv_proj.bias:v",
      "self_attn.q_norm.weight",
      "self_attn.k_norm.weight",
      "post_attention_layernorm.weight",
      "mlp.gate_up_proj.weight:gate",
      "mlp.gate_up_proj.weight:up",
      "mlp.down_proj.weight",
  };
  nameTensors(kNames, spec);
}

void nameGgufTensors(ModelSpec &spec) {
  static const TensorNames kNames = {
      "token_embd.weight",
      "output_norm.weight",
      "output.weight",
      "blk.{layer}.",
      "attn_norm.weight",
      "attn_qkv.weight:q",
      "attn_qkv.weight:k",
      "attn_qkv.weight:v",
      "attn_output.weight",
      "attn_qkv.bias:q",
      "attn_qkv.bias:k",
      "attn_qkv.bias:v",
      "attn_q_norm.weight",
      "attn_k_norm.weight",
      "ffn_norm.weight",
      "ffn_up.weight:gate",
      "ffn_up.weight:up",
      "ffn_down.weight",
  };
  nameTensors(kNames, spec);
}

/// Both formats fuse alike: Q, K, V rows in turn; gate rows, then up rows.
std::vector<RowSlice> getSlices(const ModelSpec &spec) {
  std::vector<RowSlice> slices = sliceConsecutiveRows(
      spec, {TensorRole::QueryWeight, TensorRole::KeyWeight,
             TensorRole::ValueWeight},
      {spec.numHeads * spec.headDim, spec.numKvHeads * spec.headDim,
       spec.numKvHeads * spec.headDim});
  std::vector<RowSlice> mlp = sliceConsecutiveRows(
      spec, {TensorRole::GateWeight, TensorRole::UpWeight},
      {spec.intermediateSize, spec.intermediateSize});
  slices.insert(slices.end(), mlp.begin(), mlp.end());
  return slices;
}

} // namespace

const Family &getPhi3Family() {
  static constexpr llvm::StringLiteral kNames[] = {"phi3"};
  static const Family kFamily = [] {
    Family family;
    family.name = "phi3";
    family.hfModelTypes = kNames;
    family.ggufArchitectures = kNames;
    family.slidingWindow = SlidingWindowKey::Direct;
    family.nameHfTensors = nameHfTensors;
    family.nameGgufTensors = nameGgufTensors;
    family.getHfSlices = getSlices;
    family.getGgufSlices = getSlices;
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
