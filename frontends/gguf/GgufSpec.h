//===- GgufSpec.h - a GGUF file's model description ------------*- C++ -*-===//
//
// Maps the metadata of a GGUF file of architecture `llama`, `qwen2` or
// `qwen3` (the `<arch>.*` hyperparameters and the `tokenizer.*` keys) to a
// plugins::ModelSpec with llama.cpp's tensor names.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_GGUFSPEC_H
#define LLMC_FRONTENDS_GGUF_GGUFSPEC_H

#include "frontends/gguf/GgufFile.h"
#include "plugins/ModelSpec.h"

namespace llmc::gguf {

/// The description of the model in `file`, its tokenizer included
/// (buildTokenizerJson). For `llama`, whose Q/K rows llama.cpp's converter
/// permuted so that rotary pairs are adjacent, the rotary pairing is
/// Interleaved; `qwen2` and `qwen3` keep Hugging Face's Half pairing. The
/// result is validated; errors name the file and the key.
llvm::Expected<plugins::ModelSpec> readModelSpec(const GgufFile &file);

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_GGUFSPEC_H
