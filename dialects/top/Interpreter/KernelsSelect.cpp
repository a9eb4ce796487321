//===- KernelsSelect.cpp - compare, where and scatter-elements ------------===//
//
// The kernels that test and pick elements rather than compute them. Where
// and ScatterElements move 4-byte elements and accept F32 and I32 alike;
// Compare reads both kinds with their own arithmetic.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/KernelSupport.h"

#include <cstring>

namespace llmc::top::kernels {

static constexpr int64_t kSize = Tensor::kElementSize;

template <typename T> static bool holds(CompareMode mode, T lhs, T rhs) {
  // Written with the C++ operators so that a NaN makes every relation false
  // except `ne`, as IEEE 754 and the op description say.
  switch (mode) {
  case CompareMode::Eq: return lhs == rhs;
  case CompareMode::Ne: return lhs != rhs;
  case CompareMode::Lt: return lhs < rhs;
  case CompareMode::Le: return lhs <= rhs;
  case CompareMode::Gt: return lhs > rhs;
  case CompareMode::Ge: return lhs >= rhs;
  }
  return false;
}

template <typename T>
static void compareInto(CompareMode mode, const T *lhs, const T *rhs,
                        llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<int64_t> lhsStrides,
                        llvm::ArrayRef<int64_t> rhsStrides,
                        llvm::MutableArrayRef<int32_t> out) {
  for (int64_t i = 0, e = out.size(); i < e; ++i)
    out[i] = holds(mode, lhs[offsetOf(i, shape, lhsStrides)],
                   rhs[offsetOf(i, shape, rhsStrides)])
                 ? 1
                 : 0;
}

llvm::Expected<Tensor> compare(CompareMode mode, const Tensor &lhs,
                               const Tensor &rhs) {
  if (lhs.getKind() != rhs.getKind())
    return kernelError("cannot compare " + lhs.describe() + " with " +
                       rhs.describe());
  llvm::Expected<Dims> shape = broadcastShapes(lhs.getShape(), rhs.getShape());
  if (!shape)
    return shape.takeError();
  Tensor result(ElementKind::I32, *shape);
  Dims lhsStrides = broadcastStrides(lhs.getShape(), *shape);
  Dims rhsStrides = broadcastStrides(rhs.getShape(), *shape);
  if (lhs.isF32())
    compareInto(mode, lhs.getF32().data(), rhs.getF32().data(), *shape,
                lhsStrides, rhsStrides, result.getI32());
  else
    compareInto(mode, lhs.getI32().data(), rhs.getI32().data(), *shape,
                lhsStrides, rhsStrides, result.getI32());
  return result;
}

llvm::Expected<Tensor> where(const Tensor &cond, const Tensor &x,
                             const Tensor &y) {
  if (!cond.isI32())
    return kernelError("the condition must be an integer tensor, got " +
                       cond.describe());
  if (x.getKind() != y.getKind())
    return kernelError("cannot choose between " + x.describe() + " and " +
                       y.describe());
  llvm::Expected<Dims> branches = broadcastShapes(x.getShape(), y.getShape());
  if (!branches)
    return branches.takeError();
  llvm::Expected<Dims> shape = broadcastShapes(cond.getShape(), *branches);
  if (!shape)
    return shape.takeError();
  Tensor result(x.getKind(), *shape);
  Dims condStrides = broadcastStrides(cond.getShape(), *shape);
  Dims xStrides = broadcastStrides(x.getShape(), *shape);
  Dims yStrides = broadcastStrides(y.getShape(), *shape);
  const int32_t *c = cond.getI32().data();
  char *out = result.getRawData();
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i) {
    const char *src =
        c[offsetOf(i, *shape, condStrides)] != 0
            ? x.getRawData() + offsetOf(i, *shape, xStrides) * kSize
            : y.getRawData() + offsetOf(i, *shape, yStrides) * kSize;
    std::memcpy(out + i * kSize, src, kSize);
  }
  return result;
}

llvm::Expected<Tensor> scatterElements(const Tensor &data,
                                       const Tensor &indices,
                                       const Tensor &updates, int64_t axis) {
  if (!indices.isI32())
    return kernelError("indices must be an integer tensor, got " +
                       indices.describe());
  if (data.getKind() != updates.getKind())
    return kernelError("cannot scatter " + updates.describe() + " into " +
                       data.describe());
  llvm::Expected<int64_t> dim = normalizeAxis(axis, data.getRank());
  if (!dim)
    return dim.takeError();
  if (indices.getShape() != updates.getShape() ||
      indices.getRank() != data.getRank())
    return kernelError("indices " + indices.describe() + " and updates " +
                       updates.describe() + " must share a shape of rank " +
                       llvm::Twine(data.getRank()));
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != *dim && indices.getDim(d) > data.getDim(d))
      return kernelError("indices " + indices.describe() +
                         " do not fit in data " + data.describe());

  Tensor result = data;
  Dims dataStrides = llvm::to_vector<4>(getRowMajorStrides(data.getShape()));
  // Where position p of indices lands in data, before the axis coordinate
  // is replaced by the index: the same coordinates, data's strides.
  Dims landing(dataStrides);
  landing[*dim] = 0;
  llvm::ArrayRef<int32_t> picks = indices.getI32();
  const char *src = updates.getRawData();
  char *out = result.getRawData();
  int64_t size = data.getDim(*dim);
  // Row-major order: with repeated indices the last update wins.
  for (int64_t p = 0, e = indices.getNumElements(); p < e; ++p) {
    int32_t index = picks[p];
    if (index < 0 || index >= size)
      return kernelError("index " + llvm::Twine(index) + " at position " +
                         llvm::Twine(p) + " is out of range for dimension " +
                         llvm::Twine(*dim) + " of " + data.describe());
    int64_t offset =
        offsetOf(p, indices.getShape(), landing) + index * dataStrides[*dim];
    std::memcpy(out + offset * kSize, src + p * kSize, kSize);
  }
  return result;
}

} // namespace llmc::top::kernels
