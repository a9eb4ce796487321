//===- GgufSpec.cpp - a GGUF file's model description ---------------------===//
//
// Keys and defaults follow llama.cpp's loader (llama-model.cpp) for the three
// architectures: what it requires is required here, what it defaults is
// defaulted the same way. Settings llmc cannot honour (mixture of experts,
// per-frequency rope factors, YaRN) are errors rather than silently
// different numerics.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufSpec.h"

#include "frontends/gguf/GgufTokenizer.h"
#include "frontends/gguf/MetadataFields.h"

#include <limits>

using llmc::plugins::ModelSpec;
using llmc::plugins::RopePairing;
using llmc::plugins::RopeScalingType;
using llmc::plugins::TensorRole;

namespace llmc::gguf {
namespace {

void nameTensors(ModelSpec &spec) {
  std::map<TensorRole, std::string> &names = spec.tensorNames;
  names[TensorRole::TokenEmbedding] = "token_embd.weight";
  names[TensorRole::FinalNorm] = "output_norm.weight";
  if (!spec.tieWordEmbeddings)
    names[TensorRole::LmHead] = "output.weight";
  const std::string layer = "blk.{layer}.";
  names[TensorRole::AttentionNorm] = layer + "attn_norm.weight";
  names[TensorRole::QueryWeight] = layer + "attn_q.weight";
  names[TensorRole::KeyWeight] = layer + "attn_k.weight";
  names[TensorRole::ValueWeight] = layer + "attn_v.weight";
  names[TensorRole::OutputWeight] = layer + "attn_output.weight";
  if (spec.attentionBias) {
    names[TensorRole::QueryBias] = layer + "attn_q.bias";
    names[TensorRole::KeyBias] = layer + "attn_k.bias";
    names[TensorRole::ValueBias] = layer + "attn_v.bias";
  }
  if (spec.qkNorm) {
    names[TensorRole::QueryNorm] = layer + "attn_q_norm.weight";
    names[TensorRole::KeyNorm] = layer + "attn_k_norm.weight";
  }
  names[TensorRole::MlpNorm] = layer + "ffn_norm.weight";
  names[TensorRole::GateWeight] = layer + "ffn_gate.weight";
  names[TensorRole::UpWeight] = layer + "ffn_up.weight";
  names[TensorRole::DownWeight] = layer + "ffn_down.weight";
}

/// `<arch>.rope.scaling.*`: llama.cpp writes `none`, `linear`, `yarn` or
/// `longrope`; Llama 3 scaling is not metadata but a `rope_freqs.weight`
/// tensor of per-frequency factors.
void readRopeScaling(MetadataFields &fields, const std::string &arch,
                     ModelSpec &spec) {
  std::string typeKey = arch + "rope.scaling.type";
  std::string type = fields.getString(typeKey, "none");
  if (type == "linear") {
    spec.ropeScaling.type = RopeScalingType::Linear;
    spec.ropeScaling.factor = fields.getFloat(arch + "rope.scaling.factor");
  } else if (type != "none") {
    fields.fail(typeKey, "'" + type +
                             "' is not supported (llmc reads none and "
                             "linear)");
  }
  if (fields.getFile().findTensor("rope_freqs.weight"))
    fields.fail(typeKey, "is accompanied by tensor 'rope_freqs.weight' "
                         "(per-frequency rope factors), which llmc does not "
                         "support");
}

/// A dimension: an integer that products of two cannot overflow (llama.cpp
/// stores them as u32); ModelSpec::validate checks that it is positive.
int64_t getSize(MetadataFields &fields, const std::string &key,
                std::optional<int64_t> fallback = std::nullopt) {
  int64_t size = fields.getInt(key, fallback);
  if (size > std::numeric_limits<int32_t>::max()) {
    fields.fail(key, "is " + llvm::Twine(size) + ", out of range");
    return 0;
  }
  return size;
}

void readArchitecture(MetadataFields &fields, ModelSpec &spec) {
  const std::string arch = spec.family + ".";
  spec.numLayers = getSize(fields, arch + "block_count");
  spec.hiddenSize = getSize(fields, arch + "embedding_length");
  spec.intermediateSize = getSize(fields, arch + "feed_forward_length");
  spec.numHeads = getSize(fields, arch + "attention.head_count");
  spec.numKvHeads =
      getSize(fields, arch + "attention.head_count_kv", spec.numHeads);
  spec.headDim = getSize(
      fields, arch + "attention.key_length",
      spec.numHeads > 0 ? spec.hiddenSize / spec.numHeads : 0);
  std::string valueKey = arch + "attention.value_length";
  if (getSize(fields, valueKey, spec.headDim) != spec.headDim)
    fields.fail(valueKey, "differs from the key length " +
                              llvm::Twine(spec.headDim) +
                              "; llmc needs equal key and value head sizes");
  spec.rotaryDim =
      getSize(fields, arch + "rope.dimension_count", spec.headDim);
  spec.ropeTheta = fields.getFloat(arch + "rope.freq_base", 10000.0);
  spec.rmsNormEps = fields.getFloat(arch + "attention.layer_norm_rms_epsilon");
  spec.maxPositions = getSize(fields, arch + "context_length");
  std::string expertKey = arch + "expert_count";
  if (fields.getInt(expertKey, 0) > 0)
    fields.fail(expertKey, "is positive; mixture-of-experts models are not "
                           "supported");
  readRopeScaling(fields, arch, spec);

  // llama.cpp permutes Llama's Q/K rows at conversion so that each rotary
  // pair is two adjacent channels; running with the interleaved pairing on
  // the permuted rows gives the same attention scores as the original model.
  spec.ropePairing =
      spec.family == "llama" ? RopePairing::Interleaved : RopePairing::Half;
  spec.hiddenAct = "silu";
  // Qwen2 always has Q/K/V biases; Llama models may (llama.cpp loads them
  // when present); Qwen3 has none but normalizes Q and K per head.
  spec.attentionBias =
      spec.family == "qwen2" ||
      (spec.family == "llama" &&
       fields.getFile().findTensor("blk.0.attn_q.bias"));
  spec.qkNorm = spec.family == "qwen3";
  // Without `output.weight` llama.cpp reuses the token embedding.
  spec.tieWordEmbeddings = !fields.getFile().findTensor("output.weight");
}

/// Generation ids: llama.cpp stops at the EOS token and at end-of-turn.
void readTokenIds(MetadataFields &fields, ModelSpec &spec) {
  spec.bosTokenId = fields.getInt("tokenizer.ggml.bos_token_id", -1);
  for (llvm::StringRef key :
       {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"}) {
    int64_t id = fields.getInt(key, -1);
    if (id >= 0 && !llvm::is_contained(spec.eosTokenIds, id))
      spec.eosTokenIds.push_back(id);
  }
  spec.chatTemplate = fields.getString("tokenizer.chat_template", "");
}

} // namespace

llvm::Expected<ModelSpec> readModelSpec(const GgufFile &file) {
  MetadataFields fields(file);
  ModelSpec spec;
  spec.source = file.getPath().str();
  spec.family = fields.getString("general.architecture");
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  if (spec.family != "llama" && spec.family != "qwen2" &&
      spec.family != "qwen3") {
    fields.fail("general.architecture",
                "'" + spec.family +
                    "' is not supported (llmc reads llama, qwen2 and qwen3)");
    return fields.takeError();
  }
  readArchitecture(fields, spec);
  size_t tokens = fields.getStringArray("tokenizer.ggml.tokens").size();
  spec.vocabSize = getSize(fields, spec.family + ".vocab_size",
                           static_cast<int64_t>(tokens));
  readTokenIds(fields, spec);
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  nameTensors(spec);

  llvm::Expected<std::string> tokenizer = buildTokenizerJson(file);
  if (!tokenizer)
    return tokenizer.takeError();
  spec.tokenizerJson = std::move(*tokenizer);
  if (llvm::Error error = spec.validate())
    return std::move(error);
  return spec;
}

} // namespace llmc::gguf
