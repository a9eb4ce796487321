//===- ModelSpec.h - what a frontend says about a model --------*- C++ -*-===//
//
// The family-independent description of a decoder-only transformer that a
// frontend plugin produces and the LLM graph builder consumes: dimensions,
// normalization and rotary-embedding settings, the checkpoint's tensor names,
// and what the runtime needs besides the graph (tokenizer, chat template,
// generation defaults).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PLUGINS_MODELSPEC_H
#define LLMC_PLUGINS_MODELSPEC_H

#include "plugins/WeightSource.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llmc::plugins {

/// How positions are rescaled before the rotary angles are computed (the
/// `rope_scaling.rope_type` of a Hugging Face config).
enum class RopeScalingType {
  None,
  Linear,
  Llama3,
  /// One factor per rotary pair divides its frequency (the factors
  /// llama.cpp stores in a GGUF's `rope_freqs.weight`).
  PerFrequency,
  /// Phi-3's LongRoPE: per-pair factors, one set for contexts up to
  /// originalMaxPositions and one beyond (chosen by the compiled context,
  /// as llama.cpp chooses by its context), and cos and sin scaled by
  /// attentionFactor.
  LongRope,
};

struct RopeScaling {
  RopeScalingType type = RopeScalingType::None;
  double factor = 1.0;
  /// Llama 3 only: the band of wavelengths that is interpolated smoothly.
  double lowFreqFactor = 1.0;
  double highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
  /// PerFrequency and LongRope (its short factors): rotaryDim / 2 positive
  /// factors.
  std::vector<double> frequencyFactors;
  /// LongRope only: the factors beyond originalMaxPositions, and the
  /// magnitude of cos and sin.
  std::vector<double> longFrequencyFactors;
  double attentionFactor = 1.0;
};

/// How a rotary embedding pairs channels in the checkpoint's Q/K layout.
enum class RopePairing {
  /// Channel i with i + d/2 (Hugging Face rotate_half).
  Half,
  /// Channel 2i with 2i + 1 (llama.cpp's permuted Llama Q/K rows, GPT-J).
  Interleaved,
};

/// The role of a checkpoint tensor in the graph; `TensorNames` maps each to a
/// name pattern in which `{layer}` stands for the layer index.
enum class TensorRole {
  TokenEmbedding,
  FinalNorm,
  LmHead,
  AttentionNorm,
  QueryWeight,
  KeyWeight,
  ValueWeight,
  QueryBias,
  KeyBias,
  ValueBias,
  QueryNorm,
  KeyNorm,
  OutputWeight,
  MlpNorm,
  GateWeight,
  UpWeight,
  DownWeight,
  /// Gemma's norms of the attention output and of the MLP output, before
  /// each joins the residual.
  PostAttentionNorm,
  PostMlpNorm,
};

/// The stable lower-case name of a role (`query_weight`), for messages.
llvm::StringRef stringifyTensorRole(TensorRole role);

/// InternVL's vision tower (InternViT) and mlp1 projector: config.json's
/// vision_config, downsample_ratio and the language model's hidden size.
struct InternVisionSpec {
  int64_t imageSize = 448;
  int64_t patchSize = 14;
  int64_t hiddenSize = 1024;
  int64_t numLayers = 24;
  int64_t numHeads = 16;
  int64_t intermediateSize = 4096;
  double layerNormEps = 1e-6;
  bool qkvBias = true;
  /// `gelu` (erf) or `gelu_pytorch_tanh`.
  std::string hiddenAct = "gelu";
  /// downsample_ratio: 0.5 joins 2 x 2 patches into one embedding.
  double downsampleRatio = 0.5;
  /// The language model's hidden size, which mlp1 projects to.
  int64_t llmHiddenSize = 896;
  /// How the runtime tiles an image (min_dynamic_patch, max_dynamic_patch,
  /// use_thumbnail).
  int64_t minTiles = 1;
  int64_t maxTiles = 12;
  bool thumbnail = true;
  /// The chat model's `template` (`internvl2_5`, `Hermes-2`, ...).
  std::string chatTemplateName;

  /// Patches along a side, and the embeddings a tile gives.
  int64_t getPatchesPerSide() const { return imageSize / patchSize; }
  int64_t getTokensPerTile() const;
};

/// MiniCPM-V 2.6's vision tower (SigLIP with navit position ids) and
/// perceiver resampler: config.json's vision_config, query_num and
/// slice_config.
struct MiniCPMVisionSpec {
  /// SigLIP.
  int64_t hiddenSize = 1152;
  int64_t numLayers = 27;
  int64_t numHeads = 16;
  int64_t intermediateSize = 4304;
  int64_t patchSize = 14;
  /// vision_config.image_size / patch_size: the position table is this
  /// many patches a side.
  int64_t positionsPerSide = 70;
  double layerNormEps = 1e-6;
  /// The resampler: queries, each of the language model's hidden size.
  int64_t queryNum = 64;
  int64_t embedDim = 3584;
  /// How the runtime slices an image (slice_config), and whether a prompt
  /// numbers its images (use_image_id).
  int64_t scaleResolution = 448;
  int64_t maxSlices = 9;
  bool useImageId = true;

  /// Heads of the resampler's attention (embed_dim / 128, as resampler.py).
  int64_t getResamplerHeads() const { return embedDim / 128; }
  /// Patches the vision piece takes at most: a picture's are about
  /// (scale_resolution / patch)², rounding each side to whole patches adds
  /// at most one row and one column.
  int64_t getMaxPatches() const;
};

