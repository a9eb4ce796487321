//===- PieceRunner.h - something that runs a model's pieces -----*- C++ -*-===//
//
// The one thing a Session needs from a device: run a named piece
// (docs/pieces.md) on host tensors. The reference interpreter, the cmodel
// running a compiled binary, and test fakes all implement it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_PIECERUNNER_H
#define LLMC_RUNTIME_SESSION_PIECERUNNER_H

#include "dialects/top/Interpreter/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace llmc::session {

class PieceRunner {
public:
  virtual ~PieceRunner();

  /// Runs piece `piece` on `inputs`, given in the piece's argument order,
  /// and returns its outputs in result order. Errors name the piece.
  virtual llvm::Expected<std::vector<top::Tensor>>
  run(llvm::StringRef piece, llvm::ArrayRef<top::Tensor> inputs) = 0;
};

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_PIECERUNNER_H
