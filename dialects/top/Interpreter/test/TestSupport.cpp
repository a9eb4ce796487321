//===- TestSupport.cpp - helpers for interpreter tests --------------------===//

#include "dialects/top/Interpreter/test/TestSupport.h"

#include "dialects/top/IR/TopDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace llmc::top::testing {

//===----------------------------------------------------------------------===//
// MemoryWeightSource
//===----------------------------------------------------------------------===//

void MemoryWeightSource::addF32(llvm::StringRef name,
                                llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<float> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  addRaw(name, plugins::WeightType::F32, shape, std::move(bytes));
}

void MemoryWeightSource::addRaw(llvm::StringRef name, plugins::WeightType type,
                                llvm::ArrayRef<int64_t> shape,
                                std::vector<uint8_t> bytes) {
  Stored stored;
  stored.info.type = type;
  stored.info.shape.assign(shape.begin(), shape.end());
  ASSERT_EQ(stored.info.getNumBytes(), static_cast<int64_t>(bytes.size()))
      << "bytes of test weight '" << name.str() << "'";
  stored.bytes = std::move(bytes);
  tensors[name] = std::move(stored);
}

std::vector<std::string> MemoryWeightSource::getTensorNames() const {
  std::vector<std::string> names;
  for (const auto &entry : tensors)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

llvm::Expected<plugins::TensorInfo>
MemoryWeightSource::getTensorInfo(llvm::StringRef name) const {
  auto found = tensors.find(name);
  if (found == tensors.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "test weights: no tensor '%s'",
                                   name.str().c_str());
  return found->second.info;
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
MemoryWeightSource::getTensorData(llvm::StringRef name) const {
  auto found = tensors.find(name);
  if (found == tensors.end())
    return getTensorInfo(name).takeError();
  ++dataReads;
  return llvm::ArrayRef<uint8_t>(found->second.bytes);
}

//===----------------------------------------------------------------------===//
// Parsing and running
//===----------------------------------------------------------------------===//

TestModule::TestModule(llvm::StringRef source)
    : context(std::make_unique<mlir::MLIRContext>()) {
  context->loadDialect<mlir::func::FuncDialect, top::TopDialect>();
  module = std::make_unique<mlir::OwningOpRef<mlir::ModuleOp>>(
      mlir::parseSourceString<mlir::ModuleOp>(source, context.get()));
}

TestModule::~TestModule() = default;

mlir::func::FuncOp TestModule::lookup(llvm::StringRef name) const {
  if (!*module) {
    ADD_FAILURE() << "the test module does not parse";
    return nullptr;
  }
  auto function = (**module).lookupSymbol<mlir::func::FuncOp>(name);
  if (!function)
    ADD_FAILURE() << "the test module has no function @" << name.str();
  return function;
}

std::vector<Tensor> runOk(llvm::StringRef source, llvm::ArrayRef<Tensor> inputs,
                          const plugins::WeightSource &weights,
                          InterpreterOptions options, llvm::StringRef name) {
  TestModule module(source);
  mlir::func::FuncOp function = module.lookup(name);
  if (!function)
    return {};
  Interpreter interpreter(weights, options);
  llvm::Expected<std::vector<Tensor>> results =
      interpreter.run(function, inputs);
  if (!results) {
    ADD_FAILURE() << "run failed: " << toString(results.takeError());
    return {};
  }
  return std::move(*results);
}

std::vector<Tensor> runOk(llvm::StringRef source,
                          llvm::ArrayRef<Tensor> inputs) {
  MemoryWeightSource none;
  return runOk(source, inputs, none);
}

std::string runError(llvm::StringRef source, llvm::ArrayRef<Tensor> inputs,
                     const plugins::WeightSource &weights,
                     InterpreterOptions options, llvm::StringRef name) {
  TestModule module(source);
  mlir::func::FuncOp function = module.lookup(name);
  if (!function)
    return {};
  Interpreter interpreter(weights, options);
  llvm::Expected<std::vector<Tensor>> results =
      interpreter.run(function, inputs);
  if (results) {
    ADD_FAILURE() << "the run was expected to fail";
    return {};
  }
  return toString(results.takeError());
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

void expectNear(const Tensor &tensor, llvm::ArrayRef<int64_t> shape,
                llvm::ArrayRef<float> expected, float tolerance) {
  ASSERT_TRUE(tensor.isF32()) << tensor.describe();
  ASSERT_EQ(tensor.getShape(), shape) << tensor.describe();
  ASSERT_EQ(static_cast<size_t>(tensor.getNumElements()), expected.size());
  for (auto [index, got, want] : llvm::enumerate(tensor.getF32(), expected)) {
    if (std::isinf(want)) {
      EXPECT_EQ(got, want) << "element " << index;
      continue;
    }
    EXPECT_NEAR(got, want, tolerance * std::max(1.0f, std::fabs(want)))
        << "element " << index;
  }
}

void expectInts(const Tensor &tensor, llvm::ArrayRef<int64_t> shape,
                llvm::ArrayRef<int32_t> expected) {
  ASSERT_TRUE(tensor.isI32()) << tensor.describe();
  ASSERT_EQ(tensor.getShape(), shape) << tensor.describe();
  EXPECT_EQ(tensor.getI32(), expected);
}

void expectBitIdentical(const Tensor &lhs, const Tensor &rhs) {
  ASSERT_EQ(lhs.getKind(), rhs.getKind());
  ASSERT_EQ(lhs.getShape(), rhs.getShape());
  EXPECT_EQ(std::memcmp(lhs.getRawData(), rhs.getRawData(),
                        lhs.getNumElements() * Tensor::kElementSize),
            0);
}

std::vector<float> patternValues(int64_t count, uint32_t seed) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 1;
  for (float &value : values) {
    state = state * 1664525u + 1013904223u;
    value = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
  }
  return values;
}

} // namespace llmc::top::testing
