//===- MiniCPMVConfig.cpp - MiniCPM-V's config.json -----------------------===//

#include "frontends/hf/MiniCPMVConfig.h"

#include "frontends/hf/JsonFields.h"

namespace llmc::hf {

llvm::Expected<plugins::MiniCPMVisionSpec>
readMiniCPMVisionSpec(const llvm::json::Object &config, llvm::StringRef file) {
  const llvm::json::Object *visionConfig = config.getObject("vision_config");
  if (!visionConfig)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": a MiniCPM-V config needs a 'vision_config' object");
  static const llvm::json::Object kNoSlicing;
  const llvm::json::Object *sliceConfig = config.getObject("slice_config");
  JsonFields model(config, file);
  JsonFields vision(*visionConfig, file, "vision_config.");
  JsonFields slicing(sliceConfig ? *sliceConfig : kNoSlicing, file,
                     "slice_config.");
  plugins::MiniCPMVisionSpec spec;
  spec.hiddenSize = vision.getInt("hidden_size");
  spec.numLayers = vision.getInt("num_hidden_layers");
  spec.numHeads = vision.getInt("num_attention_heads");
  spec.intermediateSize = vision.getInt("intermediate_size");
  spec.patchSize = vision.getInt("patch_size");
  int64_t imageSize = vision.getInt("image_size");
  spec.layerNormEps = vision.getNumber("layer_norm_eps", 1e-6);
  std::string activation = vision.getString("hidden_act", "gelu_pytorch_tanh");
  spec.queryNum = model.getInt("query_num");
  spec.embedDim = model.getInt("hidden_size");
  spec.scaleResolution = slicing.getInt("scale_resolution", 448);
  spec.maxSlices = slicing.getInt("max_slice_nums", 9);
  spec.useImageId = model.getBool("use_image_id", true);
  double version = model.getNumber("version", 2.6);
  bool sliceMode = model.getBool("slice_mode", true);
  for (JsonFields *fields : {&model, &vision, &slicing})
    if (llvm::Error error = fields->takeError())
      return std::move(error);
  auto refuse = [&](const llvm::Twine &problem) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   file + ": " + problem);
  };
  if (version != 2.6)
    return refuse("MiniCPM-V version " + std::to_string(version) +
                  " is not supported (llmc builds 2.6)");
  if (activation != "gelu_pytorch_tanh")
    return refuse("vision_config.hidden_act '" + activation +
                  "' is not supported (SigLIP's gelu_pytorch_tanh)");
  if (!sliceMode)
    spec.maxSlices = 1;
  if (spec.patchSize <= 0 || imageSize % spec.patchSize != 0 ||
      spec.numHeads <= 0 || spec.hiddenSize % spec.numHeads != 0 ||
      spec.queryNum <= 0 || spec.embedDim % 128 != 0 ||
      spec.scaleResolution < spec.patchSize || spec.maxSlices < 1)
    return refuse("the vision settings are inconsistent (image " +
                  llvm::Twine(imageSize) + ", patch " +
                  llvm::Twine(spec.patchSize) + ", hidden " +
                  llvm::Twine(spec.hiddenSize) + ", heads " +
                  llvm::Twine(spec.numHeads) + ", query_num " +
                  llvm::Twine(spec.queryNum) + ", resampler width " +
                  llvm::Twine(spec.embedDim) + ", scale_resolution " +
                  llvm::Twine(spec.scaleResolution) + ")");
  spec.positionsPerSide = imageSize / spec.patchSize;
  return spec;
}

} // namespace llmc::hf
