//===- Interpreter.cpp - reference interpreter of the top dialect ---------===//

#include "dialects/top/Interpreter/Interpreter.h"

#include "dialects/top/IR/TopOps.h"
#include "dialects/top/Interpreter/OpDispatch.h"
#include "dialects/top/Interpreter/Parallel.h"
#include "plugins/WeightSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <optional>

using namespace mlir;

namespace llmc::top {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `'top.MatMul' at loc("model.layers.0.mlp"): <message>`.
static llvm::Error opError(Operation &op, const llvm::Twine &message) {
  std::string where;
  llvm::raw_string_ostream os(where);
  os << "'" << op.getName() << "' at " << op.getLoc();
  return makeError(where + ": " + message);
}

static std::string printType(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// How the interpreter holds values of `type`, if it can.
static std::optional<ElementKind> getKindOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  Type element = tensor.getElementType();
  if (isa<FloatType>(element))
    return ElementKind::F32;
  if (auto integer = dyn_cast<IntegerType>(element))
    if (integer.isSignless() && integer.getWidth() <= 64)
      return ElementKind::I32;
  return std::nullopt;
}

/// Whether `tensor` is a value of `type` (dynamic dimensions match any size).
static bool matchesType(const Tensor &tensor, Type type) {
  std::optional<ElementKind> kind = getKindOf(type);
  if (!kind || *kind != tensor.getKind())
    return false;
  llvm::ArrayRef<int64_t> shape = cast<RankedTensorType>(type).getShape();
  if (static_cast<int64_t>(shape.size()) != tensor.getRank())
    return false;
  for (auto [declared, actual] : llvm::zip(shape, tensor.getShape()))
    if (!ShapedType::isDynamic(declared) && declared != actual)
      return false;
  return true;
}

/// Converts stored integers to int32, rejecting values that do not fit.
static llvm::Error convertToI32(const plugins::TensorInfo &info,
                                llvm::ArrayRef<uint8_t> data,
                                llvm::MutableArrayRef<int32_t> out) {
  int64_t size = plugins::getWeightTypeSize(info.type);
  for (int64_t i = 0, e = out.size(); i < e; ++i) {
    const uint8_t *bytes = data.data() + i * size;
    int64_t value;
    switch (info.type) {
    case plugins::WeightType::I8: value = static_cast<int8_t>(bytes[0]); break;
    case plugins::WeightType::U8: value = bytes[0]; break;
    case plugins::WeightType::I16: {
      int16_t v;
      std::memcpy(&v, bytes, sizeof(v));
      value = v;
      break;
    }
    case plugins::WeightType::I32: {
      int32_t v;
      std::memcpy(&v, bytes, sizeof(v));
      value = v;
      break;
    }
    case plugins::WeightType::I64:
      std::memcpy(&value, bytes, sizeof(value));
      break;
    default:
      return makeError("is stored as " +
                       plugins::stringifyWeightType(info.type) +
                       ", which cannot be read as integers");
    }
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max())
      return makeError("holds " + llvm::Twine(value) + " at element " +
                       llvm::Twine(i) + ", which does not fit in int32");
    out[i] = static_cast<int32_t>(value);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

Interpreter::Interpreter(const plugins::WeightSource &weights,
                         InterpreterOptions options)
    : weights(weights), options(options),
      runner(std::make_unique<ThreadRunner>(options.threads)) {}

Interpreter::~Interpreter() = default;

void Interpreter::clearWeightCache() {
  weightCache.clear();
  cachedBytes = 0;
}

llvm::Expected<Interpreter::TensorRef>
Interpreter::loadWeight(llvm::StringRef name, ElementKind kind,
                        llvm::ArrayRef<int64_t> shape) {
  auto cached = weightCache.find(name);
  if (cached != weightCache.end() && cached->second->getKind() == kind &&
      cached->second->getShape() == shape)
    return cached->second;

  llvm::Expected<plugins::TensorInfo> info = weights.getTensorInfo(name);
  if (!info)
    return info.takeError();
  // A weight may be read in any shape of its element count: a row-major
  // view (a convolution kernel [out, in, h, w] as a MatMul's [out, in·h·w]).
  Tensor tensor(kind, shape);
  if (info->getNumElements() != tensor.getNumElements())
    return makeError("weight '" + name + "' is stored as " +
                     formatShape(info->shape) + " (" +
                     plugins::stringifyWeightType(info->type) +
                     ") but the op reads it as " + formatShape(shape));
  if (kind == ElementKind::F32) {
    if (llvm::Error error = weights.readAsF32(name, tensor.getF32()))
      return std::move(error);
  } else {
    llvm::Expected<llvm::ArrayRef<uint8_t>> data = weights.getTensorData(name);
    if (!data)
      return data.takeError();
    if (llvm::Error error = convertToI32(*info, *data, tensor.getI32()))
      return makeError("weight '" + name + "' " + toString(std::move(error)));
  }
  auto loaded = std::make_shared<const Tensor>(std::move(tensor));
  uint64_t bytes = loaded->getNumElements() * Tensor::kElementSize;
  if (options.cacheWeights && cached == weightCache.end() &&
      cachedBytes + bytes <= options.weightCacheBytes) {
    weightCache[name] = loaded;
    cachedBytes += bytes;
  }
  return loaded;
}

llvm::Expected<std::vector<Tensor>>
Interpreter::run(func::FuncOp function, llvm::ArrayRef<Tensor> inputs) {
  std::string name = ("@" + function.getSymName()).str();
  if (function.isExternal() || !function.getBody().hasOneBlock())
    return makeError(name + " must have a body of exactly one block");
  Block &body = function.getBody().front();
  if (inputs.size() != body.getNumArguments())
    return makeError(name + " takes " + llvm::Twine(body.getNumArguments()) +
                     " inputs, " + llvm::Twine(inputs.size()) + " were given");

  // Every value that is still needed; a value is dropped after its last
  // user so that activations and uncached weights free their memory early.
  llvm::DenseMap<Value, TensorRef> values;
  llvm::DenseMap<Value, Operation *> lastUser;
  for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
    if (!getKindOf(argument.getType()))
      return makeError("argument #" + llvm::Twine(index) + " of " + name +
                       " has the unsupported type " +
                       printType(argument.getType()));
    if (!matchesType(inputs[index], argument.getType()))
      return makeError("input #" + llvm::Twine(index) + " of " + name + " is " +
                       inputs[index].describe() + ", the argument " + "is " +
                       printType(argument.getType()));
    values[argument] = std::make_shared<const Tensor>(inputs[index]);
  }
  for (Operation &op : body)
    for (Value operand : op.getOperands())
      lastUser[operand] = &op;

  for (Operation &op : body) {
    llvm::SmallVector<const Tensor *, 4> operands;
    for (auto [index, operand] : llvm::enumerate(op.getOperands())) {
      auto found = values.find(operand);
      if (found == values.end())
        return opError(op, "operand #" + llvm::Twine(index) +
                               " is not defined in the function body");
      if (!isa<NoneType>(operand.getType()) && !getKindOf(operand.getType()))
        return opError(op, "operand #" + llvm::Twine(index) +
                               " has the unsupported type " +
                               printType(operand.getType()));
      operands.push_back(found->second.get());
    }

    if (isa<func::ReturnOp>(op)) {
      std::vector<Tensor> results;
      for (auto [index, operand] : llvm::enumerate(operands)) {
        if (!operand)
          return opError(op, "result #" + llvm::Twine(index) +
                                 " is none; only tensors can be returned");
        results.push_back(*operand);
      }
      return results;
    }

    llvm::SmallVector<TensorRef, 2> results;
    if (isa<NoneOp>(op)) {
      results.push_back(nullptr);
    } else if (auto input = dyn_cast<InputOp>(op)) {
      results.push_back(values[input.getInput()]);
    } else if (auto weight = dyn_cast<WeightOp>(op)) {
      std::optional<ElementKind> kind = getKindOf(weight.getType());
      if (!kind)
        return opError(op, "unsupported weight type " +
                               printType(weight.getType()));
      llvm::Expected<TensorRef> loaded =
          loadWeight(weight.getName(), *kind, weight.getType().getShape());
      if (!loaded)
        return opError(op, toString(loaded.takeError()));
      results.push_back(std::move(*loaded));
    } else if (op.getDialect() && isa<TopDialect>(op.getDialect())) {
      if (options.observeOperands)
        options.observeOperands(op, operands);
      llvm::Expected<llvm::SmallVector<Tensor, 1>> computed =
          runComputeOp(op, operands, *runner);
      if (!computed)
        return opError(op, toString(computed.takeError()));
      for (Tensor &tensor : *computed)
        results.push_back(std::make_shared<const Tensor>(std::move(tensor)));
      if (options.observeResults) {
        llvm::SmallVector<const Tensor *, 2> observed;
        for (const TensorRef &result : results)
          observed.push_back(result.get());
        options.observeResults(op, observed);
      }
    } else {
      return opError(op, "the interpreter runs only top ops");
    }

    if (results.size() != op.getNumResults())
      return opError(op, "computed " + llvm::Twine(results.size()) +
                             " results for " + llvm::Twine(op.getNumResults()));
    for (auto [index, result] : llvm::enumerate(op.getResults())) {
      const TensorRef &tensor = results[index];
      if (isa<NoneType>(result.getType())) {
        values[result] = nullptr;
        continue;
      }
      if (!tensor || !getKindOf(result.getType()))
        return opError(op, "result #" + llvm::Twine(index) +
                               " has the unsupported type " +
                               printType(result.getType()));
      if (!matchesType(*tensor, result.getType()))
        return opError(op, "computed " + tensor->describe() + " for result #" +
                               llvm::Twine(index) + " of type " +
                               printType(result.getType()));
      if (!result.use_empty())
        values[result] = tensor;
    }
    for (Value operand : op.getOperands())
      if (lastUser.lookup(operand) == &op)
        values.erase(operand);
  }
  return makeError(name + " does not end in func.return");
}

} // namespace llmc::top
