//===- ModelSpec.cpp - what a frontend says about a model -----------------===//

#include "plugins/ModelSpec.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace llmc::plugins {

llvm::StringRef stringifyTensorRole(TensorRole role) {
  switch (role) {
  case TensorRole::TokenEmbedding: return "token_embedding";
  case TensorRole::FinalNorm: return "final_norm";
  case TensorRole::LmHead: return "lm_head";
  case TensorRole::AttentionNorm: return "attention_norm";
  case TensorRole::QueryWeight: return "query_weight";
  case TensorRole::KeyWeight: return "key_weight";
  case TensorRole::ValueWeight: return "value_weight";
  case TensorRole::QueryBias: return "query_bias";
  case TensorRole::KeyBias: return "key_bias";
  case TensorRole::ValueBias: return "value_bias";
  case TensorRole::QueryNorm: return "query_norm";
  case TensorRole::KeyNorm: return "key_norm";
  case TensorRole::OutputWeight: return "output_weight";
  case TensorRole::MlpNorm: return "mlp_norm";
  case TensorRole::GateWeight: return "gate_weight";
  case TensorRole::UpWeight: return "up_weight";
  case TensorRole::DownWeight: return "down_weight";
  case TensorRole::PostAttentionNorm: return "post_attention_norm";
  case TensorRole::PostMlpNorm: return "post_mlp_norm";
  }
  llvm_unreachable("unknown tensor role");
}

llvm::Expected<std::string> ModelSpec::tensorName(TensorRole role,
                                                  int64_t layer) const {
  auto it = tensorNames.find(role);
  if (it == tensorNames.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: the model has no %s tensor",
                                   source.c_str(),
                                   stringifyTensorRole(role).str().c_str());
  std::string name = it->second;
  size_t at = name.find("{layer}");
  if (at != std::string::npos)
    name.replace(at, 7, std::to_string(layer));
  return name;
}

double ModelSpec::getAttentionScale() const {
  return attentionScale > 0
             ? attentionScale
             : 1.0 / std::sqrt(static_cast<double>(headDim));
}

