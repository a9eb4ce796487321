//===- ConstantFolding.cpp - ONNX shape arithmetic at import time ---------===//

#include "frontends/onnx/ConstantFolding.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

namespace llmc::onnx {

static llvm::Error foldError(const ::onnx::NodeProto &node,
                             const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 node.op_type() + " node '" + node.name() +
                                     "' " + problem);
}

int64_t ConstantTensor::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

double ConstantTensor::getDouble(int64_t index) const {
  return isFloat ? floats[index] : static_cast<double>(ints[index]);
}

int64_t ConstantTensor::getInt(int64_t index) const {
  return isFloat ? static_cast<int64_t>(floats[index]) : ints[index];
}

ConstantTensor ConstantTensor::ofInts(llvm::ArrayRef<int64_t> shape,
                                      std::vector<int64_t> values) {
  ConstantTensor tensor;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.ints = std::move(values);
  return tensor;
}

ConstantTensor ConstantTensor::ofFloats(llvm::ArrayRef<int64_t> shape,
                                        std::vector<double> values) {
  ConstantTensor tensor;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.isFloat = true;
  tensor.floats = std::move(values);
  return tensor;
}

/// The most elements a tensor the importer evaluates may have: shapes and
/// index vectors need far fewer, and a hostile graph cannot make the
/// importer allocate more.
static constexpr int64_t kMaxFoldedElements = int64_t(1) << 24;

std::optional<int64_t> getFoldableCount(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim == 0)
      return 0;
  }
  for (int64_t dim : shape) {
    if (dim > kMaxFoldedElements || count * dim > kMaxFoldedElements)
      return std::nullopt;
    count *= dim;
  }
  return count;
}

static llvm::Error tooLargeToFold(const ::onnx::NodeProto &node) {
  return foldError(node, "makes a tensor with a negative dimension or more "
                         "than " +
                             llvm::Twine(kMaxFoldedElements) +
                             " elements, too large to fold");
}

/// Reads `count` little-endian elements of `size` bytes from `raw`.
template <typename T>
static std::vector<T> readRaw(const std::string &raw, int64_t count) {
  std::vector<T> values(count);
  std::memcpy(values.data(), raw.data(), count * sizeof(T));
  return values;
}

llvm::Expected<ConstantTensor> readConstant(const ::onnx::TensorProto &tensor) {
  ConstantTensor result;
  for (int64_t dim : tensor.dims())
    result.shape.push_back(dim);
  auto fail = [&](const llvm::Twine &problem) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "constant tensor '" + tensor.name() + "' " +
                                       problem);
  };
  std::optional<int64_t> foldable = getFoldableCount(result.shape);
  if (!foldable)
    return fail("has a negative dimension or more than " +
                llvm::Twine(kMaxFoldedElements) +
                " elements, more than the importer folds");
  int64_t count = *foldable;
  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL)
    return fail("is stored externally, where llmc reads only weights");
  bool raw = tensor.has_raw_data();
  auto expectRaw = [&](int64_t size) -> llvm::Error {
    if (static_cast<int64_t>(tensor.raw_data().size()) != count * size)
      return fail("holds " + llvm::Twine(tensor.raw_data().size()) +
                  " bytes for " + llvm::Twine(count) + " elements");
    return llvm::Error::success();
  };
  switch (tensor.data_type()) {
  case ::onnx::TensorProto::FLOAT: {
    result.isFloat = true;
    if (raw) {
      if (llvm::Error error = expectRaw(4))
        return std::move(error);
      for (float value : readRaw<float>(tensor.raw_data(), count))
        result.floats.push_back(value);
    } else {
      result.floats.assign(tensor.float_data().begin(),
                           tensor.float_data().end());
    }
    break;
  }
  case ::onnx::TensorProto::DOUBLE:
    result.isFloat = true;
    if (raw) {
      if (llvm::Error error = expectRaw(8))
        return std::move(error);
      result.floats = readRaw<double>(tensor.raw_data(), count);
    } else {
      result.floats.assign(tensor.double_data().begin(),
                           tensor.double_data().end());
    }
    break;
  case ::onnx::TensorProto::INT64:
    if (raw) {
      if (llvm::Error error = expectRaw(8))
        return std::move(error);
      result.ints = readRaw<int64_t>(tensor.raw_data(), count);
    } else {
      result.ints.assign(tensor.int64_data().begin(),
                         tensor.int64_data().end());
    }
    break;
  case ::onnx::TensorProto::INT32:
    if (raw) {
      if (llvm::Error error = expectRaw(4))
        return std::move(error);
      for (int32_t value : readRaw<int32_t>(tensor.raw_data(), count))
        result.ints.push_back(value);
    } else {
      result.ints.assign(tensor.int32_data().begin(),
                         tensor.int32_data().end());
    }
    break;
  case ::onnx::TensorProto::BOOL:
    if (raw) {
      if (llvm::Error error = expectRaw(1))
        return std::move(error);
      for (uint8_t value : readRaw<uint8_t>(tensor.raw_data(), count))
        result.ints.push_back(value != 0);
    } else {
      result.ints.assign(tensor.int32_data().begin(),
                         tensor.int32_data().end());
    }
    break;
  default:
    return fail("has data type " + llvm::Twine(tensor.data_type()) +
                ", which llmc does not fold");
  }
  int64_t held = result.isFloat ? result.floats.size() : result.ints.size();
  if (held != count)
    return fail("holds " + llvm::Twine(held) + " values for " +
                llvm::Twine(count) + " elements");
  return result;
}

