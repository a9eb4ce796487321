//===- KernelSupport.cpp - shape helpers shared by the kernels ------------===//

#include "dialects/top/Interpreter/KernelSupport.h"

namespace llmc::top::kernels {

llvm::Error kernelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank)
    return kernelError("axis " + llvm::Twine(axis) +
                       " is out of range for rank " + llvm::Twine(rank));
  return normalized;
}

llvm::Expected<Dims> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                     llvm::ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Dims result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a != b && a != 1 && b != 1)
      return kernelError("shapes " + formatShape(lhs) + " and " +
                         formatShape(rhs) + " do not broadcast");
    result[i] = a == 1 ? b : a;
  }
  return result;
}

Dims broadcastStrides(llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int64_t> target) {
  Dims own = llvm::to_vector<4>(getRowMajorStrides(shape));
  Dims strides(target.size(), 0);
  size_t lead = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    strides[lead + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

int64_t offsetOf(int64_t linear, llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int64_t> strides) {
  int64_t offset = 0;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    offset += (linear % shape[i]) * strides[i];
    linear /= shape[i];
  }
  return offset;
}

llvm::Error requireF32(const Tensor &tensor, llvm::StringRef what) {
  if (!tensor.isF32())
    return kernelError(what + " must be a float tensor, got " +
                       tensor.describe());
  return llvm::Error::success();
}

AxisSplit splitAtAxis(llvm::ArrayRef<int64_t> shape, int64_t axis) {
  return {getElementCount(shape.take_front(axis)), shape[axis],
          getElementCount(shape.drop_front(axis + 1))};
}

} // namespace llmc::top::kernels
