//===- Family.h - what each model family means to the frontends -*- C++ -*-===//
//
// One entry per decoder family llmc builds: the names the checkpoint formats
// give it, which graph features it needs, and how each format names its
// tensors. The Hugging Face, GGUF and ONNX frontends look families up here
// instead of testing family names, so a family is added in one small file
// (Llama.cpp, Qwen2.cpp, ...) and its entry in Families.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_FAMILIES_FAMILY_H
#define LLMC_FRONTENDS_LLM_FAMILIES_FAMILY_H

#include "plugins/ModelSpec.h"
#include "plugins/SlicedWeights.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llmc::families {

/// Where a family's Q/K/V biases come from.
enum class AttentionBias {
  /// Never present.
  None,
  /// Always present, with no config field for them (Qwen2).
  Always,
  /// Present when the config says so (`attention_bias`) or, in GGUF, when
  /// the file has them (llama.cpp loads them when present).
  Optional,
};

/// How a Hugging Face config asks for sliding-window attention.
enum class SlidingWindowKey {
  /// The family has none.
  None,
  /// `use_sliding_window: true` turns `sliding_window` on from layer
  /// `max_window_layers` on (Qwen2); false or absent leaves full attention,
  /// whatever `sliding_window` holds.
  Gated,
  /// `sliding_window` alone: an integer is the window, null none (Mistral).
  Direct,
  /// `sliding_window` in the layers `layer_types` marks
  /// `sliding_attention`, or without it in all but every
  /// `sliding_window_pattern`-th layer (Family::slidingWindowPattern by
  /// default): Gemma's alternation of local and global layers.
  Alternating,
};

struct Family {
  /// ModelSpec::family, and the name binaries record.
  llvm::StringRef name;
  /// config.json `model_type` values that are this family.
  llvm::ArrayRef<llvm::StringLiteral> hfModelTypes;
  /// GGUF `general.architecture` values that are this family. llama.cpp
  /// writes some families as another's architecture (Mistral as `llama`);
  /// those list none and read as that family.
  llvm::ArrayRef<llvm::StringLiteral> ggufArchitectures;
  AttentionBias attentionBias = AttentionBias::None;
  /// Q and K are RMS-normalized per head before the rotary embedding.
  bool qkNorm = false;
  SlidingWindowKey slidingWindow = SlidingWindowKey::None;
  /// config.json flags llmc cannot honour when true (InternLM2's `bias`,
  /// which also puts one on the output projection).
  llvm::ArrayRef<llvm::StringLiteral> refusedHfFlags;
  /// llama.cpp permutes Q/K rows at conversion so each rotary pair is two
  /// adjacent channels: the GGUF file's pairing is interleaved.
  bool ggufPermutesQK = false;
  /// Alternating windows: every this-many-th layer attends globally unless
  /// the checkpoint says otherwise, and the window transformers assumes
  /// when the config has no `sliding_window`.
  int64_t slidingWindowPattern = 0;
  int64_t defaultSlidingWindow = 0;
  /// The MLP activation when the config names none, and always in GGUF
  /// (ModelSpec::hiddenAct: llama.cpp's graph fixes it per architecture).
  llvm::StringRef activation = "silu";
  /// transformers' default for a config without `tie_word_embeddings`.
  bool tiesEmbeddingsByDefault = false;
  /// The defaults transformers' config class gives the keys llmc reads, as
  /// a JSON object, for families whose config.json may omit them (Gemma 3's
  /// nested `text_config` states little more than its sizes); empty where
  /// config.json must state every key.
  llvm::StringRef hfConfigDefaults;

  /// Gemma: the token embedding scaled by sqrt(hidden_size); RMSNorm
  /// weights stored in the HF files as offsets from 1 (llama.cpp's
  /// converter adds the 1); and the transformers defaults of its config
  /// keys (query_pre_attn_scalar, the soft caps, rope_local_base_freq), 0
  /// where a key's absence means none.
  bool scalesEmbedding = false;
  double hfNormWeightOffset = 0.0;
  double defaultQueryPreAttnScalar = 0.0;
  double defaultAttentionSoftcap = 0.0;
  double defaultFinalLogitSoftcap = 0.0;
  double defaultSlidingRopeTheta = 0.0;
  /// llama.cpp does not store query_pre_attn_scalar: it scales by
  /// hidden_size / heads instead of head_dim for its 27B models, which it
  /// recognizes by this layer count (0: never).
  int64_t ggufWideScaleLayers = 0;
  /// Sets the tensor name of every role `spec` uses (after its flags:
  /// attentionBias, qkNorm, tieWordEmbeddings), as the Hugging Face layout
  /// (also the ONNX exports') and GGUF name them.
  void (*nameHfTensors)(plugins::ModelSpec &spec) = nullptr;
  void (*nameGgufTensors)(plugins::ModelSpec &spec) = nullptr;
  /// The parts of the fused tensors a format stores (Phi-3's qkv_proj),
  /// under the names the naming functions give their roles; null where the
  /// format fuses nothing.
  std::vector<plugins::RowSlice> (*getHfSlices)(
      const plugins::ModelSpec &spec) = nullptr;
  std::vector<plugins::RowSlice> (*getGgufSlices)(
      const plugins::ModelSpec &spec) = nullptr;

