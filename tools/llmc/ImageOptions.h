//===- ImageOptions.h - images given to eval and run ------------*- C++ -*-===//
//
// `llmc eval` and `llmc run` on a vision-language model take images with
// --input-ids whose image placeholders are already expanded:
//   --image F (repeatable)         decoded and preprocessed as the family does
//   --pixel-values F.npy           given pixel values [tiles, 3, S, S] instead
//   --pixel-values-out F.npy       the pixel values of the images, written
//   --vision-embeds-out F.npy      their embeddings [tiles, tokens, hidden]
// Each image's embeddings fill the placeholder tokens of the turns in order.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_IMAGEOPTIONS_H
#define LLMC_TOOLS_LLMC_IMAGEOPTIONS_H

#include "runtime/session/Generation.h"
#include "runtime/vision/ImageEmbedding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace llmc {

/// Whether --image or --pixel-values was given.
bool hasImages();

/// The --image files, decoded, for a text prompt whose chat template places
/// them (`llmc run -p`); --pixel-values and the -out files need
/// --input-ids, so they are an error here.
llvm::Expected<std::vector<vision::Image>> readImagesForText();

/// Runs the model's vision piece on `runner` for every --image and
/// --pixel-values, writes the -out files, and places the embeddings at the
/// tokens of `turns` equal to `placeholderId`. Does nothing without images;
/// an error when the model sees no images (`config` empty) or the
/// placeholders and the embeddings differ in number.
llvm::Error placeImages(session::PieceRunner &runner,
                        const std::optional<vision::VisionConfig> &config,
                        int32_t placeholderId,
                        llvm::MutableArrayRef<session::Turn> turns);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_IMAGEOPTIONS_H
