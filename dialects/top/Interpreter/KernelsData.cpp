//===- KernelsData.cpp - gather, reshape, permute, concat and slice -------===//
//
// Data movement is the same for F32 and I32 tensors (4-byte elements), so
// these kernels copy bytes and accept either kind.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/KernelSupport.h"

#include <cstring>

namespace llmc::top::kernels {

static constexpr int64_t kSize = Tensor::kElementSize;

/// Fills `result` row-major from `in`, reading element (i0, ..., in) at
/// offset sum(i_d * strides[d]).
static void gatherStrided(const char *in, llvm::ArrayRef<int64_t> strides,
                          Tensor &result) {
  if (result.getNumElements() == 0)
    return;
  if (result.getRank() == 0) {
    std::memcpy(result.getRawData(), in, kSize);
    return;
  }
  llvm::ArrayRef<int64_t> shape = result.getShape();
  int64_t width = shape.back(), step = strides.back() * kSize;
  char *out = result.getRawData();
  for (int64_t row = 0, rows = result.getNumElements() / width; row < rows;
       ++row) {
    const char *src =
        in + offsetOf(row, shape.drop_back(), strides.drop_back()) * kSize;
    for (int64_t j = 0; j < width; ++j, out += kSize)
      std::memcpy(out, src + j * step, kSize);
  }
}

llvm::Expected<Tensor> expand(const Tensor &input,
                              llvm::ArrayRef<int64_t> shape) {
  llvm::ArrayRef<int64_t> from = input.getShape();
  if (from.size() > shape.size())
    return kernelError("cannot expand " + input.describe() + " to rank " +
                       llvm::Twine(shape.size()));
  Dims resolved(shape);
  size_t lead = shape.size() - from.size();
  for (size_t i = 0; i < resolved.size(); ++i) {
    int64_t own = i < lead ? 1 : from[i - lead], &dim = resolved[i];
    if (dim < 0) {
      if (own == 1)
        return kernelError("dimension " + llvm::Twine(i) +
                           " of the expanded shape is dynamic and " +
                           input.describe() + " does not give it");
      dim = own;
    }
    if (own != 1 && own != dim)
      return kernelError("dimension " + llvm::Twine(i) + " of " +
                         input.describe() + " is neither 1 nor " +
                         llvm::Twine(dim));
  }
  Tensor result(input.getKind(), resolved);
  gatherStrided(input.getRawData(), broadcastStrides(from, resolved), result);
  return result;
}

llvm::Expected<Tensor> gather(const Tensor &table, const Tensor &indices,
                              int64_t axis) {
  if (!indices.isI32())
    return kernelError("indices must be an integer tensor, got " +
                       indices.describe());
  llvm::Expected<int64_t> dim = normalizeAxis(axis, table.getRank());
  if (!dim)
    return dim.takeError();
  AxisSplit split = splitAtAxis(table.getShape(), *dim);
  llvm::ArrayRef<int32_t> picks = indices.getI32();
  for (auto [position, index] : llvm::enumerate(picks))
    if (index < 0 || index >= split.size)
      return kernelError("index " + llvm::Twine(index) + " at position " +
                         llvm::Twine(position) +
                         " is out of range for "
                         "dimension " +
                         llvm::Twine(*dim) + " of " + table.describe());

  Dims shape = llvm::to_vector<4>(table.getShape().first(*dim));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, table.getShape().subspan(*dim + 1));
  Tensor result(table.getKind(), shape);
  const char *in = table.getRawData();
  char *out = result.getRawData();
  int64_t block = split.inner * kSize;
  for (int64_t o = 0; o < split.outer; ++o)
    for (int32_t index : picks) {
      std::memcpy(out, in + (o * split.size + index) * block, block);
      out += block;
    }
  return result;
}