int64_t getIntAttr(const ::onnx::NodeProto &node, llvm::StringRef name,
                   int64_t fallback) {
  for (const ::onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return attr.i();
  return fallback;
}

std::optional<llvm::SmallVector<int64_t>>
getIntsAttr(const ::onnx::NodeProto &node, llvm::StringRef name) {
  for (const ::onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return llvm::SmallVector<int64_t>(attr.ints().begin(), attr.ints().end());
  return std::nullopt;
}

float getFloatAttr(const ::onnx::NodeProto &node, llvm::StringRef name,
                   float fallback) {
  for (const ::onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return attr.f();
  return fallback;
}

llvm::Expected<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  llvm::SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a != b && a != 1 && b != 1)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "dimension " + llvm::Twine(a) +
                                         " does not broadcast with " +
                                         llvm::Twine(b));
    shape[i] = a == 1 ? b : a;
  }
  return shape;
}

/// The flat index into a tensor of `shape` (aligned to the right of
/// `outShape`, broadcast) of the element at flat index `index` of `outShape`.
static int64_t broadcastIndex(llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<int64_t> outShape, int64_t index) {
  int64_t result = 0, stride = 1;
  for (size_t i = outShape.size(); i-- > 0;) {
    int64_t coordinate = index % outShape[i];
    index /= outShape[i];
    size_t offset = outShape.size() - shape.size();
    if (i < offset)
      continue;
    int64_t dim = shape[i - offset];
    result += (dim == 1 ? 0 : coordinate) * stride;
    stride *= dim;
  }
  return result;
}

/// Applies `op` elementwise with broadcasting; the result is float when any
/// input is, or when `floatResult` says so.
static llvm::Expected<ConstantTensor>
elementwise(const ::onnx::NodeProto &node,
            llvm::ArrayRef<const ConstantTensor *> inputs,
            std::function<double(llvm::ArrayRef<double>)> op,
            std::optional<bool> floatResult = std::nullopt) {
  llvm::SmallVector<int64_t> shape;
  for (const ConstantTensor *input : inputs) {
    llvm::Expected<llvm::SmallVector<int64_t>> merged =
        broadcastShapes(shape, input->shape);
    if (!merged)
      return foldError(node, llvm::toString(merged.takeError()));
    shape = *merged;
  }
  bool isFloat = floatResult
                     ? *floatResult
                     : llvm::any_of(inputs, [](const ConstantTensor *t) {
                         return t->isFloat;
                       });
  std::optional<int64_t> count = getFoldableCount(shape);
  if (!count)
    return tooLargeToFold(node);
  ConstantTensor result;
  result.shape = shape;
  result.isFloat = isFloat;
  llvm::SmallVector<double> args(inputs.size());
  for (int64_t i = 0; i < *count; ++i) {
    for (auto [arg, input] : llvm::zip(args, inputs))
      arg = input->getDouble(broadcastIndex(input->shape, shape, i));
    double value = op(args);
    if (isFloat) {
      result.floats.push_back(value);
      continue;
    }
    // [-2^63, 2^63): what converts to int64 (a NaN fails both tests).
    if (!(value >= -0x1p63 && value < 0x1p63))
      return foldError(node, "computes " + std::to_string(value) +
                                 ", which is not a 64-bit integer");
    result.ints.push_back(static_cast<int64_t>(value));
  }
  return result;
}

