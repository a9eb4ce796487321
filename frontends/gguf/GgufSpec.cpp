//===- GgufSpec.cpp - a GGUF file's model description ---------------------===//
//
// Keys and defaults follow llama.cpp's loader (llama-model.cpp) for the
// architectures of the family table (frontends/llm/families): what it
// requires is required here, what it defaults is defaulted the same way.
// Settings llmc cannot honour (mixture of experts, YaRN) are errors rather
// than silently different numerics.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufSpec.h"

#include "frontends/gguf/GgufTokenizer.h"
#include "frontends/gguf/MetadataFields.h"
#include "frontends/llm/families/Family.h"

#include <cmath>
#include <cstring>
#include <limits>

using llmc::plugins::ModelSpec;
using llmc::plugins::RopePairing;
using llmc::plugins::RopeScalingType;
using llmc::plugins::TensorRole;

namespace llmc::gguf {
namespace {

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

/// Tensor `name`'s rotaryDim / 2 positive F32 factors, one per rotary
/// pair; std::nullopt when the file has no such tensor or it is malformed
/// (recorded on `typeKey`).
std::optional<std::vector<double>> readPairFactors(MetadataFields &fields,
                                                   const std::string &typeKey,
                                                   llvm::StringRef name,
                                                   const ModelSpec &spec) {
  const GgufFile &file = fields.getFile();
  const TensorEntry *tensor = file.findTensor(name);
  if (!tensor)
    return std::nullopt;
  int64_t pairs = spec.rotaryDim / 2;
  if (tensor->type != GgmlType::F32 || tensor->ne.size() != 1 ||
      tensor->numElements != pairs) {
    fields.fail(typeKey, "is accompanied by tensor '" + name +
                             "', which is not " + llvm::Twine(pairs) +
                             " F32 factors (one per rotary pair)");
    return std::nullopt;
  }
  llvm::ArrayRef<uint8_t> bytes = file.getBytes(*tensor);
  std::vector<double> factors(pairs);
  for (int64_t i = 0; i < pairs; ++i) {
    float factor;
    std::memcpy(&factor, bytes.data() + i * sizeof(float), sizeof(float));
    if (!(factor > 0.0f) || !std::isfinite(factor)) {
      fields.fail(typeKey, "is accompanied by tensor '" + name +
                               "' whose factor " + llvm::Twine(i) +
                               " is not a positive number");
      return std::nullopt;
    }
    factors[i] = factor;
  }
  return factors;
}

/// Rope scaling llama.cpp stores as tensors: Llama 3.1's `rope_freqs`
/// (per-pair factors), Phi-3's `rope_factors_short` and `_long` (LongRoPE,
/// with its original context and magnitude in metadata).
void readFactorTensors(MetadataFields &fields, const std::string &arch,
                       const std::string &typeKey, ModelSpec &spec) {
  std::optional<std::vector<double>> perPair =
      readPairFactors(fields, typeKey, "rope_freqs.weight", spec);
  std::optional<std::vector<double>> shortFactors =
      readPairFactors(fields, typeKey, "rope_factors_short.weight", spec);
  std::optional<std::vector<double>> longFactors =
      readPairFactors(fields, typeKey, "rope_factors_long.weight", spec);
  if (!perPair && !shortFactors && !longFactors)
    return;
  if (spec.ropeScaling.type != RopeScalingType::None ||
      (perPair && (shortFactors || longFactors))) {
    fields.fail(typeKey, "and the rope factor tensors both scale the rotary "
                         "frequencies");
    return;
  }
  if (perPair) {
    spec.ropeScaling.type = RopeScalingType::PerFrequency;
    spec.ropeScaling.frequencyFactors = std::move(*perPair);
    return;
  }
  if (!shortFactors || !longFactors) {
    fields.fail(typeKey, "is accompanied by only one of tensors "
                         "'rope_factors_short.weight' and "
                         "'rope_factors_long.weight'");
    return;
  }
  spec.ropeScaling.type = RopeScalingType::LongRope;
  spec.ropeScaling.frequencyFactors = std::move(*shortFactors);
  spec.ropeScaling.longFrequencyFactors = std::move(*longFactors);
  spec.ropeScaling.originalMaxPositions =
      getSize(fields, arch + "rope.scaling.original_context_length");
  spec.ropeScaling.attentionFactor =
      fields.getFloat(arch + "rope.scaling.attn_factor", 1.0);
}

/// `<arch>.rope.scaling.*`: llama.cpp writes `none`, `linear`, `yarn` or
/// `longrope`; Llama 3's and Phi-3's scalings come as tensors
/// (readFactorTensors).
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
  readFactorTensors(fields, arch, typeKey, spec);
}

/// Gemma's windows as llama.cpp's load_swa_pattern reads them:
/// `attention.sliding_window_pattern` is a flag per layer or a period
/// (families::slidesInPattern), by default the family's.
void readAlternatingWindows(MetadataFields &fields, const std::string &arch,
                            const families::Family &family, ModelSpec &spec) {
  int64_t window = getSize(fields, arch + "attention.sliding_window",
                           family.defaultSlidingWindow);
  std::string patternKey = arch + "attention.sliding_window_pattern";
  const Value *pattern = fields.getFile().lookup(patternKey);
  if (pattern && pattern->getType() == ValueType::Array) {
    std::vector<bool> flags = fields.getBoolArray(patternKey);
    if (static_cast<int64_t>(flags.size()) != spec.numLayers)
      return fields.fail(patternKey, "flags " + llvm::Twine(flags.size()) +
                                         " layers, not " +
                                         llvm::Twine(spec.numLayers));
    return families::setSlidingWindows(
        spec, window, [&](int64_t layer) { return flags[layer]; });
  }
  int64_t period = getSize(fields, patternKey, family.slidingWindowPattern);
  if (period < 0)
    return fields.fail(patternKey, "is negative");
  families::setSlidingWindows(spec, window, [&](int64_t layer) {
    return families::slidesInPattern(layer, period);
  });
}

/// Gemma's features as llama.cpp's gemma2 and gemma3 graphs have them:
/// the embedding scale; norms whose 1 + w the converter stored; the soft
/// caps (gemma2's defaults 50 and 30, gemma3's final cap 0); the sliding
/// layers' rotary base (gemma3: `rope.freq_base_swa`, 10000 by default);
/// and the attention scale llama.cpp derives from the size.
void readGemmaFeatures(MetadataFields &fields, const std::string &arch,
                       const families::Family &family, ModelSpec &spec) {
  spec.embeddingMultiplier = family.getEmbeddingMultiplier(spec.hiddenSize);
  spec.attentionSoftcap = fields.getFloat(arch + "attn_logit_softcapping",
                                          family.defaultAttentionSoftcap);
  spec.finalLogitSoftcap = fields.getFloat(arch + "final_logit_softcapping",
                                           family.defaultFinalLogitSoftcap);
  spec.slidingRopeTheta = fields.getFloat(arch + "rope.freq_base_swa",
                                          family.defaultSlidingRopeTheta);
  if (family.ggufWideScaleLayers > 0 &&
      spec.numLayers == family.ggufWideScaleLayers && spec.numHeads > 0)
    spec.attentionScale = 1.0 / std::sqrt(static_cast<double>(
                                    spec.hiddenSize / spec.numHeads));
}

void readArchitecture(MetadataFields &fields, const std::string &architecture,
                      const families::Family &family, ModelSpec &spec) {
  const std::string arch = architecture + ".";
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

  // Where llama.cpp permuted the Q/K rows so that each rotary pair is two
  // adjacent channels, running with the interleaved pairing on the permuted
  // rows gives the same attention scores as the original model.
  spec.ropePairing =
      family.ggufPermutesQK ? RopePairing::Interleaved : RopePairing::Half;
  spec.hiddenAct = family.activation.str();
  spec.attentionBias = family.hasAttentionBias(
      fields.getFile().findTensor("blk.0.attn_q.bias") != nullptr);
  spec.qkNorm = family.qkNorm;
  // llama.cpp reads phi3's window and then runs full attention; llmc keeps
  // the attention the model was trained with, as from its HF files.
  if (family.slidingWindow == families::SlidingWindowKey::Direct) {
    families::setSlidingWindows(
        spec, getSize(fields, arch + "attention.sliding_window", 0),
        [](int64_t) { return true; });
  }
  if (family.slidingWindow == families::SlidingWindowKey::Alternating)
    readAlternatingWindows(fields, arch, family, spec);
  if (family.scalesEmbedding)
    readGemmaFeatures(fields, arch, family, spec);
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
  std::string architecture = fields.getString("general.architecture");
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  const families::Family *family = families::findGgufFamily(architecture);
  if (!family) {
    fields.fail("general.architecture",
                "'" + architecture + "' is not supported (llmc reads " +
                    families::listGgufArchitectures() + ")");
    return fields.takeError();
  }
  spec.family = family->name.str();
  readArchitecture(fields, architecture, *family, spec);
  size_t tokens = fields.getStringArray("tokenizer.ggml.tokens").size();
  spec.vocabSize = getSize(fields, architecture + ".vocab_size",
                           static_cast<int64_t>(tokens));
  readTokenIds(fields, spec);
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  family->nameGgufTensors(spec);

  llvm::Expected<std::string> tokenizer = buildTokenizerJson(file);
  if (!tokenizer)
    return tokenizer.takeError();
  spec.tokenizerJson = std::move(*tokenizer);
  if (llvm::Error error = spec.validate())
    return std::move(error);
  return spec;
}

} // namespace llmc::gguf
