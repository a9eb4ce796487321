//===- VisionInfo.h - a model's image handling, as a binary states it -*- C++ -*-===//
//
// What a vision-language checkpoint's spec says about images, written as
// the manifest's VisionInfo: the one place that turns a family's settings
// (and its marker and placeholder texts) into what the runtime reads.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_COMPILE_VISIONINFO_H
#define LLMC_BACKENDS_COMMON_COMPILE_VISIONINFO_H

#include "plugins/ModelSpec.h"
#include "runtime/format/llmc_binary.pb.h"

#include <optional>

namespace llmc::compile {

/// The VisionInfo of `spec`; none for a text model.
std::optional<binary::VisionInfo> describeVision(const plugins::ModelSpec &spec);

} // namespace llmc::compile

#endif // LLMC_BACKENDS_COMMON_COMPILE_VISIONINFO_H
