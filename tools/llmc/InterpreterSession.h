//===- InterpreterSession.h - a conversation on the top interpreter -*- C++ -*-===//
//
// Runs a model's pieces through the reference interpreter in autoregressive
// order, keeping the KV cache between calls: the first prompt through
// prefill (in chunks of L: prefill, then prefill_kv), every later prompt
// through prefill_kv after the history, single tokens through decode. It is
// the golden run that compiled binaries are compared with.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_INTERPRETERSESSION_H
#define LLMC_TOOLS_LLMC_INTERPRETERSESSION_H

#include "dialects/top/Interpreter/Interpreter.h"
#include "frontends/llm/GraphBuilder.h"
#include "frontends/llm/ModelLoading.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace llmc {

/// What a session changes about the model it runs; by default nothing.
struct SessionOverrides {
  /// The weights the interpreter reads instead of the model's.
  const plugins::WeightSource *weights = nullptr;
  /// Rewrites each piece once it is built (e.g. to read derived weights).
  std::function<llvm::Error(llm::Piece &)> preparePiece;
};

class InterpreterSession {
public:
  /// Builds every piece of `model` with `options`; `threads` run each kernel.
  static llvm::Expected<std::unique_ptr<InterpreterSession>>
  create(const LoadedModel &model, llm::BuildOptions options, unsigned threads,
         SessionOverrides overrides = {});

  /// Appends `tokens` to the conversation and returns the logits that
  /// predict the token after them.
  llvm::Expected<std::vector<float>> feed(llvm::ArrayRef<int32_t> tokens);

  /// The greedy choice among `logits`, computed by the greedy_head piece.
  llvm::Expected<int32_t> pickGreedy(llvm::ArrayRef<float> logits);

  /// Tokens whose K/V are in the cache.
  int64_t getHistoryLength() const { return history; }

private:
  InterpreterSession(const LoadedModel &model, llm::BuildOptions options,
                     unsigned threads, const plugins::WeightSource &weights);

  llvm::Expected<std::vector<top::Tensor>> run(llvm::StringRef piece,
                                               llvm::ArrayRef<top::Tensor> inputs);
  /// Runs one chunk of at most L tokens (or one decode token) through every
  /// layer; returns the hidden state of its last token.
  llvm::Expected<std::vector<float>> runChunk(llvm::ArrayRef<int32_t> tokens,
                                              llm::Phase phase);
  top::Tensor cacheSlice(const std::vector<float> &cache, int64_t slots) const;

  const LoadedModel &model;
  llm::BuildOptions options;
  mlir::MLIRContext context;
  std::optional<llm::GraphBuilder> builder;
  llvm::StringMap<llm::Piece> pieces;
  top::Interpreter interpreter;
  /// Per layer, K and V of every cached token: [S, kv_heads, head_dim].
  std::vector<std::vector<float>> cacheK, cacheV;
  int64_t history = 0;
};

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_INTERPRETERSESSION_H
