//===- InternVLConfig.h - InternVL's config.json ----------------*- C++ -*-===//
//
// InternVLChatModel checkpoints nest their vision tower's settings in
// `vision_config` and their language model's in `llm_config`, beside the
// chat model's own (`force_image_size`, `downsample_ratio`, ...).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_INTERNVLCONFIG_H
#define LLMC_FRONTENDS_HF_INTERNVLCONFIG_H

#include "plugins/ModelSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace llmc::hf {

/// The vision tower and projector sizes of the InternVL config `config`,
/// read from `file`; errors name the file and the field.
llvm::Expected<plugins::InternVisionSpec>
readInternVisionSpec(const llvm::json::Object &config, llvm::StringRef file);

/// The Jinja chat template that writes what InternVL's conversation
/// template `name` (conversation.py, config.json's `template`) writes, for
/// checkpoints whose tokenizer config has none; empty for a template llmc
/// does not know.
std::string getInternVLChatTemplate(llvm::StringRef name);

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_INTERNVLCONFIG_H
