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

#include "frontends/llm/Piece.h"
#include "plugins/ModelSpec.h"

namespace llmc::llm {

/// The piece `vision` of a model with `spec.internVision`: it takes one
/// tile's pixel values, f32 [1, 3, imageSize, imageSize] (role
/// pixel_values), and returns its embeddings, f32 [1, tokens per tile,
/// llmHiddenSize] (role vision_embeds); the runtime runs it once per tile.
Piece buildInternVisionPiece(mlir::MLIRContext &context,
                             const plugins::ModelSpec &spec);

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_INTERNVISION_H
