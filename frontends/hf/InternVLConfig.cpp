//===- InternVLConfig.cpp - InternVL's config.json ------------------------===//

#include "frontends/hf/InternVLConfig.h"

#include "frontends/hf/JsonFields.h"

namespace llmc::hf {

llvm::Expected<plugins::InternVisionSpec>
readInternVisionSpec(const llvm::json::Object &config, llvm::StringRef file) {
  const llvm::json::Object *visionConfig = config.getObject("vision_config");
  const llvm::json::Object *llmConfig = config.getObject("llm_config");
  if (!visionConfig || !llmConfig)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": an InternVL config needs 'vision_config' and 'llm_config' "
               "objects");
  JsonFields chat(config, file);
  JsonFields vision(*visionConfig, file, "vision_config.");
  JsonFields llm(*llmConfig, file, "llm_config.");
  plugins::InternVisionSpec spec;
  spec.imageSize = chat.getInt("force_image_size", vision.getInt("image_size"));
  spec.downsampleRatio = chat.getNumber("downsample_ratio", 0.5);
  spec.patchSize = vision.getInt("patch_size");
  spec.hiddenSize = vision.getInt("hidden_size");
  spec.numLayers = vision.getInt("num_hidden_layers");
  spec.numHeads = vision.getInt("num_attention_heads");
  spec.intermediateSize = vision.getInt("intermediate_size");
  spec.layerNormEps = vision.getNumber("layer_norm_eps", 1e-6);
  spec.qkvBias = vision.getBool("qkv_bias", true);
  spec.hiddenAct = vision.getString("hidden_act", "gelu");
  spec.llmHiddenSize = llm.getInt("hidden_size");
  spec.minTiles = chat.getInt("min_dynamic_patch", 1);
  spec.maxTiles = chat.getInt("max_dynamic_patch", 12);
  spec.thumbnail = chat.getBool("use_thumbnail", true);
  spec.chatTemplateName = chat.getString("template", "internvl2_5");
  if (!chat.getBool("dynamic_image_size", true))
    spec.maxTiles = spec.minTiles = 1;
  for (JsonFields *fields : {&chat, &vision, &llm})
    if (llvm::Error error = fields->takeError())
      return std::move(error);
  if (vision.getBool("qk_normalization", false))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": vision_config.qk_normalization (InternViT-6B) is not "
               "supported yet");
  if (std::string version = chat.getString("ps_version", "v2");
      version != "v2")
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": ps_version " + version +
            " is not supported; llmc shuffles pixels as v2 does");
  if (spec.minTiles < 1 || spec.maxTiles < spec.minTiles)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": min_dynamic_patch (" + llvm::Twine(spec.minTiles) +
            ") must be at least 1 and at most max_dynamic_patch (" +
            llvm::Twine(spec.maxTiles) + ")");
  if (spec.imageSize % spec.patchSize != 0 || spec.numHeads <= 0 ||
      spec.hiddenSize % spec.numHeads != 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": vision_config's sizes are inconsistent (image " +
            llvm::Twine(spec.imageSize) + ", patch " +
            llvm::Twine(spec.patchSize) + ", hidden " +
            llvm::Twine(spec.hiddenSize) + ", heads " +
            llvm::Twine(spec.numHeads) + ")");
  return spec;
}

std::string getInternVLChatTemplate(llvm::StringRef name) {
  // internvl2_5: ChatML (separator "<|im_end|>\n") with this system message.
  if (name != "internvl2_5")
    return "";
  return "{% if messages[0]['role'] != 'system' %}<|im_start|>system\n"
         "你是书生·万象，英文名是InternVL，是由上海人工智能实验室、清华大学及多家合作"
         "单位联合开发的多模态大语言模型。<|im_end|>\n{% endif %}"
         "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
         "{{ message['content'] }}<|im_end|>\n{% endfor %}"
         "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
}

} // namespace llmc::hf