/// Integer elementwise ops stay exact (doubles would round large int64s
/// such as INT64_MAX slice ends).
static llvm::Expected<ConstantTensor>
integerBinary(const ::onnx::NodeProto &node, const ConstantTensor &lhs,
              const ConstantTensor &rhs,
              std::function<int64_t(int64_t, int64_t)> op) {
  llvm::Expected<llvm::SmallVector<int64_t>> shape =
      broadcastShapes(lhs.shape, rhs.shape);
  if (!shape)
    return foldError(node, llvm::toString(shape.takeError()));
  if (!getFoldableCount(*shape))
    return tooLargeToFold(node);
  ConstantTensor result;
  result.shape = *shape;
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i)
    result.ints.push_back(op(lhs.ints[broadcastIndex(lhs.shape, *shape, i)],
                             rhs.ints[broadcastIndex(rhs.shape, *shape, i)]));
  return result;
}

llvm::Expected<llvm::SmallVector<int64_t>>
resolveReshape(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> target) {
  llvm::SmallVector<int64_t> result(target.begin(), target.end());
  int64_t known = 1, inferred = -1, total = 1;
  auto overflow = [] {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "reshape of more than 2^63 elements");
  };
  for (int64_t dim : shape) {
    std::optional<int64_t> product = llvm::checkedMul(total, dim);
    if (!product)
      return overflow();
    total = *product;
  }
  for (auto [index, dim] : llvm::enumerate(result)) {
    if (dim == 0) {
      if (index >= shape.size())
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "reshape copies a missing dimension");
      dim = shape[index];
    }
    if (dim == -1) {
      if (inferred >= 0)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "reshape infers two dimensions");
      inferred = index;
      continue;
    }
    if (dim < 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "reshape to a negative dimension");
    std::optional<int64_t> product = llvm::checkedMul(known, dim);
    if (!product)
      return overflow();
    known = *product;
  }
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "reshape cannot infer a dimension");
    result[inferred] = total / known;
  } else if (known != total) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "reshape changes the element count");
  }
  return result;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  return axis;
}

int64_t clampSliceIndex(int64_t index, int64_t size) {
  return std::clamp<int64_t>(index < 0 ? index + size : index, 0, size);
}

/// Reshapes keep the elements; only the shape changes.
static ConstantTensor withShape(ConstantTensor tensor,
                                llvm::ArrayRef<int64_t> shape) {
  tensor.shape.assign(shape.begin(), shape.end());
  return tensor;
}

/// A tensor of `shape` whose element i is element `source(i)` of `tensor`.
static ConstantTensor pickElements(const ConstantTensor &tensor,
                                   llvm::ArrayRef<int64_t> shape,
                                   llvm::function_ref<int64_t(int64_t)> source) {
  ConstantTensor result;
  result.shape.assign(shape.begin(), shape.end());
  result.isFloat = tensor.isFloat;
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i) {
    if (tensor.isFloat)
      result.floats.push_back(tensor.floats[source(i)]);
    else
      result.ints.push_back(tensor.ints[source(i)]);
  }
  return result;
}

/// `tensor` broadcast to `shape`.
static llvm::Expected<ConstantTensor>
broadcastTo(const ::onnx::NodeProto &node, const ConstantTensor &tensor,
            llvm::ArrayRef<int64_t> shape) {
  if (!getFoldableCount(shape))
    return tooLargeToFold(node);
  return pickElements(tensor, shape, [&](int64_t i) {
    return broadcastIndex(tensor.shape, shape, i);
  });
}

