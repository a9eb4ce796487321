//===- InterpreterSession.h - pieces on the top interpreter -----*- C++ -*-===//
//
// Builds a model's pieces and runs them on the reference interpreter, as a
// PieceRunner under a session::Session, which schedules them (chunked
// prefill, prefill_kv, decode, the KV cache). It is the golden run that
// compiled binaries are compared with.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_INTERPRETERSESSION_H
#define LLMC_TOOLS_LLMC_INTERPRETERSESSION_H

#include "dialects/top/Interpreter/Interpreter.h"
#include "frontends/llm/GraphBuilder.h"
#include "frontends/llm/ModelLoading.h"
#include "runtime/session/Session.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>

namespace llmc {

/// What a session changes about the model it runs; by default nothing.
struct SessionOverrides {
  /// The weights the interpreter reads instead of the model's.
  const plugins::WeightSource *weights = nullptr;
  /// Rewrites each piece once it is built (e.g. to read derived weights).
  std::function<llvm::Error(llm::Piece &)> preparePiece;
  /// Sees the operands of every op the interpreter runs (calibration).
  std::function<void(mlir::Operation &, llvm::ArrayRef<const top::Tensor *>)>
      observeOperands;
};

/// The sizes a session of `spec` built with `options` schedules by.
session::ModelDims getModelDims(const plugins::ModelSpec &spec,
                                const llm::BuildOptions &options);

class InterpreterSession : public session::PieceRunner {
public:
  /// Builds every piece of `model` with `options`; `threads` run each kernel.
  static llvm::Expected<std::unique_ptr<InterpreterSession>>
  create(const LoadedModel &model, llm::BuildOptions options, unsigned threads,
         SessionOverrides overrides = {});

  /// Runs one built piece on the interpreter.
  absl::StatusOr<std::vector<top::Tensor>>
  run(std::string_view piece, absl::Span<const top::Tensor> inputs) override;

  /// The conversation, scheduled onto this runner.
  session::Session &getSession() { return *conversation; }

private:
  llvm::Expected<std::vector<top::Tensor>>
  runPiece(llvm::StringRef piece, llvm::ArrayRef<top::Tensor> inputs);

  InterpreterSession(top::InterpreterOptions options,
                     const plugins::WeightSource &weights);

  mlir::MLIRContext context;
  llvm::StringMap<llm::Piece> pieces;
  top::Interpreter interpreter;
  std::optional<session::Session> conversation;
};

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_INTERPRETERSESSION_H
