//===- HfConfig.cpp - a Hugging Face checkpoint's description -------------===//
//
// Defaults follow the transformers configuration classes of each family
// (LlamaConfig, Qwen2Config, ...), so a config that omits a field means here
// what it means there; the family table (frontends/llm/families) says which
// model types exist and what each needs. Settings llmc cannot honour (MLP
// biases, other RoPE scalings) are errors rather than silently different
// numerics.
//
//===----------------------------------------------------------------------===//

#include "frontends/hf/HfConfig.h"

#include "frontends/hf/SentencePieceModel.h"

#include "frontends/hf/InternVLConfig.h"
#include "frontends/hf/JsonFields.h"
#include "frontends/hf/MiniCPMVConfig.h"
#include "frontends/llm/families/Family.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>

using llmc::plugins::ModelSpec;
using llmc::plugins::RopeScaling;
using llmc::plugins::RopeScalingType;
using llmc::plugins::TensorRole;

namespace llmc::hf {
namespace {

std::string joinPath(llvm::StringRef directory, llvm::StringRef file) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, file);
  return std::string(path);
}

/// Hugging Face activation names (transformers' ACT2FN) in ModelSpec terms.
std::optional<llvm::StringRef> mapActivation(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<llvm::StringRef>>(name)
      .Cases({"silu", "swish"}, "silu")
      .Case("gelu", "gelu")
      .Cases({"gelu_pytorch_tanh", "gelu_new"}, "gelu_tanh")
      .Case("relu", "relu")
      .Default(std::nullopt);
}

/// Phi-3's LongRoPE (`longrope`, earlier `su`): short and long factors, and
/// the magnitude transformers' `_compute_longrope_parameters` gives cos and
/// sin unless the config sets `attention_factor`.
void readLongRope(JsonFields &config, JsonFields &params,
                  const ModelSpec &spec, RopeScaling &scaling) {
  scaling.type = RopeScalingType::LongRope;
  scaling.frequencyFactors = params.getNumberList("short_factor");
  scaling.longFrequencyFactors = params.getNumberList("long_factor");
  scaling.originalMaxPositions =
      params.has("original_max_position_embeddings")
          ? params.getInt("original_max_position_embeddings")
          : config.getInt("original_max_position_embeddings");
  if (scaling.originalMaxPositions <= 1) {
    params.fail("original_max_position_embeddings", "must exceed 1");
    return;
  }
  double factor = static_cast<double>(spec.maxPositions) /
                  static_cast<double>(scaling.originalMaxPositions);
  scaling.attentionFactor =
      params.has("attention_factor") ? params.getNumber("attention_factor")
      : factor <= 1.0
          ? 1.0
          : std::sqrt(1.0 + std::log(factor) /
                                std::log(static_cast<double>(
                                    scaling.originalMaxPositions)));
}

/// The scaling an object of rope parameters (v4's `rope_scaling`, v5's
/// `rope_parameters`, its field names prefixed by `prefix` in messages)
/// selects with its `rope_type` (older configs: `type`). `dynamic` (NTK)
/// scaling changes nothing within max_position_embeddings, which bounds the
/// compiled context.
llvm::Expected<RopeScaling>
readScalingParameters(const llvm::json::Object &object, llvm::StringRef file,
                      llvm::StringRef prefix, JsonFields &config,
                      const ModelSpec &spec) {
  RopeScaling scaling;
  JsonFields params(object, file, prefix);
  llvm::StringRef typeKey =
      !params.has("rope_type") && params.has("type") ? "type" : "rope_type";
  std::string type = params.getString(typeKey);
  if (type == "linear") {
    scaling.type = RopeScalingType::Linear;
    scaling.factor = params.getNumber("factor");
  } else if (type == "llama3") {
    scaling.type = RopeScalingType::Llama3;
    scaling.factor = params.getNumber("factor");
    scaling.lowFreqFactor = params.getNumber("low_freq_factor");
    scaling.highFreqFactor = params.getNumber("high_freq_factor");
    scaling.originalMaxPositions =
        params.getInt("original_max_position_embeddings");
  } else if (type == "longrope" || type == "su") {
    readLongRope(config, params, spec, scaling);
  } else if (type != "default" && type != "dynamic") {
    params.fail(typeKey, "'" + type +
                             "' is not supported (llmc reads linear, llama3, "
                             "longrope and dynamic)");
  }
  if (llvm::Error error = config.takeError())
    return std::move(error);
  if (llvm::Error error = params.takeError())
    return std::move(error);
  return scaling;
}

