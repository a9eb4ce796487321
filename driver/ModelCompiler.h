//===- ModelCompiler.h - a checkpoint to one .llmc binary -------*- C++ -*-===//
//
// Compiles every piece of a model for a chip backend and merges them into
// one binary (docs/binary-format.md):
//
//   1. lower and place the pieces, in parallel, each in its own context;
//      block pieces whose lowered IR equals an earlier layer's up to the
//      layer index in the weight names get no stream of their own (compile
//      once per distinct layer): theirs is that layer's, relocated to their
//      weights;
//   2. lay out the weights, each once, in first-use order (so the phases of
//      a layer share theirs);
//   3. generate the command streams, in parallel, and cost each distinct
//      one on the cmodel's time model;
//   4. write the manifest, streams, weights and tokenizer atomically.
//
// The output is byte-identical whatever the thread count. Compiling some
// pieces at a time and merging the binaries (BinaryMerge.h) gives the same
// bytes as compiling them all at once.
//
// The driver composes the graph builder (frontends/llm) and a backend, so
// it lives above both: the backends' common engine (backends/common/compile)
// takes top modules, never a checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DRIVER_MODELCOMPILER_H
#define LLMC_DRIVER_MODELCOMPILER_H

#include "backends/common/lowering/LoweringOptions.h"
#include "frontends/llm/GraphBuilder.h"
#include "plugins/Plugin.h"

#include <functional>
#include <string>
#include <vector>

namespace llmc::driver {

/// Where a conversion is, for progress bars.
struct ConvertProgress {
  llvm::StringRef stage;
  llvm::StringRef item;
  int64_t done = 0;
  int64_t total = 0;
};

/// Pins the mode of the pieces whose names match `pattern` (a name or
/// llvm::GlobPattern), above the run's mode, its qtable and the piece's own
/// pin (docs/quantization.md).
struct PieceMode {
  std::string pattern;
  lowering::QuantMode mode = lowering::QuantMode::F32;
};

struct ConvertOptions {
  llm::BuildOptions build;
  lowering::LoweringOptions lowering;
  /// The pieces to compile, by name; empty means every piece. A binary of
  /// some pieces is an input of mergeBinaries (BinaryMerge.h).
  std::vector<std::string> pieces;
  /// Later entries win over earlier ones; each must match some piece of the
  /// model (not necessarily one of `pieces`).
  std::vector<PieceMode> pieceModes;
  /// Threads compiling pieces; 0 means one per hardware thread.
  unsigned threads = 0;
  /// Reuse an earlier layer's streams for a layer whose lowered pieces
  /// equal its.
  bool compileOncePerLayer = true;
  /// Cost every distinct stream on the time model (runs it once on zeros).
  bool modelTime = true;
  std::function<void(const ConvertProgress &)> progress;
};

struct ConvertReport {
  int64_t pieces = 0;
  /// Pieces lowered and generated (the rest were relocated).
  int64_t compiledPieces = 0;
  uint64_t fileBytes = 0;
  uint64_t coeffBytes = 0;
  /// Modelled seconds of one decode step (embedding, every block, lm_head
  /// and greedy head) and of a prefill of L tokens.
  double decodeSeconds = 0;
  double prefillSeconds = 0;
  /// What lowering warned of, each once, sorted (a weight's group size
  /// falling back, say), for the driver to print.
  std::vector<std::string> warnings;
};

/// Compiles `spec` (with `weights`, which must serve derived names) for
/// `backend` into `outputPath`. Nothing is left at `outputPath` on failure.
llvm::Expected<ConvertReport>
convertModel(const plugins::ModelSpec &spec,
             const plugins::WeightSource &weights,
             const plugins::BackendPlugin &backend,
             const ConvertOptions &options, llvm::StringRef outputPath);

} // namespace llmc::driver

#endif // LLMC_DRIVER_MODELCOMPILER_H
