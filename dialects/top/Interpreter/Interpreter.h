//===- Interpreter.h - reference interpreter of the top dialect -*- C++ -*-===//
//
// Executes a `top` function on the CPU in float32: the golden model that
// every lowering, every backend and calibration are checked against. Floats
// of any IR width compute as float32 and integers as int32 (see Tensor.h).
// Results do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_INTERPRETER_H
#define LLMC_DIALECTS_TOP_INTERPRETER_INTERPRETER_H

#include "dialects/top/Interpreter/Tensor.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace llmc::plugins {
class WeightSource;
} // namespace llmc::plugins

namespace llmc::top {

class ThreadRunner;

struct InterpreterOptions {
  /// Threads the kernels use, the caller's included; 0 means one per
  /// hardware thread.
  unsigned threads = 0;
  /// Keep weights converted to float32 across runs, since the same pieces
  /// run token after token.
  bool cacheWeights = true;
  /// The most bytes the weight cache holds. Weights met once it is full are
  /// read on every run instead: pieces run in a fixed cycle, so evicting
  /// would only make every later weight miss too.
  uint64_t weightCacheBytes = std::numeric_limits<uint64_t>::max();
  /// Called before each compute op runs, with its operands (null for
  /// none), on the calling thread: calibration gathers activation
  /// statistics here.
  std::function<void(mlir::Operation &, llvm::ArrayRef<const Tensor *>)>
      observeOperands;
  /// Called after each compute op has run, with its results, on the
  /// calling thread: `llmc compare` keeps every op's output here.
  std::function<void(mlir::Operation &, llvm::ArrayRef<const Tensor *>)>
      observeResults;
};

/// Runs `top` functions against the weights of one model. One run at a
/// time: `run` is not reentrant.
class Interpreter {
public:
  Interpreter(const plugins::WeightSource &weights,
              InterpreterOptions options = {});
  ~Interpreter();

  /// Runs `function` (a single block of `top` ops ending in func.return) on
  /// `inputs`, one per argument, with the argument's element kind and
  /// shape. Returns the returned values in order. Unsupported ops or
  /// element types, bad inputs, missing or mis-shaped weights and kernel
  /// failures (such as an out-of-range gather index) are errors naming the
  /// op and its location.
  llvm::Expected<std::vector<Tensor>> run(mlir::func::FuncOp function,
                                          llvm::ArrayRef<Tensor> inputs);

  /// Bytes of float32 weights currently cached.
  uint64_t getCachedWeightBytes() const { return cachedBytes; }
  /// Drops every cached weight.
  void clearWeightCache();

private:
  using TensorRef = std::shared_ptr<const Tensor>;

  /// The tensor `name` of the weight source as `kind` with `shape`, from the
  /// cache when it is there.
  llvm::Expected<TensorRef> loadWeight(llvm::StringRef name, ElementKind kind,
                                       llvm::ArrayRef<int64_t> shape);

  const plugins::WeightSource &weights;
  InterpreterOptions options;
  std::unique_ptr<ThreadRunner> runner;
  llvm::StringMap<TensorRef> weightCache;
  uint64_t cachedBytes = 0;
};

} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_INTERPRETER_INTERPRETER_H
