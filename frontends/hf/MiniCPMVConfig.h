//===- MiniCPMVConfig.h - MiniCPM-V's config.json ---------------*- C++ -*-===//
//
// MiniCPM-V 2.6 checkpoints (`MiniCPMV`) keep their Qwen2 language model's
// settings at the top level of config.json, beside the vision tower's
// `vision_config` (SigLIP), the resampler's `query_num` and the image
// slicing's `slice_config`.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_MINICPMVCONFIG_H
#define LLMC_FRONTENDS_HF_MINICPMVCONFIG_H

#include "plugins/ModelSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace llmc::hf {

/// The vision tower, resampler and slicing settings of the MiniCPM-V config
/// `config`, read from `file`; errors name the file and the field.
llvm::Expected<plugins::MiniCPMVisionSpec>
readMiniCPMVisionSpec(const llvm::json::Object &config, llvm::StringRef file);

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_MINICPMVCONFIG_H