/// transformers v4's `rope_scaling`: null, or an object of rope parameters.
llvm::Expected<RopeScaling> readRopeScaling(const llvm::json::Object &config,
                                            llvm::StringRef file,
                                            llvm::StringRef prefix,
                                            const ModelSpec &spec) {
  JsonFields fields(config, file, prefix);
  if (!fields.has("rope_scaling"))
    return RopeScaling();
  const llvm::json::Object *object = config.getObject("rope_scaling");
  if (!object) {
    fields.fail("rope_scaling", "must be an object or null");
    return fields.takeError();
  }
  return readScalingParameters(*object, file,
                               (prefix + "rope_scaling.").str(), fields,
                               spec);
}

/// transformers v5's `rope_parameters`, in place of v4's `rope_theta`,
/// `rope_scaling` and `rope_local_base_freq`: one object (`rope_type`,
/// `rope_theta` and the scaling's parameters), or, for models whose layer
/// types rope differently (Gemma 3), one per layer type: `full_attention`
/// and `sliding_attention`, whose rope llmc takes unscaled.
llvm::Error readRopeParameters(const llvm::json::Object &config,
                               llvm::StringRef file, llvm::StringRef prefix,
                               ModelSpec &spec) {
  JsonFields fields(config, file, prefix);
  const llvm::json::Object *parameters = config.getObject("rope_parameters");
  if (!parameters) {
    fields.fail("rope_parameters", "must be an object");
    return fields.takeError();
  }
  std::string fullPrefix = (prefix + "rope_parameters.").str();
  const llvm::json::Object *full = parameters;
  if (parameters->get("full_attention") ||
      parameters->get("sliding_attention")) {
    JsonFields byType(*parameters, file, fullPrefix);
    full = parameters->getObject("full_attention");
    const llvm::json::Object *sliding =
        parameters->getObject("sliding_attention");
    if (!full)
      byType.fail("full_attention", "must be an object");
    else if (parameters->get("sliding_attention") && !sliding)
      byType.fail("sliding_attention", "must be an object");
    if (llvm::Error error = byType.takeError())
      return error;
    if (sliding) {
      JsonFields slidingFields(*sliding, file,
                               fullPrefix + "sliding_attention.");
      spec.slidingRopeTheta = slidingFields.getNumber("rope_theta");
      if (slidingFields.getString("rope_type", "default") != "default")
        slidingFields.fail("rope_type", "must be default (llmc scales the "
                                        "full-attention layers' rope only)");
      if (llvm::Error error = slidingFields.takeError())
        return error;
    }
    fullPrefix += "full_attention.";
  }
  JsonFields fullFields(*full, file, fullPrefix);
  spec.ropeTheta = fullFields.getNumber("rope_theta");
  if (llvm::Error error = fullFields.takeError())
    return error;
  llvm::Expected<RopeScaling> scaling =
      readScalingParameters(*full, file, fullPrefix, fields, spec);
  if (!scaling)
    return scaling.takeError();
  spec.ropeScaling = *scaling;
  return llvm::Error::success();
}

/// BOS/EOS ids from `config.json` or `generation_config.json`; absent or null
/// fields leave what an earlier file set.
void readTokenIds(JsonFields &fields, ModelSpec &spec) {
  spec.bosTokenId = fields.getInt("bos_token_id", spec.bosTokenId);
  std::vector<int64_t> eos = fields.getIntList("eos_token_id");
  if (!eos.empty())
    spec.eosTokenIds = std::move(eos);
}

