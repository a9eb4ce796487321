//===- MiniCPMVision.h - MiniCPM-V's vision tower as a top piece -*- C++ -*-===//
//
// MiniCPM-V 2.6's image embeddings as top ops (modeling_navit_siglip.py and
// resampler.py): the patch embedding as a MatMul over the patches of the
// reshape_by_patch layout, position embeddings gathered by the navit
// position ids, pre-norm SigLIP layers whose attention hides the padding
// patches, the post-layernorm, then the perceiver resampler: its queries
// attend over the patches plus their 2-D sin-cos position embeddings, then
// ln_post and `proj`. One statically shaped piece serves every picture of
// up to MiniCPMVisionSpec::getMaxPatches() patches; the runtime pads.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_MINICPMVISION_H
#define LLMC_FRONTENDS_LLM_MINICPMVISION_H

#include "frontends/llm/Piece.h"
#include "plugins/ModelSpec.h"
#include "plugins/WeightSource.h"

namespace llmc::llm {

/// The resampler's attention keeps q, k and v in one in_proj_weight
/// [3E, E] and in_proj_bias [3E], and its `proj` applies as x · P: adds
/// the thirds as `llmc.resampler.{q,k,v}_proj.{weight,bias}` and Pᵀ as
/// `llmc.resampler.proj.weight`, so each is a Linear of its own.
llvm::Error addResamplerProjections(const plugins::ModelSpec &spec,
                                    plugins::OverlayWeightSource &weights);

/// The piece `vision` of a model with `spec.miniCPMVision`, for L =
/// getMaxPatches() patches of side P, Q queries and width E: inputs
/// pixel_values f32 [1, 3, P, L·P], position_ids i32 [1, L], patch_mask
/// [1, L, L], position_embeds [1, L, E], query_mask [1, Q, L]; output
/// vision_embeds [1, Q, E]. The runtime runs it once per picture.
Piece buildMiniCPMVisionPiece(mlir::MLIRContext &context,
                              const plugins::ModelSpec &spec);

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_MINICPMVISION_H
