//===- ImageOptions.h - images given to eval and run ------------*- C++ -*-===//
//
// `llmc eval` and `llmc run` on a vision-language model take images with
// --input-ids whose image placeholders are already expanded:
//   --image F (repeatable)         decoded and preprocessed as the family does
//   --pixel-values F.npy           given pixel values [tiles, 3, S, S] instead
//   --pixel-values-out F.npy       the pixel values of the images, written
//   --vision-embeds-out F.npy      their embeddings [tiles, tokens, hidden]
// Each image's embeddings fill the placeholder tokens of the turns in order.
// run declares them on CLI11 (addImageOptions), eval on llvm::cl.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_IMAGEOPTIONS_H
#define LLMC_TOOLS_LLMC_IMAGEOPTIONS_H

#include "runtime/session/Generation.h"
#include "runtime/vision/ImageEmbedding.h"

#include "absl/status/statusor.h"

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace llmc {

struct ImageOptions {
  /// --image, in prompt order.
  std::vector<std::string> images;
  /// --pixel-values, after the images.
  std::vector<std::string> pixelValues;
  std::string pixelValuesOut;
  std::string visionEmbedsOut;
};

/// Adds --image, --pixel-values, --pixel-values-out and --vision-embeds-out
/// to `command`.
void addImageOptions(CLI::App &command, ImageOptions &options);

/// Whether --image or --pixel-values was given.
bool hasImages(const ImageOptions &options);

/// The --image files, decoded, for a text prompt whose chat template places
/// them (`llmc run -p`); --pixel-values and the -out files need
/// --input-ids, so they are an error here.
absl::StatusOr<std::vector<vision::Image>>
readImagesForText(const ImageOptions &options);

/// Runs the model's vision piece on `runner` for every --image and
/// --pixel-values, writes the -out files, and places the embeddings at the
/// tokens of `turns` equal to `placeholderId`. Does nothing without images;
/// an error when the model sees no images (`config` empty) or the
/// placeholders and the embeddings differ in number.
absl::Status placeImages(const ImageOptions &options,
                         session::PieceRunner &runner,
                         const std::optional<vision::VisionConfig> &config,
                         int32_t placeholderId,
                         std::vector<session::Turn> &turns);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_IMAGEOPTIONS_H
