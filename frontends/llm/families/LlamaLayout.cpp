//===- LlamaLayout.cpp - the Llama layout's tensor names ------------------===//
//
// Separate Q/K/V/O projections, gate/up/down MLP, a norm before each: the
// layout Llama, Mistral and Qwen share, as transformers and llama.cpp name
// its tensors; other layouts differ only in the names (nameTensors).
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

using llmc::plugins::ModelSpec;
using llmc::plugins::TensorRole;

namespace llmc::families {

void nameTensors(const TensorNames &names, ModelSpec &spec) {
  std::map<TensorRole, std::string> &roles = spec.tensorNames;
  roles[TensorRole::TokenEmbedding] = names.embedding;
  roles[TensorRole::FinalNorm] = names.finalNorm;
  if (!spec.tieWordEmbeddings)
    roles[TensorRole::LmHead] = names.lmHead;
  const std::string layer = names.layer;
  roles[TensorRole::AttentionNorm] = layer + names.attentionNorm;
  roles[TensorRole::QueryWeight] = layer + names.query;
  roles[TensorRole::KeyWeight] = layer + names.key;
  roles[TensorRole::ValueWeight] = layer + names.value;
  roles[TensorRole::OutputWeight] = layer + names.output;
  if (spec.attentionBias) {
    roles[TensorRole::QueryBias] = layer + names.queryBias;
    roles[TensorRole::KeyBias] = layer + names.keyBias;
    roles[TensorRole::ValueBias] = layer + names.valueBias;
  }
  if (spec.qkNorm) {
    roles[TensorRole::QueryNorm] = layer + names.queryNorm;
    roles[TensorRole::KeyNorm] = layer + names.keyNorm;
  }
  roles[TensorRole::MlpNorm] = layer + names.mlpNorm;
  roles[TensorRole::GateWeight] = layer + names.gate;
  roles[TensorRole::UpWeight] = layer + names.up;
  roles[TensorRole::DownWeight] = layer + names.down;
  if (names.postAttentionNorm)
    roles[TensorRole::PostAttentionNorm] = layer + names.postAttentionNorm;
  if (names.postMlpNorm)
    roles[TensorRole::PostMlpNorm] = layer + names.postMlpNorm;
}

const TensorNames &getLlamaHfNames() {
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
      "post_attention_layernorm.weight",
      "mlp.gate_proj.weight",
      "mlp.up_proj.weight",
      "mlp.down_proj.weight",
  };
  return kNames;
}

const TensorNames &getLlamaGgufNames() {
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
  };
  return kNames;
}

void nameLlamaHfTensors(ModelSpec &spec) {
  nameTensors(getLlamaHfNames(), spec);
}

void nameLlamaGgufTensors(ModelSpec &spec) {
  nameTensors(getLlamaGgufNames(), spec);
}

} // namespace llmc::families