llvm::Expected<Tensor> reshape(const Tensor &input,
                               llvm::ArrayRef<int64_t> shape) {
  Dims resolved(shape);
  int64_t known = 1;
  int inferred = -1;
  for (auto [i, dim] : llvm::enumerate(resolved)) {
    if (dim >= 0) {
      known *= dim;
      continue;
    }
    if (inferred >= 0)
      return kernelError("reshape target " + formatShape(shape) +
                         " has more than one unknown dimension");
    inferred = i;
  }
  int64_t count = input.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || count % known != 0)
      return kernelError("cannot reshape " + input.describe() + " to " +
                         formatShape(shape));
    resolved[inferred] = count / known;
  } else if (known != count) {
    return kernelError("cannot reshape " + input.describe() + " to " +
                       formatShape(shape));
  }
  Tensor result = input;
  result.setShape(resolved);
  return result;
}

llvm::Expected<Tensor> permute(const Tensor &input,
                               llvm::ArrayRef<int64_t> order) {
  int64_t rank = input.getRank();
  llvm::SmallVector<bool, 4> seen(rank, false);
  if (static_cast<int64_t>(order.size()) != rank)
    return kernelError("order has " + llvm::Twine(order.size()) +
                       " entries for " + input.describe());
  Dims shape, strides;
  Dims inputStrides = llvm::to_vector<4>(getRowMajorStrides(input.getShape()));
  for (int64_t axis : order) {
    if (axis < 0 || axis >= rank || seen[axis])
      return kernelError("order is not a permutation of the dimensions of " +
                         input.describe());
    seen[axis] = true;
    shape.push_back(input.getDim(axis));
    strides.push_back(inputStrides[axis]);
  }
  Tensor result(input.getKind(), shape);
  gatherStrided(input.getRawData(), strides, result);
  return result;
}

llvm::Expected<Tensor> concat(llvm::ArrayRef<const Tensor *> inputs,
                              int64_t axis) {
  if (inputs.empty())
    return kernelError("concat needs at least one input");
  const Tensor &first = *inputs.front();
  llvm::Expected<int64_t> dim = normalizeAxis(axis, first.getRank());
  if (!dim)
    return dim.takeError();
  Dims shape = llvm::to_vector<4>(first.getShape());
  shape[*dim] = 0;
  for (const Tensor *input : inputs) {
    bool fits = input->getKind() == first.getKind() &&
                input->getRank() == first.getRank();
    for (int64_t i = 0; fits && i < first.getRank(); ++i)
      fits = i == *dim || input->getDim(i) == first.getDim(i);
    if (!fits)
      return kernelError("cannot concatenate " + input->describe() + " to " +
                         first.describe() + " along axis " + llvm::Twine(*dim));
    shape[*dim] += input->getDim(*dim);
  }
  Tensor result(first.getKind(), shape);
  char *out = result.getRawData();
  int64_t outer = getElementCount(llvm::ArrayRef(shape).take_front(*dim));
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *input : inputs) {
      int64_t block = input->getNumElements() / std::max<int64_t>(outer, 1);
      std::memcpy(out, input->getRawData() + o * block * kSize, block * kSize);
      out += block * kSize;
    }
  return result;
}

llvm::Expected<Tensor> slice(const Tensor &input,
                             llvm::ArrayRef<int64_t> starts,
                             llvm::ArrayRef<int64_t> ends,
                             llvm::ArrayRef<int64_t> steps) {
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(ends.size()) != rank ||
      static_cast<int64_t>(steps.size()) != rank)
    return kernelError("starts, ends and steps need one entry per dimension "
                       "of " +
                       input.describe());
  Dims shape, strides;
  Dims inputStrides = llvm::to_vector<4>(getRowMajorStrides(input.getShape()));
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = input.getDim(d);
    int64_t start = starts[d] < 0 ? starts[d] + size : starts[d];
    int64_t end = ends[d] < 0 ? ends[d] + size : std::min(ends[d], size);
    if (steps[d] <= 0 || start < 0 || start > size || end < start)
      return kernelError("slice " + llvm::Twine(starts[d]) + ":" +
                         llvm::Twine(ends[d]) + ":" + llvm::Twine(steps[d]) +
                         " is out of range for dimension " + llvm::Twine(d) +
                         " of " + input.describe());
    shape.push_back((end - start + steps[d] - 1) / steps[d]);
    strides.push_back(inputStrides[d] * steps[d]);
    base += start * inputStrides[d];
  }
  Tensor result(input.getKind(), shape);
  gatherStrided(input.getRawData() + base * kSize, strides, result);
  return result;
}

} // namespace llmc::top::kernels