  /// The factor of the token embedding for a model of `hiddenSize`:
  /// sqrt(hidden_size) for Gemma, else 1.
  double getEmbeddingMultiplier(int64_t hiddenSize) const;

  /// Whether the model has Q/K/V biases, `declared` saying whether the
  /// checkpoint says so (a config flag, tensors present): only an Optional
  /// family heeds it.
  bool hasAttentionBias(bool declared) const {
    return attentionBias == AttentionBias::Always ||
           (attentionBias == AttentionBias::Optional && declared);
  }
};

/// Gives each layer `slides` picks the sliding window `window`
/// (ModelSpec::layerWindows), the others the whole context. Nothing when no
/// layer slides, when the window is no shorter than the context (it changes
/// nothing), or when the layer count is out of range (validate reports it).
void setSlidingWindows(plugins::ModelSpec &spec, int64_t window,
                       llvm::function_ref<bool(int64_t layer)> slides);

/// Whether `layer` slides when every `period`-th layer attends globally
/// (sliding_window_pattern; period 0, as llama.cpp reads it, slides them
/// all).
bool slidesInPattern(int64_t layer, int64_t period);

/// `weights`, with the parts of its fused tensors served as tensors of their
/// own when `getSlices` (a family's getHfSlices or getGgufSlices) is set.
llvm::Expected<std::unique_ptr<plugins::WeightSource>>
sliceFusedTensors(std::unique_ptr<plugins::WeightSource> weights,
                  std::vector<plugins::RowSlice> (*getSlices)(
                      const plugins::ModelSpec &spec),
                  const plugins::ModelSpec &spec);

/// Every family, in the order ONNX's structural match tries them.
llvm::ArrayRef<const Family *> getFamilies();

/// The family a config.json `model_type` or a GGUF architecture names, null
/// for none.
const Family *findHfFamily(llvm::StringRef modelType);
const Family *findGgufFamily(llvm::StringRef architecture);
/// The family named `name` (ModelSpec::family), null for none.
const Family *findFamily(llvm::StringRef name);
/// The first family whose features are `attentionBias` and `qkNorm`: what an
/// ONNX export, which names no family, is read as.
const Family *matchFamily(bool attentionBias, bool qkNorm);

/// "a, b and c": the accepted `model_type`s (and `more`, types a frontend
/// reads around the table's) or architectures, for errors.
std::string listHfModelTypes(llvm::ArrayRef<llvm::StringRef> more = {});
std::string listGgufArchitectures();

/// The names of one layout in one format: a per-layer role's name is
/// `layer` + its entry, `{layer}` standing for the index.
struct TensorNames {
  const char *embedding, *finalNorm, *lmHead, *layer;
  const char *attentionNorm, *query, *key, *value, *output;
  const char *queryBias, *keyBias, *valueBias, *queryNorm, *keyNorm;
  const char *mlpNorm, *gate, *up, *down;
  /// Gemma's norms after attention and after the MLP; null for none.
  const char *postAttentionNorm = nullptr, *postMlpNorm = nullptr;
};

/// Names every role `spec` uses (after its flags: attentionBias, qkNorm,
/// tieWordEmbeddings) as `names` says.
void nameTensors(const TensorNames &names, plugins::ModelSpec &spec);

/// The tensor names of the Llama layout, which the Qwen and Mistral
/// families share and Gemma's extends (LlamaLayout.cpp).
const TensorNames &getLlamaHfNames();
const TensorNames &getLlamaGgufNames();
void nameLlamaHfTensors(plugins::ModelSpec &spec);
void nameLlamaGgufTensors(plugins::ModelSpec &spec);

/// Part `role` of `layer`'s fused tensor, made of `rowRanges`: the role's
/// name is `<fused>:<part>`, its fused tensor the name before the colon.
plugins::RowSlice
slicePart(const plugins::ModelSpec &spec, plugins::TensorRole role,
          int64_t layer, std::vector<std::pair<int64_t, int64_t>> rowRanges);

/// The parts of one fused tensor per layer (slicePart): `roles`, each taking
/// `rows` consecutive rows in order.
std::vector<plugins::RowSlice>
sliceConsecutiveRows(const plugins::ModelSpec &spec,
                     llvm::ArrayRef<plugins::TensorRole> roles,
                     llvm::ArrayRef<int64_t> rows);

/// Gemma's layout: Llama's with norms after attention and the MLP, and
/// what Gemma 2 and 3 share (Gemma2.cpp).
void nameGemmaHfTensors(plugins::ModelSpec &spec);
void nameGemmaGgufTensors(plugins::ModelSpec &spec);
Family makeGemmaFamily();

/// The families' entries (one file each).
const Family &getGemma2Family();
const Family &getGemma3Family();
const Family &getInternLM2Family();
const Family &getLlamaFamily();
const Family &getMistralFamily();
const Family &getPhi3Family();
const Family &getQwen2Family();
const Family &getQwen3Family();

} // namespace llmc::families

#endif // LLMC_FRONTENDS_LLM_FAMILIES_FAMILY_H
