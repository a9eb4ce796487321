//===- InternVision.h - InternVL's vision tower as a top piece --*- C++ -*-===//
//
// InternVL's image embeddings as top ops (modeling_intern_vit.py and
// InternVLChatModel.extract_feature): the patch embedding as a MatMul over
// patches unfolded by Reshape and Permute, the class token and position
// embedding, pre-norm layers whose attention is FAttention without a
// causal mask and whose branches are scaled by the layer scales, then the
// class token dropped, pixel shuffle (ps_version v2) as Reshape and
// Permute, and the mlp1 projector. Weights keep the checkpoint's names.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_INTERNVISION_H
#define LLMC_FRONTENDS_LLM_INTERNVISION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace llmc::llm {

/// config.json's vision_config and the projector's sizes.
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

  /// Patches along a side, and the embeddings a tile gives.
  int64_t getPatchesPerSide() const { return imageSize / patchSize; }
  int64_t getTokensPerTile() const;
};

/// A module whose function `vision` takes `tiles` tiles' pixel values, f32
/// [tiles, 3, imageSize, imageSize] (role pixel_values), and returns their
/// embeddings, f32 [tiles, tokens per tile, llmHiddenSize] (role
/// vision_embeds).
mlir::OwningOpRef<mlir::ModuleOp>
buildInternVisionModule(mlir::MLIRContext &context,
                        const InternVisionSpec &spec, int64_t tiles);

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_INTERNVISION_H
