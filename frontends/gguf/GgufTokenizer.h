//===- GgufTokenizer.h - a GGUF tokenizer as tokenizer.json -----*- C++ -*-===//
//
// GGUF files carry their tokenizer as `tokenizer.ggml.*` metadata; llmc's
// runtime reads Hugging Face `tokenizer.json`. This translates one into the
// other for the two models LLM checkpoints use:
//
//  - `gpt2`: byte-level BPE. Vocabulary and merges as stored; the
//    pre-tokenizer that `tokenizer.ggml.pre` names, as the family's
//    tokenizer.json has it: `qwen2`, `qwen35`, `llama-bpe`, `gpt-2` (and
//    `default`, `mpt`, `olmo`, `jais`, `trillion`, which split as GPT-2
//    does), `starcoder` (and `refact`, `command-r`, `smollm`, `codeshell`,
//    `exaone`, `minerva`: digits apart, then GPT-2's split),
//    `deepseek-coder`, `deepseek-llm` and `falcon`.
//  - `llama`: SentencePiece-style BPE with byte fallback (`<0x41>` tokens).
//    GGUF stores token scores instead of merges; the merges are derived from
//    them as transformers does when converting a SentencePiece model.
//
// Control, unknown and user-defined tokens become `added_tokens` (special
// except user-defined ones); `tokenizer.ggml.add_bos_token`/`add_eos_token`
// become a TemplateProcessing post-processor.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_GGUFTOKENIZER_H
#define LLMC_FRONTENDS_GGUF_GGUFTOKENIZER_H

#include "frontends/gguf/GgufFile.h"

#include <string>

namespace llmc::gguf {

/// The `tokenizer.json` text of `file`'s tokenizer; empty when the file has
/// none (no `tokenizer.ggml.model`, or `none`). Errors name the file and the
/// key.
llvm::Expected<std::string> buildTokenizerJson(const GgufFile &file);

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_GGUFTOKENIZER_H