/// The attention window of each layer the family's config keys give: none
/// unless the family has one and the config turns it on.
void readSlidingWindows(JsonFields &fields, const families::Family &family,
                        ModelSpec &spec) {
  using families::SlidingWindowKey;
  if (family.slidingWindow == SlidingWindowKey::None ||
      (family.slidingWindow == SlidingWindowKey::Gated &&
       !fields.getBool("use_sliding_window", false)))
    return;
  int64_t window = fields.getInt("sliding_window", family.defaultSlidingWindow);
  if (window < 0) {
    fields.fail("sliding_window", "is negative");
    return;
  }
  if (family.slidingWindow == SlidingWindowKey::Direct)
    return families::setSlidingWindows(spec, window,
                                       [](int64_t) { return true; });
  // Gated: transformers slides layer i when i >= max_window_layers;
  // Alternating: all but every sliding_window_pattern-th layer. Newer
  // configs spell the layers out in `layer_types`, which then decides.
  std::vector<std::string> types = fields.getStringList("layer_types");
  if (types.empty() && family.slidingWindow == SlidingWindowKey::Gated) {
    int64_t firstWindowed = fields.getInt("max_window_layers", 28);
    return families::setSlidingWindows(
        spec, window, [&](int64_t layer) { return layer >= firstWindowed; });
  }
  if (types.empty()) {
    int64_t pattern =
        fields.getInt("sliding_window_pattern", family.slidingWindowPattern);
    if (pattern <= 0)
      return fields.fail("sliding_window_pattern", "must be positive");
    return families::setSlidingWindows(spec, window, [&](int64_t layer) {
      return families::slidesInPattern(layer, pattern);
    });
  }
  if (static_cast<int64_t>(types.size()) != spec.numLayers)
    return fields.fail("layer_types", "lists " + llvm::Twine(types.size()) +
                                          " layers, not " +
                                          llvm::Twine(spec.numLayers));
  for (const std::string &type : types)
    if (type != "sliding_attention" && type != "full_attention")
      return fields.fail("layer_types", "holds '" + type +
                                            "' (llmc reads sliding_attention "
                                            "and full_attention)");
  families::setSlidingWindows(spec, window, [&](int64_t layer) {
    return types[layer] == "sliding_attention";
  });
}

/// A soft cap: absent means the family's default, null none.
double readSoftcap(const llvm::json::Object &config, JsonFields &fields,
                   llvm::StringRef key, double familyDefault) {
  if (!config.get(key))
    return familyDefault;
  double cap = fields.getNumber(key, 0.0);
  if (cap < 0)
    fields.fail(key, "is negative");
  return cap;
}

/// Gemma's features: the embedding scale, norms of 1 + w, the attention
/// scale, soft caps and the sliding layers' rotary base, with the family's
/// transformers defaults for absent keys.
void readGemmaFeatures(const llvm::json::Object &config, JsonFields &fields,
                       const families::Family &family, ModelSpec &spec) {
  spec.embeddingMultiplier = family.getEmbeddingMultiplier(spec.hiddenSize);
  spec.normWeightOffset = family.hfNormWeightOffset;
  double scalar = fields.getNumber("query_pre_attn_scalar",
                                   family.defaultQueryPreAttnScalar);
  if (scalar < 0)
    fields.fail("query_pre_attn_scalar", "is negative");
  else if (scalar > 0)
    spec.attentionScale = 1.0 / std::sqrt(scalar);
  spec.attentionSoftcap = readSoftcap(config, fields, "attn_logit_softcapping",
                                      family.defaultAttentionSoftcap);
  spec.finalLogitSoftcap =
      readSoftcap(config, fields, "final_logit_softcapping",
                  family.defaultFinalLogitSoftcap);
  spec.slidingRopeTheta = fields.getNumber("rope_local_base_freq",
                                           family.defaultSlidingRopeTheta);
}

