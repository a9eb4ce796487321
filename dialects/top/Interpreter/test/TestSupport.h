//===- TestSupport.h - helpers for interpreter tests -----------*- C++ -*-===//
//
// Parses `top` IR from strings, runs it on in-memory weights, and compares
// results with expectations computed outside llmc (NumPy, float64).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_TEST_TESTSUPPORT_H
#define LLMC_DIALECTS_TOP_INTERPRETER_TEST_TESTSUPPORT_H

#include "dialects/top/Interpreter/Interpreter.h"
#include "plugins/WeightSource.h"

#include "llvm/ADT/StringMap.h"

#include <limits>
#include <memory>

namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace llmc::top::testing {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// Tensors held in memory, stored in any checkpoint type; counts reads so
/// tests can see the interpreter's weight cache at work.
class MemoryWeightSource : public plugins::WeightSource {
public:
  void addF32(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
              llvm::ArrayRef<float> values);
  void addRaw(llvm::StringRef name, plugins::WeightType type,
              llvm::ArrayRef<int64_t> shape, std::vector<uint8_t> bytes);
  /// How many times tensor data was fetched.
  int getDataReads() const { return dataReads; }

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return "test weights"; }

private:
  struct Stored {
    plugins::TensorInfo info;
    std::vector<uint8_t> bytes;
  };
  llvm::StringMap<Stored> tensors;
  mutable int dataReads = 0;
};

/// A module parsed from text, in a context with the func and top dialects.
class TestModule {
public:
  explicit TestModule(llvm::StringRef source);
  ~TestModule();
  /// The function `name`; fails the test when the module did not parse or
  /// has no such function.
  mlir::func::FuncOp lookup(llvm::StringRef name = "main") const;

private:
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<mlir::OwningOpRef<mlir::ModuleOp>> module;
};

/// Runs function `name` of `source`; a failure of the run fails the test and
/// returns no results.
std::vector<Tensor> runOk(llvm::StringRef source, llvm::ArrayRef<Tensor> inputs,
                          const plugins::WeightSource &weights,
                          InterpreterOptions options = {},
                          llvm::StringRef name = "main");
std::vector<Tensor> runOk(llvm::StringRef source,
                          llvm::ArrayRef<Tensor> inputs);

/// The error of running function `name` of `source`; a successful run fails
/// the test.
std::string runError(llvm::StringRef source, llvm::ArrayRef<Tensor> inputs,
                     const plugins::WeightSource &weights,
                     InterpreterOptions options = {},
                     llvm::StringRef name = "main");

/// Expects an F32 tensor of `shape` whose elements are within `tolerance`
/// times max(1, |expected|) of `expected`.
void expectNear(const Tensor &tensor, llvm::ArrayRef<int64_t> shape,
                llvm::ArrayRef<float> expected, float tolerance = 2e-6f);

/// Expects an I32 tensor of `shape` holding `expected`.
void expectInts(const Tensor &tensor, llvm::ArrayRef<int64_t> shape,
                llvm::ArrayRef<int32_t> expected);

/// Expects two tensors with the same kind, shape and bits.
void expectBitIdentical(const Tensor &lhs, const Tensor &rhs);

/// Deterministic pseudo-random values in [-1, 1).
std::vector<float> patternValues(int64_t count, uint32_t seed);

} // namespace llmc::top::testing

#endif // LLMC_DIALECTS_TOP_INTERPRETER_TEST_TESTSUPPORT_H