/// ONNX Transpose: `perm`, or the axes reversed.
static llvm::Expected<ConstantTensor>
transpose(const ::onnx::NodeProto &node, const ConstantTensor &tensor) {
  int64_t rank = tensor.shape.size();
  llvm::SmallVector<int64_t> perm;
  if (std::optional<llvm::SmallVector<int64_t>> given =
          getIntsAttr(node, "perm"))
    perm = *given;
  else
    for (int64_t axis = rank; axis-- > 0;)
      perm.push_back(axis);
  llvm::SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  bool isPermutation = int64_t(sorted.size()) == rank;
  for (int64_t axis = 0; isPermutation && axis < rank; ++axis)
    isPermutation = sorted[axis] == axis;
  if (!isPermutation)
    return foldError(node, "has a perm that is not a permutation of the "
                           "input's axes");
  llvm::SmallVector<int64_t> shape, strides(rank, 1);
  for (int64_t axis = rank - 1; axis > 0; --axis)
    strides[axis - 1] = strides[axis] * tensor.shape[axis];
  for (int64_t axis : perm)
    shape.push_back(tensor.shape[axis]);
  return pickElements(tensor, shape, [&](int64_t i) {
    int64_t from = 0;
    for (int64_t axis = rank; axis-- > 0;) {
      from += (i % shape[axis]) * strides[perm[axis]];
      i /= shape[axis];
    }
    return from;
  });
}

/// ONNX MatMul of float tensors of rank 2 or more, the leading (batch)
/// dimensions broadcast, accumulated in float32 as the graph computes.
static llvm::Expected<ConstantTensor>
matmul(const ::onnx::NodeProto &node, const ConstantTensor &lhs,
       const ConstantTensor &rhs) {
  size_t lhsRank = lhs.shape.size(), rhsRank = rhs.shape.size();
  if (lhsRank < 2 || rhsRank < 2)
    return foldError(node, "multiplies a vector, which the importer folds "
                           "only as a matrix");
  int64_t rows = lhs.shape[lhsRank - 2], inner = lhs.shape[lhsRank - 1],
          columns = rhs.shape[rhsRank - 1];
  if (rhs.shape[rhsRank - 2] != inner)
    return foldError(node, "multiplies matrices of mismatched inner sizes");
  llvm::ArrayRef<int64_t> lhsBatch(lhs.shape.data(), lhsRank - 2),
      rhsBatch(rhs.shape.data(), rhsRank - 2);
  llvm::Expected<llvm::SmallVector<int64_t>> batch =
      broadcastShapes(lhsBatch, rhsBatch);
  if (!batch)
    return foldError(node, llvm::toString(batch.takeError()));
  llvm::SmallVector<int64_t> shape(*batch);
  shape.append({rows, columns});
  std::optional<int64_t> count = getFoldableCount(shape);
  if (!count || (*count && inner > kMaxFoldedElements / *count))
    return tooLargeToFold(node);
  std::optional<int64_t> batches = getFoldableCount(*batch);
  ConstantTensor result;
  result.shape = shape;
  result.isFloat = true;
  for (int64_t b = 0; b < *batches; ++b) {
    int64_t lhsBase = broadcastIndex(lhsBatch, *batch, b) * rows * inner;
    int64_t rhsBase = broadcastIndex(rhsBatch, *batch, b) * inner * columns;
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t column = 0; column < columns; ++column) {
        float sum = 0;
        for (int64_t k = 0; k < inner; ++k)
          sum += float(lhs.getDouble(lhsBase + row * inner + k)) *
                 float(rhs.getDouble(rhsBase + k * columns + column));
        result.floats.push_back(sum);
      }
  }
  return result;
}

/// The axes of Unsqueeze/Squeeze: an input from opset 13, an attribute
/// before.
static std::optional<llvm::SmallVector<int64_t>>
getAxes(const ::onnx::NodeProto &node,
        llvm::ArrayRef<std::optional<ConstantTensor>> inputs) {
  if (inputs.size() > 1 && inputs[1])
    return llvm::SmallVector<int64_t>(inputs[1]->ints.begin(),
                                      inputs[1]->ints.end());
  return getIntsAttr(node, "axes");
}

