//===- SentencePieceModel.h - tokenizer.model as tokenizer.json -*- C++ -*-===//
//
// Checkpoints whose tokenizer is SentencePiece's own model file
// (`tokenizer.model`: InternLM2 and InternVL2, older Llama and Mistral
// repositories) and no tokenizer.json. llmc converts the model to the
// tokenizer.json transformers' converters write (convert_slow_tokenizer.py),
// so the one tokenizer.json reader serves it:
//   BPE      the vocabulary in piece order; the merges of every piece's
//            splits into two pieces, ordered by the merged piece's score
//            (highest first), as SentencePieceExtractor orders them;
//            byte_fallback as the model says
//   Unigram  the pieces with their scores, unk_id, byte_fallback
// and the normalizer SentencePiece applies: spaces trimmed and collapsed
// when remove_extra_whitespaces is set, "▁" prepended (add_dummy_prefix),
// spaces escaped to "▁". Control and unknown pieces (<s>, </s>, <unk>)
// become special added tokens; the decoder undoes the escaping and the
// byte fallback. Models that need a precompiled normalization map (nmt_nfkc)
// or are of the word or char type are refused with an error.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_SENTENCEPIECEMODEL_H
#define LLMC_FRONTENDS_HF_SENTENCEPIECEMODEL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llmc::hf {

/// The tokenizer.json text of the SentencePiece model file `path`.
llvm::Expected<std::string> convertSentencePieceModel(llvm::StringRef path);

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_SENTENCEPIECEMODEL_H
