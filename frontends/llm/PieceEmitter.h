//===- PieceEmitter.h - builds the function of one piece -------*- C++ -*-===//
//
// A thin layer over OpBuilder for the graph builder: it creates the piece's
// function, turns declared inputs into arguments wrapped in `top.Input`,
// names weights by role, and records IO roles and weight names in the Piece.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_PIECEEMITTER_H
#define LLMC_FRONTENDS_LLM_PIECEEMITTER_H

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/Piece.h"
#include "plugins/ModelSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace llmc::llm {

class PieceEmitter {
public:
  PieceEmitter(mlir::MLIRContext &context, const plugins::ModelSpec &spec,
               Piece &piece);

  mlir::OpBuilder &getBuilder() { return builder; }
  /// A location named `name`, for ops that are not a checkpoint tensor.
  mlir::Location loc(const llvm::Twine &name);

  mlir::RankedTensorType f32Type(llvm::ArrayRef<int64_t> shape);
  mlir::RankedTensorType i32Type(llvm::ArrayRef<int64_t> shape);

  /// Adds a function argument of `role` and returns its `top.Input`.
  mlir::Value input(IORole role, llvm::ArrayRef<int64_t> shape,
                    bool isInteger = false);
  /// A `top.Weight` of the checkpoint tensor of `role` in `layer`, located
  /// at the tensor's name.
  mlir::Value weight(plugins::TensorRole role, int64_t layer,
                     llvm::ArrayRef<int64_t> shape);
  /// A `top.Weight` of any named tensor (generated tables), marked with how
  /// the checkpoint stores it when it is stored quantized.
  mlir::Value namedWeight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape);
  /// The weight of `role` when the model has it, else `top.None`.
  mlir::Value optionalWeight(plugins::TensorRole role, int64_t layer,
                             llvm::ArrayRef<int64_t> shape);
  mlir::Value none();

  /// The location of the op that applies the weight of `role`: the tensor's
  /// name without its `.weight`/`.bias` suffix.
  mlir::Location locOf(plugins::TensorRole role, int64_t layer);

  /// Appends `value` as a result of the piece with `role`.
  void output(IORole role, mlir::Value value);
  /// Terminates the function and fixes its type.
  void finish();
  /// Pins the mode the piece computes in whatever the conversion's
  /// quantization mode (`F32`), as the function's `llmc.mode` attribute.
  void pinMode(llvm::StringRef mode);
  /// Makes the piece compute in the binary's float type unless a pin or the
  /// qtable choose otherwise (the `llmc.float_by_default` unit attribute).
  void computeInFloatByDefault();

private:
  top::StoredQuantAttr
  getStoredQuantAttr(const plugins::StoredQuantization &stored);

  mlir::MLIRContext *context;
  const plugins::ModelSpec &spec;
  Piece &piece;
  mlir::OpBuilder builder;
  mlir::func::FuncOp function;
  llvm::SmallVector<mlir::Value> results;
  mlir::Value noneValue;
};

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_PIECEEMITTER_H
