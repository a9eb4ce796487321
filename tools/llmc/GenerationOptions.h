//===- GenerationOptions.h - what eval and run share ------------*- C++ -*-===//
//
// What `llmc eval` and `llmc run` share: the turns (--input-ids), the tokens
// generated per turn (--max-new-tokens), the kernel threads (-j) and the two
// outputs, float32 [generated, vocab] logits as .npy (--logits-out) and the
// ids as JSON {"prompt", "generated", "turns"} (--ids-out). `llmc chat`
// shares --max-new-tokens, -j and --ids-out. run and chat declare them on
// CLI11 (addGenerationOptions), eval on llvm::cl (EvalCommand.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_GENERATIONOPTIONS_H
#define LLMC_TOOLS_LLMC_GENERATIONOPTIONS_H

#include "runtime/session/Generation.h"
#include "support/Status.h"

#include "absl/types/span.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace llmc {

struct GenerationOptions {
  /// --input-ids: comma-separated token ids, one turn each.
  std::vector<std::string> inputIds;
  /// --max-new-tokens, when given.
  std::optional<int64_t> maxNewTokens;
  std::string logitsOut;
  std::string idsOut;
  /// -j/--threads; 0: every CPU.
  unsigned threads = 0;
  /// --allow-special: special tokens typed in text are read as tokens.
  bool allowSpecial = false;
};

/// The tokens per turn when --max-new-tokens is not given (eval, run).
constexpr int64_t kDefaultMaxNewTokens = 16;

/// Adds --max-new-tokens, --ids-out, -j/--threads and --allow-special to
/// `command`, and with `withInputIds` --input-ids and --logits-out.
void addGenerationOptions(CLI::App &command, GenerationOptions &options,
                          bool withInputIds);

/// One turn per --input-ids, with nothing generated yet (none when the
/// option is absent).
absl::StatusOr<std::vector<session::Turn>>
getInputTurns(const GenerationOptions &options);

/// --max-new-tokens (16 when not given), checked to be positive.
absl::StatusOr<int64_t> getMaxNewTokens(const GenerationOptions &options);

/// `threads`, or every CPU the process may run on when it is 0.
unsigned getThreadCount(unsigned threads);

/// `error`, with `remedy` added in parentheses to a full KV cache's message
/// (session::cacheCapacityError): what the user can do when the
/// conversation outgrows the cache.
absl::Status explainCapacity(const absl::Status &error,
                             std::string_view remedy);

/// The ids JSON of `turns`: {"prompt": all input ids, "generated": all
/// generated ids, "turns": [{"input_ids", "generated"}, ...]}.
nlohmann::json turnsToJson(absl::Span<const session::Turn> turns);

/// Writes --logits-out (`logits` holds rows of `vocab` floats) and
/// --ids-out, each when given. Without --ids-out, `printIds` prints the
/// JSON on stdout.
absl::Status writeGenerationOutputs(const GenerationOptions &options,
                                    absl::Span<const session::Turn> turns,
                                    absl::Span<const float> logits,
                                    int64_t vocab, bool printIds);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_GENERATIONOPTIONS_H
