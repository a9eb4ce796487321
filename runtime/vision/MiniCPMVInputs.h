//===- MiniCPMVInputs.h - one picture as MiniCPM-V's vision input -*- C++ -*-===//
//
// MiniCPM-V's vision piece takes a picture of any size up to L patches,
// padded: its patches in the reshape_by_patch layout, the navit position
// ids of SigLIP's position table (modeling_navit_siglip.py: fractional
// coordinates bucketized into the table's side), masks that hide the
// padding patches from the tower's and the resampler's attention, and the
// resampler's 2-D sin-cos position embedding of each patch (resampler.py:
// get_2d_sincos_pos_embed, in float32 as the official code computes it).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_MINICPMVINPUTS_H
#define LLMC_RUNTIME_VISION_MINICPMVINPUTS_H

#include "dialects/top/Interpreter/Tensor.h"
#include "runtime/vision/Image.h"

#include "support/Status.h"

#include <vector>

namespace llmc::vision {

/// The sizes of a MiniCPM-V vision piece.
struct MiniCPMVPieceSizes {
  int64_t patchSize = 14;
  /// L: the patches the piece takes.
  int64_t maxPatches = 0;
  /// The side of SigLIP's position table, in patches.
  int64_t positionsPerSide = 70;
  /// Q and E: the resampler's queries and their width.
  int64_t queryNum = 64;
  int64_t embedDim = 3584;
};

/// The position ids of a picture of `grid` patches, row-major.
std::vector<int32_t> getNavitPositionIds(ImageGrid grid,
                                         int64_t positionsPerSide);

/// The 2-D sin-cos embedding [rows · cols, width] of `grid`'s patches,
/// row-major: the column index in channels [0, width/2), the row index in
/// the rest, each as sines then cosines.
std::vector<float> get2DSinCosEmbedding(ImageGrid grid, int64_t width);

/// The piece's inputs for picture `index` of `pixels` (f32 [pictures, 3, P,
/// n · P], getPatchedPixels' layout) of `grid` patches: pixel_values,
/// position_ids, patch_mask, position_embeds, query_mask. Fails when the
/// picture has more patches than the piece takes.
absl::StatusOr<std::vector<top::Tensor>>
getMiniCPMVPieceInputs(const top::Tensor &pixels, int64_t index, ImageGrid grid,
                       const MiniCPMVPieceSizes &sizes);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_MINICPMVINPUTS_H