/// `config` with the keys it omits taken from `family`'s transformers
/// defaults.
llvm::json::Object withDefaults(const llvm::json::Object &config,
                                const families::Family &family) {
  llvm::json::Object merged = config;
  if (family.hfConfigDefaults.empty())
    return merged;
  // The defaults are a constant of the family table, valid by construction.
  llvm::json::Value defaults =
      llvm::cantFail(llvm::json::parse(family.hfConfigDefaults));
  for (const auto &[key, value] : *defaults.getAsObject()) {
    const llvm::json::Value *given = merged.get(key);
    if (!given || given->kind() == llvm::json::Value::Null)
      merged[key] = value;
  }
  return merged;
}

/// The language model described by `stated` (config.json, or its
/// `llm_config` or `text_config` when `prefix` says so).
llvm::Error readLanguageModel(const llvm::json::Object &stated,
                              llvm::StringRef file, llvm::StringRef prefix,
                              ModelSpec &spec,
                              std::optional<llvm::StringRef> family = {}) {
  JsonFields statedFields(stated, file, prefix);
  std::string modelType =
      family ? family->str() : statedFields.getString("model_type");
  if (llvm::Error error = statedFields.takeError())
    return error;
  const families::Family *entry = families::findHfFamily(modelType);
  if (!entry) {
    statedFields.fail(
        "model_type",
        "'" + modelType + "' is not supported (llmc reads " +
            families::listHfModelTypes({"internvl_chat", "minicpmv", "gemma3"}) +
            ")");
    return statedFields.takeError();
  }
  llvm::json::Object config = withDefaults(stated, *entry);
  JsonFields fields(config, file, prefix);
  spec.family = entry->name.str();

  spec.hiddenSize = fields.getInt("hidden_size");
  spec.intermediateSize = fields.getInt("intermediate_size");
  spec.numLayers = fields.getInt("num_hidden_layers");
  spec.numHeads = fields.getInt("num_attention_heads");
  spec.numKvHeads = fields.getInt("num_key_value_heads", spec.numHeads);
  spec.vocabSize = fields.getInt("vocab_size");
  spec.maxPositions = fields.getInt("max_position_embeddings");
  spec.headDim = fields.getInt(
      "head_dim", spec.numHeads > 0 ? spec.hiddenSize / spec.numHeads : 0);
  // Phi-3 and others rotate only part of each head.
  spec.rotaryDim = static_cast<int64_t>(
      static_cast<double>(spec.headDim) *
      fields.getNumber("partial_rotary_factor", 1.0));
  spec.ropePairing = plugins::RopePairing::Half;
  spec.rmsNormEps = fields.getNumber("rms_norm_eps", 1e-6);
  spec.ropeTheta = fields.getNumber("rope_theta", 10000.0);
  spec.tieWordEmbeddings =
      fields.getBool("tie_word_embeddings", entry->tiesEmbeddingsByDefault);

  // Gemma names its activation `hidden_activation`.
  llvm::StringRef activationKey =
      fields.has("hidden_activation") ? "hidden_activation" : "hidden_act";
  spec.hiddenAct = entry->activation.str();
  if (fields.has(activationKey)) {
    std::string activation = fields.getString(activationKey);
    if (std::optional<llvm::StringRef> mapped = mapActivation(activation))
      spec.hiddenAct = mapped->str();
    else
      fields.fail(activationKey, "'" + activation + "' is not supported");
  }
  readGemmaFeatures(config, fields, *entry, spec);

  spec.attentionBias =
      entry->hasAttentionBias(fields.getBool("attention_bias", false));
  spec.qkNorm = entry->qkNorm;
  if (fields.getBool("mlp_bias", false))
    fields.fail("mlp_bias", "is not supported (MLP projections without bias)");
  for (llvm::StringRef flag : entry->refusedHfFlags)
    if (fields.getBool(flag, false))
      fields.fail(flag, "is not supported for " + entry->name +
                            " (projections without bias)");
  readSlidingWindows(fields, *entry, spec);

  readTokenIds(fields, spec);
  if (llvm::Error error = fields.takeError())
    return error;
  if (fields.has("rope_parameters")) {
    if (llvm::Error error = readRopeParameters(config, file, prefix, spec))
      return error;
  } else {
    llvm::Expected<RopeScaling> scaling =
        readRopeScaling(config, file, prefix, spec);
    if (!scaling)
      return scaling.takeError();
    spec.ropeScaling = *scaling;
  }
  entry->nameHfTensors(spec);
  return llvm::Error::success();
}