struct ModelSpec {
  /// More layers than any real model has; validate refuses them, and
  /// frontends size nothing by a larger count.
  static constexpr int64_t kMaxLayers = 1 << 12;

  /// The checkpoint's model family (frontends/llm/families: `llama`,
  /// `qwen2`, ...).
  std::string family;
  /// Where the model came from, for messages (a directory or a file).
  std::string source;

  int64_t hiddenSize = 0;
  int64_t intermediateSize = 0;
  int64_t numLayers = 0;
  int64_t numHeads = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  int64_t vocabSize = 0;
  int64_t maxPositions = 0;
  double rmsNormEps = 1e-6;

  double ropeTheta = 10000.0;
  RopeScaling ropeScaling;
  RopePairing ropePairing = RopePairing::Half;
  /// Channels of each head that rotate (head_dim unless partial rotary).
  int64_t rotaryDim = 0;

  /// Q/K/V projections carry biases (Qwen2).
  bool attentionBias = false;
  /// Q and K are RMS-normalized per head before the rotary embedding (Qwen3).
  bool qkNorm = false;
  /// Every RMSNorm multiplies by normWeightOffset + w: Gemma's Hugging Face
  /// checkpoints store w about 0 (offset 1), llama.cpp's converter stores
  /// 1 + w (offset 0).
  double normWeightOffset = 0.0;
  /// The token embedding is multiplied by this before the first layer
  /// (Gemma: sqrt(hidden_size)).
  double embeddingMultiplier = 1.0;
  /// The factor of q k^T; 0 for 1 / sqrt(head_dim) (Gemma:
  /// query_pre_attn_scalar^-1/2).
  double attentionScale = 0.0;
  /// Soft caps, c * tanh(x / c), of the attention scores before the mask
  /// and of the logits (Gemma 2); 0 for none.
  double attentionSoftcap = 0.0;
  double finalLogitSoftcap = 0.0;
  /// When positive, the rotary base of the layers with a sliding window,
  /// which then take no rope scaling (Gemma 3's rope_local_base_freq); the
  /// other layers keep ropeTheta and ropeScaling.
  double slidingRopeTheta = 0.0;
  /// Per layer, the positions each query attends to at most, its own
  /// included (a sliding window: Mistral's `sliding_window` in every layer,
  /// Qwen2's from max_window_layers on); 0 for the whole context. Empty
  /// when no layer has a window.
  std::vector<int64_t> layerWindows;
  /// The LM head reuses the token embedding (no separate tensor).
  bool tieWordEmbeddings = false;
  /// `silu`, `gelu`, `gelu_tanh` or `relu`.
  std::string hiddenAct = "silu";

  /// A vision-language model's vision tower (InternVL): the graph builder
  /// adds a `vision` piece, the runtime places its embeddings where the
  /// prompt's image placeholders stand.
  std::optional<InternVisionSpec> internVision;
  /// MiniCPM-V's vision tower and resampler: a `vision` piece too.
  std::optional<MiniCPMVisionSpec> miniCPMVision;

  /// Tensor name pattern per role; roles a model does not use are absent.
  std::map<TensorRole, std::string> tensorNames;
  /// The weights the checkpoint stores quantized, by tensor name: they
  /// compile without requantization (see WeightSource).
  std::map<std::string, StoredQuantization> storedQuantization;
  /// The checkpoint's author quantized it (a quantization_config) and left
  /// the weights it stores in float so on purpose (GPTQ's `lm_head: false`,
  /// AWQ's `modules_to_not_convert`, compressed-tensors' `ignore`):
  /// weight-only modes keep those float unless a qtable says otherwise.
  bool floatWeightsByChoice = false;

  /// Generation defaults and tokenizer data for the runtime.
  std::vector<int64_t> eosTokenIds;
  int64_t bosTokenId = -1;
  std::string chatTemplate;
  /// The eos_token the chat template reads, when the checkpoint names one
  /// apart from its stop tokens (a tokenizer config's `eos_token`).
  std::string chatEosToken;
  /// The tokenizer as the checkpoint ships it (`tokenizer.json` text).
  std::string tokenizerJson;

  /// The factor of q k^T (attentionScale, or 1 / sqrt(head_dim)).
  double getAttentionScale() const;
  /// Whether `layer` has a sliding window.
  bool hasWindow(int64_t layer) const {
    return !layerWindows.empty() && layerWindows[layer] > 0;
  }

  /// The checkpoint name of `role` in `layer` (ignored for model-wide roles);
  /// an error when the model has no tensor of that role.
  llvm::Expected<std::string> tensorName(TensorRole role, int64_t layer = 0) const;
  bool hasTensor(TensorRole role) const { return tensorNames.count(role); }

  /// Checks dimensions for consistency (heads divide, positive sizes, ...);
  /// the message names `source`.
  llvm::Error validate() const;
};

/// The row-major shape `spec` implies for a tensor of `role`; linear weights
/// are [out, in] (Hugging Face's layout, and GGUF's once ggml's dimension
/// order is reversed).
llvm::SmallVector<int64_t> getExpectedShape(const ModelSpec &spec,
                                            TensorRole role);

} // namespace llmc::plugins

#endif // LLMC_PLUGINS_MODELSPEC_H