llvm::Error ModelSpec::validate() const {
  auto invalid = [&](const llvm::Twine &problem) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   source + ": " + problem);
  };
  const std::pair<const char *, int64_t> sizes[] = {
      {"hidden_size", hiddenSize},       {"intermediate_size", intermediateSize},
      {"num_hidden_layers", numLayers},  {"num_attention_heads", numHeads},
      {"num_key_value_heads", numKvHeads}, {"head_dim", headDim},
      {"vocab_size", vocabSize},         {"max_position_embeddings", maxPositions},
      {"rotary dimension", rotaryDim}};
  for (auto [name, value] : sizes)
    if (value <= 0)
      return invalid(llvm::Twine(name) + " must be positive, got " +
                     llvm::Twine(value));
  if (numHeads % numKvHeads != 0)
    return invalid("num_attention_heads (" + llvm::Twine(numHeads) +
                   ") is not a multiple of num_key_value_heads (" +
                   llvm::Twine(numKvHeads) + ")");
  if (rotaryDim > headDim || rotaryDim % 2 != 0)
    return invalid("the rotary dimension " + llvm::Twine(rotaryDim) +
                   " must be even and at most head_dim " + llvm::Twine(headDim));
  if (!(rmsNormEps > 0))
    return invalid("rms_norm_eps must be positive");
  if (!(ropeTheta > 0))
    return invalid("rope_theta must be positive");
  const std::pair<const char *, double> nonNegative[] = {
      {"the attention scale", attentionScale},
      {"the attention logit soft cap", attentionSoftcap},
      {"the final logit soft cap", finalLogitSoftcap},
      {"the sliding layers' rope base", slidingRopeTheta}};
  for (auto [name, value] : nonNegative)
    if (!(value >= 0) || !std::isfinite(value))
      return invalid(llvm::Twine(name) + " must be a finite number, 0 or "
                                         "more");
  if (!(embeddingMultiplier > 0) || !std::isfinite(embeddingMultiplier) ||
      !std::isfinite(normWeightOffset))
    return invalid("the embedding multiplier and norm weight offset must be "
                   "finite (the multiplier positive)");
  if (ropeScaling.type != RopeScalingType::None && !(ropeScaling.factor > 0))
    return invalid("rope_scaling.factor must be positive");
  bool perPair = ropeScaling.type == RopeScalingType::PerFrequency ||
                 ropeScaling.type == RopeScalingType::LongRope;
  for (const std::vector<double> *factors :
       {&ropeScaling.frequencyFactors, &ropeScaling.longFrequencyFactors}) {
    if (!perPair ||
        (factors == &ropeScaling.longFrequencyFactors &&
         ropeScaling.type != RopeScalingType::LongRope))
      continue;
    if (static_cast<int64_t>(factors->size()) != rotaryDim / 2)
      return invalid("the rotary frequency factors are " +
                     llvm::Twine(factors->size()) +
                     ", not one per rotary pair (" +
                     llvm::Twine(rotaryDim / 2) + ")");
    if (!llvm::all_of(*factors, [](double factor) { return factor > 0; }))
      return invalid("a rotary frequency factor is not positive");
  }
  if (!(ropeScaling.attentionFactor > 0))
    return invalid("the rotary attention factor must be positive");
  if (numLayers > kMaxLayers)
    return invalid("num_hidden_layers (" + llvm::Twine(numLayers) +
                   ") exceeds llmc's limit of " + llvm::Twine(kMaxLayers));
  if (!layerWindows.empty() &&
      static_cast<int64_t>(layerWindows.size()) != numLayers)
    return invalid("the sliding windows are given for " +
                   llvm::Twine(layerWindows.size()) + " layers, not " +
                   llvm::Twine(numLayers));
  if (llvm::any_of(layerWindows, [](int64_t window) { return window < 0; }))
    return invalid("a sliding window is negative");
  static const char *const activations[] = {"silu", "gelu", "gelu_tanh",
                                            "relu"};
  if (!llvm::is_contained(activations, hiddenAct))
    return invalid("unsupported hidden_act '" + hiddenAct + "'");
  for (TensorRole role :
       {TensorRole::TokenEmbedding, TensorRole::FinalNorm,
        TensorRole::AttentionNorm, TensorRole::QueryWeight,
        TensorRole::KeyWeight, TensorRole::ValueWeight,
        TensorRole::OutputWeight, TensorRole::MlpNorm, TensorRole::GateWeight,
        TensorRole::UpWeight, TensorRole::DownWeight})
    if (!hasTensor(role))
      return invalid("no tensor name for " + stringifyTensorRole(role));
  if (!tieWordEmbeddings && !hasTensor(TensorRole::LmHead))
    return invalid("untied embeddings need an lm_head tensor");
  if (attentionBias && !(hasTensor(TensorRole::QueryBias) &&
                         hasTensor(TensorRole::KeyBias) &&
                         hasTensor(TensorRole::ValueBias)))
    return invalid("attention biases are enabled but not named");
  if (qkNorm &&
      !(hasTensor(TensorRole::QueryNorm) && hasTensor(TensorRole::KeyNorm)))
    return invalid("q/k norms are enabled but not named");
  return llvm::Error::success();
}

llvm::SmallVector<int64_t> getExpectedShape(const ModelSpec &spec,
                                            TensorRole role) {
  int64_t hidden = spec.hiddenSize;
  int64_t queries = spec.numHeads * spec.headDim;
  int64_t keys = spec.numKvHeads * spec.headDim;
  switch (role) {
  case TensorRole::TokenEmbedding:
  case TensorRole::LmHead:
    return {spec.vocabSize, hidden};
  case TensorRole::FinalNorm:
  case TensorRole::AttentionNorm:
  case TensorRole::MlpNorm:
  case TensorRole::PostAttentionNorm:
  case TensorRole::PostMlpNorm:
    return {hidden};
  case TensorRole::QueryWeight:
    return {queries, hidden};
  case TensorRole::KeyWeight:
  case TensorRole::ValueWeight:
    return {keys, hidden};
  case TensorRole::QueryBias:
    return {queries};
  case TensorRole::KeyBias:
  case TensorRole::ValueBias:
    return {keys};
  case TensorRole::QueryNorm:
  case TensorRole::KeyNorm:
    return {spec.headDim};
  case TensorRole::OutputWeight:
    return {hidden, queries};
  case TensorRole::GateWeight:
  case TensorRole::UpWeight:
    return {spec.intermediateSize, hidden};
  case TensorRole::DownWeight:
    return {hidden, spec.intermediateSize};
  }
  llvm_unreachable("unknown tensor role");
}

int64_t InternVisionSpec::getTokensPerTile() const {
  int64_t side = getPatchesPerSide();
  return static_cast<int64_t>(side * side * downsampleRatio * downsampleRatio);
}

int64_t MiniCPMVisionSpec::getMaxPatches() const {
  int64_t side = scaleResolution / patchSize + 1;
  return side * side;
}

} // namespace llmc::plugins