/// InternVLChatModel: the language model in `llm_config`, its tensors under
/// `language_model.`, and the vision tower.
llvm::Error readInternVL(const llvm::json::Object &config, llvm::StringRef file,
                         ModelSpec &spec) {
  llvm::Expected<plugins::InternVisionSpec> vision =
      readInternVisionSpec(config, file);
  if (!vision)
    return vision.takeError();
  // readInternVisionSpec checked that llm_config is an object.
  if (llvm::Error error = readLanguageModel(*config.getObject("llm_config"),
                                            file, "llm_config.", spec))
    return error;
  for (auto &[role, name] : spec.tensorNames)
    name = "language_model." + name;
  spec.internVision = std::move(*vision);
  return llvm::Error::success();
}

/// Gemma3ForConditionalGeneration: Gemma 3's language model in
/// `text_config` (which states little more than its sizes: the rest are
/// Gemma3TextConfig's defaults), its tensors under `language_model.`, as
/// Google's checkpoints store them. The vision tower is not compiled: the
/// binary runs the language model on text.
llvm::Error readGemma3(const llvm::json::Object &config, llvm::StringRef file,
                       ModelSpec &spec) {
  const llvm::json::Object *text = config.getObject("text_config");
  if (!text)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": a gemma3 config needs 'text_config', the language model's "
               "(Gemma3ForConditionalGeneration)");
  if (llvm::Error error = readLanguageModel(*text, file, "text_config.", spec,
                                            llvm::StringRef("gemma3_text")))
    return error;
  for (auto &[role, name] : spec.tensorNames)
    name = "language_model." + name;
  return llvm::Error::success();
}

/// MiniCPMV: a Qwen2 language model at the top level with its tensors under
/// `llm.`, the SigLIP tower and the resampler.
llvm::Error readMiniCPMV(const llvm::json::Object &config, llvm::StringRef file,
                         ModelSpec &spec) {
  llvm::Expected<plugins::MiniCPMVisionSpec> vision =
      readMiniCPMVisionSpec(config, file);
  if (!vision)
    return vision.takeError();
  if (llvm::Error error =
          readLanguageModel(config, file, "", spec, llvm::StringRef("qwen2")))
    return error;
  for (auto &[role, name] : spec.tensorNames)
    name = "llm." + name;
  spec.miniCPMVision = std::move(*vision);
  return llvm::Error::success();
}

llvm::Error readConfig(llvm::StringRef file, ModelSpec &spec) {
  llvm::Expected<llvm::json::Object> config = readJsonObject(file);
  if (!config)
    return config.takeError();
  if (config->getString("model_type") == "internvl_chat")
    return readInternVL(*config, file, spec);
  if (config->getString("model_type") == "minicpmv")
    return readMiniCPMV(*config, file, spec);
  if (config->getString("model_type") == "gemma3")
    return readGemma3(*config, file, spec);
  return readLanguageModel(*config, file, "", spec);
}

llvm::Error readGenerationConfig(llvm::StringRef file, ModelSpec &spec) {
  llvm::Expected<llvm::json::Object> config = readJsonObject(file);
  if (!config)
    return config.takeError();
  JsonFields fields(*config, file);
  readTokenIds(fields, spec);
  return fields.takeError();
}

llvm::Expected<std::string> readText(llvm::StringRef file) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!text)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": cannot read: " + text.getError().message());
  return (*text)->getBuffer().str();
}