llvm::Expected<std::optional<std::vector<ConstantTensor>>>
foldNode(const ::onnx::NodeProto &node,
         llvm::ArrayRef<std::optional<ConstantTensor>> inputs) {
  using Result = std::optional<std::vector<ConstantTensor>>;
  llvm::StringRef type = node.op_type();
  auto in = [&](size_t index) -> const ConstantTensor & {
    return *inputs[index];
  };
  auto one =
      [](llvm::Expected<ConstantTensor> tensor) -> llvm::Expected<Result> {
    if (!tensor)
      return tensor.takeError();
    return Result(std::vector<ConstantTensor>{std::move(*tensor)});
  };
  static const llvm::StringMap<size_t> required = {{"Identity", 1},
                                                   {"Cast", 1},
                                                   {"Add", 2},
                                                   {"Sub", 2},
                                                   {"Mul", 2},
                                                   {"Div", 2},
                                                   {"Equal", 2},
                                                   {"Less", 2},
                                                   {"Greater", 2},
                                                   {"Where", 3},
                                                   {"Neg", 1},
                                                   {"Sqrt", 1},
                                                   {"Cos", 1},
                                                   {"Sin", 1},
                                                   {"MatMul", 2},
                                                   {"Transpose", 1},
                                                   {"Expand", 2},
                                                   {"Range", 3},
                                                   {"Reshape", 2},
                                                   {"Concat", 1},
                                                   {"Gather", 2},
                                                   {"Squeeze", 1},
                                                   {"Unsqueeze", 1},
                                                   {"ConstantOfShape", 1},
                                                   {"Slice", 3}};
  auto found = required.find(type);
  if (found == required.end())
    return Result();
  if (inputs.size() < found->second ||
      llvm::any_of(inputs.take_front(found->second),
                   [](const auto &input) { return !input; }))
    return foldError(node, "needs " + llvm::Twine(found->second) + " inputs");
  if (type == "Concat" &&
      llvm::any_of(inputs, [](const auto &input) { return !input; }))
    return foldError(node, "has an empty input");

  if (type == "Identity")
    return one(in(0));
  if (type == "Cast") {
    int64_t to = getIntAttr(node, "to", 0);
    ConstantTensor result = in(0);
    bool toFloat = to == ::onnx::TensorProto::FLOAT ||
                   to == ::onnx::TensorProto::DOUBLE ||
                   to == ::onnx::TensorProto::FLOAT16 ||
                   to == ::onnx::TensorProto::BFLOAT16;
    if (toFloat && !result.isFloat) {
      result.isFloat = true;
      for (int64_t value : result.ints)
        result.floats.push_back(value);
      result.ints.clear();
    } else if (!toFloat && result.isFloat) {
      result.isFloat = false;
      for (double value : result.floats)
        result.ints.push_back(to == ::onnx::TensorProto::BOOL
                                  ? value != 0
                                  : static_cast<int64_t>(value));
      result.floats.clear();
    } else if (to == ::onnx::TensorProto::BOOL) {
      for (int64_t &value : result.ints)
        value = value != 0;
    }
    return one(result);
  }
  if (type == "Add" || type == "Sub" || type == "Mul" || type == "Div") {
    if (!in(0).isFloat && !in(1).isFloat) {
      std::function<int64_t(int64_t, int64_t)> op;
      if (type == "Add")
        op = [](int64_t a, int64_t b) { return a + b; };
      else if (type == "Sub")
        op = [](int64_t a, int64_t b) { return a - b; };
      else if (type == "Mul")
        op = [](int64_t a, int64_t b) { return a * b; };
      else if (llvm::is_contained(in(1).ints, 0))
        return foldError(node, "divides by zero");
      else // ONNX integer Div truncates toward zero, as C++ does.
        op = [](int64_t a, int64_t b) { return a / b; };
      return one(integerBinary(node, in(0), in(1), op));
    }
    return one(
        elementwise(node, {&in(0), &in(1)}, [&](llvm::ArrayRef<double> v) {
          // float32 arithmetic, as the graph computes.
          float a = v[0], b = v[1];
          if (type == "Add")
            return double(a + b);
          if (type == "Sub")
            return double(a - b);
          if (type == "Mul")
            return double(a * b);
          return double(a / b);
        }));
  }
  if (type == "Equal" || type == "Less" || type == "Greater")
    return one(elementwise(
        node, {&in(0), &in(1)},
        [&](llvm::ArrayRef<double> v) {
          return double(type == "Equal"  ? v[0] == v[1]
                        : type == "Less" ? v[0] < v[1]
                                         : v[0] > v[1]);
        },
        /*floatResult=*/false));
  if (type == "Where")
    return one(elementwise(
        node, {&in(0), &in(1), &in(2)},
        [](llvm::ArrayRef<double> v) { return v[0] != 0 ? v[1] : v[2]; },
        in(1).isFloat || in(2).isFloat));
  if (type == "Neg")
    return one(elementwise(node, {&in(0)},
                           [](llvm::ArrayRef<double> v) { return -v[0]; }));
  if (type == "Sqrt")
    return one(elementwise(
        node, {&in(0)},
        [](llvm::ArrayRef<double> v) { return double(std::sqrt(float(v[0]))); },
        /*floatResult=*/true));
  if (type == "Cos" || type == "Sin")
    return one(elementwise(
        node, {&in(0)},
        [&](llvm::ArrayRef<double> v) {
          float x = v[0];
          return double(type == "Cos" ? std::cos(x) : std::sin(x));
        },
        /*floatResult=*/true));
  if (type == "Expand") {
    llvm::Expected<llvm::SmallVector<int64_t>> shape =
        broadcastShapes(in(0).shape, in(1).ints);
    if (!shape)
      return foldError(node, llvm::toString(shape.takeError()));
    return one(broadcastTo(node, in(0), *shape));
  }
  if (type == "Transpose")
    return one(transpose(node, in(0)));
  if (type == "MatMul")
    return one(matmul(node, in(0), in(1)));
  if (type == "ConstantOfShape") {
    llvm::SmallVector<int64_t> shape(in(0).ints.begin(), in(0).ints.end());
    ConstantTensor fill = ConstantTensor::ofFloats({1}, {0.0});
    for (const ::onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == "value") {
        llvm::Expected<ConstantTensor> value = readConstant(attr.t());
        if (!value)
          return foldError(node, llvm::toString(value.takeError()));
        fill = *value;
      }
    ConstantTensor result = fill;
    result.shape = shape;
    std::optional<int64_t> count = getFoldableCount(result.shape);
    if (!count)
      return tooLargeToFold(node);
    if (result.isFloat)
      result.floats.assign(*count, fill.floats.empty() ? 0 : fill.floats[0]);
    else
      result.ints.assign(*count, fill.ints.empty() ? 0 : fill.ints[0]);
    return one(result);
  }
  if (type == "Range") {
    double start = in(0).getDouble(0), limit = in(1).getDouble(0),
           delta = in(2).getDouble(0);
    if (delta == 0)
      return foldError(node, "has delta 0");
    double steps = std::ceil((limit - start) / delta);
    if (!std::isfinite(steps) || steps > double(kMaxFoldedElements))
      return tooLargeToFold(node);
    int64_t count = std::max<int64_t>(0, steps);
    ConstantTensor result;
    result.shape = {count};
    result.isFloat = in(0).isFloat;
    for (int64_t i = 0; i < count; ++i) {
      if (result.isFloat)
        result.floats.push_back(start + i * delta);
      else
        result.ints.push_back(in(0).ints[0] + i * in(2).ints[0]);
    }
    return one(result);
  }
  if (type == "Unsqueeze" || type == "Squeeze") {
    std::optional<llvm::SmallVector<int64_t>> axes = getAxes(node, inputs);
    llvm::SmallVector<int64_t> shape = in(0).shape;
    if (type == "Squeeze") {
      llvm::SmallVector<int64_t> kept;
      for (auto [index, dim] : llvm::enumerate(shape)) {
        bool listed =
            axes && llvm::any_of(*axes, [&](int64_t axis) {
              return normalizeAxis(axis, shape.size()) == int64_t(index);
            });
        if (axes ? !listed : dim != 1)
          kept.push_back(dim);
      }
      return one(withShape(in(0), kept));
    }
    if (!axes)
      return foldError(node, "has no axes");
    int64_t rank = shape.size() + axes->size();
    llvm::SmallVector<int64_t> normalized;
    for (int64_t axis : *axes) {
      std::optional<int64_t> at = normalizeAxis(axis, rank);
      if (!at)
        return foldError(node,
                         "has axis " + llvm::Twine(axis) + " out of range");
      normalized.push_back(*at);
    }
    llvm::sort(normalized);
    for (int64_t axis : normalized)
      shape.insert(shape.begin() + axis, 1);
    return one(withShape(in(0), shape));
  }
  if (type == "Reshape") {
    llvm::Expected<llvm::SmallVector<int64_t>> shape =
        resolveReshape(in(0).shape, in(1).ints);
    if (!shape)
      return foldError(node, llvm::toString(shape.takeError()));
    return one(withShape(in(0), *shape));
  }
  if (type == "Concat") {
    int64_t rank = in(0).shape.size();
    std::optional<int64_t> axis =
        normalizeAxis(getIntAttr(node, "axis", 0), rank);
    if (!axis)
      return foldError(node, "has an axis out of range");
    ConstantTensor result;
    result.shape = in(0).shape;
    result.shape[*axis] = 0;
    result.isFloat = in(0).isFloat;
    for (const std::optional<ConstantTensor> &next : inputs) {
      if (next->shape.size() != size_t(rank) ||
          next->isFloat != result.isFloat)
        return foldError(node, "joins tensors of different ranks or types");
      for (int64_t dim = 0; dim < rank; ++dim)
        if (dim != *axis && next->shape[dim] != result.shape[dim])
          return foldError(node, "joins tensors whose dimension " +
                                     llvm::Twine(dim) + " differs");
      result.shape[*axis] += next->shape[*axis];
    }
    if (!getFoldableCount(result.shape))
      return tooLargeToFold(node);
    // Each input contributes a block of its inner elements per outer index.
    int64_t outer = 1;
    for (int64_t dim = 0; dim < *axis; ++dim)
      outer *= result.shape[dim];
    for (int64_t index = 0; index < outer; ++index)
      for (const std::optional<ConstantTensor> &next : inputs) {
        int64_t block = outer ? next->getNumElements() / outer : 0;
        if (result.isFloat)
          result.floats.insert(result.floats.end(),
                               next->floats.begin() + index * block,
                               next->floats.begin() + (index + 1) * block);
        else
          result.ints.insert(result.ints.end(),
                             next->ints.begin() + index * block,
                             next->ints.begin() + (index + 1) * block);
      }
    return one(result);
  }
  if (type == "Gather") {
    const ConstantTensor &data = in(0), &indices = in(1);
    if (getIntAttr(node, "axis", 0) != 0 || data.shape.size() != 1)
      return Result();
    ConstantTensor result;
    result.shape = indices.shape;
    result.isFloat = data.isFloat;
    for (int64_t i = 0, e = indices.getNumElements(); i < e; ++i) {
      int64_t index = indices.getInt(i);
      if (index < 0)
        index += data.shape[0];
      if (index < 0 || index >= data.shape[0])
        return foldError(node, "gathers index " + llvm::Twine(index) + " of " +
                                   llvm::Twine(data.shape[0]));
      if (data.isFloat)
        result.floats.push_back(data.floats[index]);
      else
        result.ints.push_back(data.ints[index]);
    }
    return one(result);
  }
  if (type == "Slice") {
    // Shape vectors are sliced; a 1-D slice is all that folding needs.
    const ConstantTensor &data = in(0);
    if (data.shape.size() != 1 || in(1).ints.size() != 1 ||
        in(2).ints.size() != 1 ||
        (inputs.size() > 3 && inputs[3] && inputs[3]->getInt(0) != 0 &&
         inputs[3]->getInt(0) != -1))
      return Result();
    int64_t size = data.shape[0];
    int64_t step = inputs.size() > 4 && inputs[4] ? inputs[4]->getInt(0) : 1;
    if (step <= 0)
      return Result();
    int64_t begin = clampSliceIndex(in(1).ints[0], size),
            end = clampSliceIndex(in(2).ints[0], size);
    ConstantTensor result;
    result.isFloat = data.isFloat;
    for (int64_t index = begin; index < end; index += step) {
      if (data.isFloat)
        result.floats.push_back(data.floats[index]);
      else
        result.ints.push_back(data.ints[index]);
    }
    result.shape = {
        int64_t(result.isFloat ? result.floats.size() : result.ints.size())};
    return one(result);
  }
  return Result();
}

} // namespace llmc::onnx
