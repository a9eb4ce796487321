//===- ImagePrompt.h - where an image stands in a prompt --------*- C++ -*-===//
//
// A vision-language prompt holds an image as placeholder tokens, one per
// embedding the vision pieces produce; the runtime expands a chat's image
// marker into them, then writes the image's embeddings at their positions
// before the language model's prefill. The texts follow the official chat
// code of each family.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_IMAGEPROMPT_H
#define LLMC_RUNTIME_VISION_IMAGEPROMPT_H

#include "runtime/vision/Image.h"

#include "absl/types/span.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::vision {

/// InternVL: `<img>`, then `<IMG_CONTEXT>` for each of the
/// `tokensPerTile` embeddings of each tile, then `</img>`
/// (modeling_internvl_chat.py's chat()).
std::string getInternVLImageText(int64_t tiles, int64_t tokensPerTile);

/// MiniCPM-V 2.6: `<image_id>N</image_id>` (with `useImageId`), `<image>`,
/// `queryNum` `<unk>` for the source picture, `</image>`; then for a sliced
/// image each row of the grid as `cols` times `<slice>` + `queryNum`
/// `<unk>` + `</slice>`, rows joined by a newline (processing_minicpmv.py).
std::string getMiniCPMVImageText(int64_t imageId, int64_t queryNum,
                                 std::optional<ImageGrid> grid,
                                 bool useImageId);

/// The marker a chat message writes where an image stands (InternVL's
/// `<image>`).
inline constexpr std::string_view kImageMarker = "<image>";

/// How many times `marker` appears in `text`.
size_t countMarkers(std::string_view text, std::string_view marker);

/// A message about `images` images: `text` as it is, but with `marker` in
/// front on a line of its own when it names no image and there is one (as
/// InternVL's chat() puts it).
std::string addImageMarker(std::string_view text, std::string_view marker,
                           size_t images);

/// `text` with its first `marker` replaced by `image`; the text unchanged
/// when it holds no marker.
std::string expandImageMarker(std::string_view text, std::string_view marker,
                              std::string_view image);

/// The positions of `placeholder` in `ids`, in order: where the image's
/// embeddings go.
std::vector<int64_t> findPlaceholders(absl::Span<const int32_t> ids,
                                      int32_t placeholder);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_IMAGEPROMPT_H