/// The tokenizer config's `chat_template`: a string, or a list of named
/// templates of which the one called `default` is what transformers applies.
llvm::Expected<std::string> readChatTemplateField(llvm::StringRef file) {
  llvm::Expected<llvm::json::Object> config = readJsonObject(file);
  if (!config)
    return config.takeError();
  JsonFields fields(*config, file);
  if (const llvm::json::Array *named = config->getArray("chat_template")) {
    for (const llvm::json::Value &entry : *named)
      if (const llvm::json::Object *object = entry.getAsObject())
        if (object->getString("name") == "default")
          if (std::optional<llvm::StringRef> text =
                  object->getString("template"))
            return text->str();
    fields.fail("chat_template", "lists no template named 'default'");
    return fields.takeError();
  }
  std::string chatTemplate = fields.getString("chat_template", "");
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  return chatTemplate;
}

/// The tokenizer config's `eos_token`, which chat templates read: a string,
/// or an AddedToken object whose `content` is one; "" when absent.
llvm::Expected<std::string> readEosTokenField(llvm::StringRef file) {
  llvm::Expected<llvm::json::Object> config = readJsonObject(file);
  if (!config)
    return config.takeError();
  if (const llvm::json::Object *token = config->getObject("eos_token"))
    if (std::optional<llvm::StringRef> content = token->getString("content"))
      return content->str();
  JsonFields fields(*config, file);
  std::string eosToken = fields.getString("eos_token", "");
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  return eosToken;
}

/// Newer transformers releases save the template as `chat_template.jinja`
/// and prefer it over the tokenizer config's field.
llvm::Error readChatTemplate(llvm::StringRef directory, ModelSpec &spec) {
  std::string jinja = joinPath(directory, "chat_template.jinja");
  std::string tokenizerConfig = joinPath(directory, "tokenizer_config.json");
  llvm::Expected<std::string> chatTemplate =
      llvm::sys::fs::exists(jinja) ? readText(jinja)
      : llvm::sys::fs::exists(tokenizerConfig)
          ? readChatTemplateField(tokenizerConfig)
          : std::string();
  if (!chatTemplate)
    return chatTemplate.takeError();
  spec.chatTemplate = std::move(*chatTemplate);
  if (!llvm::sys::fs::exists(tokenizerConfig))
    return llvm::Error::success();
  llvm::Expected<std::string> eosToken = readEosTokenField(tokenizerConfig);
  if (!eosToken)
    return eosToken.takeError();
  spec.chatEosToken = std::move(*eosToken);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<ModelSpec> readModelSpec(llvm::StringRef directory) {
  ModelSpec spec;
  spec.source = directory.str();
  if (llvm::Error error = readConfig(joinPath(directory, "config.json"), spec))
    return std::move(error);
  if (llvm::Error error = readCompanionFiles(directory, spec))
    return std::move(error);
  if (spec.internVision && spec.chatTemplate.empty())
    spec.chatTemplate =
        getInternVLChatTemplate(spec.internVision->chatTemplateName);
  if (llvm::Error error = spec.validate())
    return std::move(error);
  return spec;
}

llvm::Error readCompanionFiles(llvm::StringRef directory, ModelSpec &spec) {
  std::string generation = joinPath(directory, "generation_config.json");
  if (llvm::sys::fs::exists(generation))
    if (llvm::Error error = readGenerationConfig(generation, spec))
      return error;

  if (llvm::Error error = readChatTemplate(directory, spec))
    return error;

  llvm::Expected<std::optional<TokenizerJson>> tokenizer =
      readTokenizerJson(directory);
  if (!tokenizer)
    return tokenizer.takeError();
  if (*tokenizer)
    spec.tokenizerJson = std::move((*tokenizer)->text);
  return llvm::Error::success();
}

llvm::Expected<std::optional<TokenizerJson>>
readTokenizerJson(llvm::StringRef directory) {
  std::string file = joinPath(directory, "tokenizer.json");
  bool isJson = llvm::sys::fs::exists(file);
  // InternLM2 and InternVL2 ship SentencePiece's model alone.
  if (!isJson)
    file = joinPath(directory, "tokenizer.model");
  if (!isJson && !llvm::sys::fs::exists(file))
    return std::nullopt;
  llvm::Expected<std::string> text =
      isJson ? readText(file) : convertSentencePieceModel(file);
  if (!text)
    return text.takeError();
  return TokenizerJson{std::move(*text), std::move(file)};
}

} // namespace llmc::hf
