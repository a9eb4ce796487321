//===- GenerationOptions.h - what eval and run share ------------*- C++ -*-===//
//
// What `llmc eval` and `llmc run` share: the turns (--input-ids), the tokens
// generated per turn (--max-new-tokens), the kernel threads (-j) and the two
// outputs, float32 [generated, vocab] logits as .npy (--logits-out) and the
// ids as JSON {"prompt", "generated", "turns"} (--ids-out). `llmc chat`
// shares --max-new-tokens, -j and --ids-out.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_GENERATIONOPTIONS_H
#define LLMC_TOOLS_LLMC_GENERATIONOPTIONS_H

#include "runtime/session/Generation.h"

#include "llvm/Support/JSON.h"

namespace llmc {

/// One turn per --input-ids, with nothing generated yet (none when the
/// option is absent).
llvm::Expected<std::vector<session::Turn>> getInputTurns();

/// --max-new-tokens, checked to be positive.
llvm::Expected<int64_t> getMaxNewTokens();
/// Whether --max-new-tokens was given.
bool hasMaxNewTokens();
/// --allow-special: special tokens typed in text are read as tokens.
bool getAllowSpecial();

/// --threads, or every hardware thread when it is 0.
unsigned getThreadCount();

/// `error`, with `remedy` added in parentheses to a CacheCapacityError: what
/// the user can do when the conversation outgrows the cache.
llvm::Error explainCapacity(llvm::Error error, llvm::StringRef remedy);

/// The ids JSON of `turns`: {"prompt": all input ids, "generated": all
/// generated ids, "turns": [{"input_ids", "generated"}, ...]}.
llvm::json::Value turnsToJson(llvm::ArrayRef<session::Turn> turns);

/// Writes --logits-out (`logits` holds rows of `vocab` floats) and
/// --ids-out, each when given. Without --ids-out, `printIds` prints the
/// JSON on stdout.
llvm::Error writeGenerationOutputs(llvm::ArrayRef<session::Turn> turns,
                                   llvm::ArrayRef<float> logits, int64_t vocab,
                                   bool printIds);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_GENERATIONOPTIONS_H
