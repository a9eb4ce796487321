//===- HfConfig.h - a Hugging Face checkpoint's description ----*- C++ -*-===//
//
// Turns the JSON files of a Hugging Face checkpoint directory into a
// plugins::ModelSpec for the families of the family table
// (frontends/llm/families), with the checkpoint's tensor names.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_HFCONFIG_H
#define LLMC_FRONTENDS_HF_HFCONFIG_H

#include "plugins/ModelSpec.h"

#include <optional>
#include <string>

namespace llmc::hf {

/// Reads the description of the checkpoint in `directory`: `config.json`
/// (required), and when present `generation_config.json` (its BOS/EOS ids
/// override the config's), `tokenizer_config.json` or `chat_template.jinja`
/// (the chat template) and `tokenizer.json` (kept verbatim). The result is
/// validated; errors name the file and the field.
llvm::Expected<plugins::ModelSpec> readModelSpec(llvm::StringRef directory);

/// Reads what a model directory may hold besides its weights and config:
/// generation defaults (generation_config.json), the chat template
/// (chat_template.jinja or tokenizer_config.json) and tokenizer.json, or
/// without it SentencePiece's tokenizer.model converted to one
/// (SentencePieceModel.h). Absent files leave `spec` as it is. Other frontends that ship a model as a
/// directory (ONNX exports) read the same files.
llvm::Error readCompanionFiles(llvm::StringRef directory,
                               plugins::ModelSpec &spec);

/// A model directory's tokenizer as tokenizer.json text, and the file it
/// comes from.
struct TokenizerJson {
  std::string text;
  std::string file;
};

/// A model directory's tokenizer.json, else its tokenizer.model converted
/// (SentencePieceModel.h); none when it holds neither.
llvm::Expected<std::optional<TokenizerJson>>
readTokenizerJson(llvm::StringRef directory);

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_HFCONFIG_H
