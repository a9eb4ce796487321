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

#include <vector>

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
  /// Shorter chunk lengths whose embedding, prefill and prefill_kv pieces
  /// are built beside L's, ascending, each below L
  /// (pieces/ChunkLengths.h): a chunk runs in the shortest that holds it.
  std::vector<int64_t> prefillLengths;
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

  /// Every piece of the model in a fixed order: embed.prefill (then its
  /// shorter lengths, embed.prefill.<n>), embed.decode, per layer
  /// block.<i>.prefill, block.<i>.prefill.<n>, block.<i>.prefill_kv,
  /// block.<i>.prefill_kv.<n>, block.<i>.decode, then lm_head, greedy_head,
  /// sample_head, and for a vision-language model vision.
  std::vector<std::string> getPieceNames() const;

  /// Builds the piece called `name` (one of getPieceNames()).
  llvm::Expected<Piece> build(llvm::StringRef name) const;

  /// The embedding or block of `phase` for chunks of `length` tokens (L or
  /// one of the prefill lengths; decode ignores it).
  Piece buildEmbedding(Phase phase, int64_t length) const;
  Piece buildBlock(int64_t layer, Phase phase, int64_t length) const;
  Piece buildLmHead() const;
  Piece buildGreedyHead() const;
  Piece buildSampleHead() const;

  const BuildOptions &getOptions() const { return options; }
  const plugins::ModelSpec &getSpec() const { return spec; }

  /// The token count a block of `phase` for chunks of `length` processes
  /// (`length`, or 1 for decode), and the keys it attends over (`length`,
  /// S, or S + 1 for decode).
  int64_t getQueryLength(Phase phase, int64_t length) const;
  int64_t getKeyLength(Phase phase, int64_t length) const;
  /// The cached history slots a block of `phase` reads (0, S - `length` or
  /// S).
  int64_t getHistoryLength(Phase phase, int64_t length) const;
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
