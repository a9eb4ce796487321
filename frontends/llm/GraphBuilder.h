//===- GraphBuilder.h - a model description into top pieces ----*- C++ -*-===//
//
// The family-independent builder: from a ModelSpec it emits the `top` module
// of every piece of the model, with static shapes fixed by BuildOptions. It
// reads no weights; `top.Weight` ops name the checkpoint's tensors (and the
// rotary tables llmc generates, see RopeTables.h), each with the tensor's
// name as its location so numerical problems trace back to the checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_GRAPHBUILDER_H
#define LLMC_FRONTENDS_LLM_GRAPHBUILDER_H

#include "frontends/llm/Piece.h"
#include "plugins/ModelSpec.h"

#include "llvm/Support/Error.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace llmc::llm {

struct BuildOptions {
  /// S: the KV-cache capacity in tokens (history plus new tokens).
  int64_t seqLength = 512;
  /// L: the tokens one prefill or prefill_kv piece processes; longer
  /// prompts run in chunks.
  int64_t maxInputLength = 128;
  /// W: the recent tokens sample_head's repetition penalty looks at.
  int64_t penaltyWindow = 64;
  /// K: the candidates sample_head keeps (at most the vocabulary size).
  int64_t sampleTopK = 50;
};

class GraphBuilder {
public:
  /// Fails when the options do not fit the model (L > S, S beyond the
  /// model's positions, ...).
  static llvm::Expected<GraphBuilder> create(mlir::MLIRContext &context,
                                             const plugins::ModelSpec &spec,
                                             BuildOptions options);

  /// Every piece of the model in a fixed order: embed.prefill, embed.decode,
  /// block.<i>.{prefill,prefill_kv,decode} per layer, lm_head, greedy_head,
  /// sample_head, and for a vision-language model vision.
  std::vector<std::string> getPieceNames() const;

  /// Builds the piece called `name` (one of getPieceNames()).
  llvm::Expected<Piece> build(llvm::StringRef name) const;

  Piece buildEmbedding(Phase phase) const;
  Piece buildBlock(int64_t layer, Phase phase) const;
  Piece buildLmHead() const;
  Piece buildGreedyHead() const;
  Piece buildSampleHead() const;

  const BuildOptions &getOptions() const { return options; }
  const plugins::ModelSpec &getSpec() const { return spec; }

  /// The token count a block of `phase` processes (L, or 1 for decode), and
  /// the keys it attends over (L, S, or S + 1 for decode).
  int64_t getQueryLength(Phase phase) const;
  int64_t getKeyLength(Phase phase) const;
  /// The cached history slots a block of `phase` reads (0, S - L or S).
  int64_t getHistoryLength(Phase phase) const;
  /// The candidates sample_head returns: K capped at the vocabulary size.
  int64_t getSampleTopK() const;

private:
  GraphBuilder(mlir::MLIRContext &context, const plugins::ModelSpec &spec,
               BuildOptions options)
      : context(&context), spec(spec), options(options) {}

  mlir::MLIRContext *context;
  const plugins::ModelSpec &spec;
  BuildOptions options;
};

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_GRAPHBUILDER_H
