//===- VisionInfo.cpp - a model's image handling, as a binary states it ---===//

#include "backends/common/compile/VisionInfo.h"

namespace llmc::compile {

std::optional<binary::VisionInfo>
describeVision(const plugins::ModelSpec &spec) {
  binary::VisionInfo vision;
  if (spec.internVision) {
    const plugins::InternVisionSpec &intern = *spec.internVision;
    vision.set_preprocessing("internvl");
    vision.set_tile_size(intern.imageSize);
    vision.set_min_tiles(intern.minTiles);
    vision.set_max_tiles(intern.maxTiles);
    vision.set_thumbnail(intern.thumbnail);
    vision.set_tokens_per_tile(intern.getTokensPerTile());
    vision.set_placeholder("<IMG_CONTEXT>");
    vision.set_marker("<image>");
    return vision;
  }
  if (spec.miniCPMVision) {
    const plugins::MiniCPMVisionSpec &minicpm = *spec.miniCPMVision;
    vision.set_preprocessing("minicpmv");
    vision.set_tokens_per_tile(minicpm.queryNum);
    vision.set_placeholder("<unk>");
    vision.set_marker("(<image>./</image>)");
    vision.set_scale_resolution(minicpm.scaleResolution);
    vision.set_max_slices(minicpm.maxSlices);
    vision.set_patch_size(minicpm.patchSize);
    vision.set_positions_per_side(minicpm.positionsPerSide);
    vision.set_max_patches(minicpm.getMaxPatches());
    vision.set_use_image_id(minicpm.useImageId);
    return vision;
  }
  return std::nullopt;
}

} // namespace llmc::compile
