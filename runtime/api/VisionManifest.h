//===- VisionManifest.h - a binary's image handling, checked ----*- C++ -*-===//
//
// A vision-language binary's manifest says how images become the vision
// piece's inputs (VisionInfo). A hostile or broken manifest must not size
// huge images or feed the piece inputs it does not take, so the runtime
// reads it only through readVisionConfig, which bounds every size and
// checks the piece's inputs and outputs against them.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_VISIONMANIFEST_H
#define LLMC_RUNTIME_API_VISIONMANIFEST_H

#include "runtime/format/llmc_binary.pb.h"
#include "runtime/vision/ImageEmbedding.h"

#include "absl/status/statusor.h"

#include <vector>

namespace llmc {

/// The shapes of the inputs the vision piece of `config` takes, in order.
std::vector<std::vector<int64_t>>
getVisionInputShapes(const vision::VisionConfig &config);

/// The image handling `info` describes, for a language model of
/// `hiddenSize`; an error (starting "manifest vision:") when a size is out
/// of bounds or the preprocessing is unknown.
absl::StatusOr<vision::VisionConfig>
readVisionInfo(const binary::VisionInfo &info, int64_t hiddenSize);

/// As readVisionInfo of `manifest.vision()`, and an error too when the
/// `vision` piece does not take the family's inputs to tokens_per_tile
/// embeddings of hiddenSize.
absl::StatusOr<vision::VisionConfig>
readVisionConfig(const binary::Manifest &manifest, int64_t hiddenSize);

} // namespace llmc

#endif // LLMC_RUNTIME_API_VISIONMANIFEST_H
