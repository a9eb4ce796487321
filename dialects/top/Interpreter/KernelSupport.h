//===- KernelSupport.h - shape helpers shared by the kernels ---*- C++ -*-===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_KERNELSUPPORT_H
#define LLMC_DIALECTS_TOP_INTERPRETER_KERNELSUPPORT_H

#include "dialects/top/Interpreter/Kernels.h"

namespace llmc::top::kernels {

using Dims = llvm::SmallVector<int64_t, 4>;

/// `axis` made non-negative; an error when it does not index `rank` dims.
llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// The NumPy broadcast of two shapes.
llvm::Expected<Dims> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                     llvm::ArrayRef<int64_t> rhs);

/// Strides that read a tensor of `shape` as broadcast to `target` (aligned
/// at the last dimension; 0 where `shape` repeats).
Dims broadcastStrides(llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int64_t> target);

/// The offset that `strides` give to the row-major position `linear` of a
/// tensor of shape `shape`.
int64_t offsetOf(int64_t linear, llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int64_t> strides);

/// An error unless `tensor` holds F32 elements.
llvm::Error requireF32(const Tensor &tensor, llvm::StringRef what);

/// Products of the dimensions before, at and after `axis`.
struct AxisSplit {
  int64_t outer;
  int64_t size;
  int64_t inner;
};
AxisSplit splitAtAxis(llvm::ArrayRef<int64_t> shape, int64_t axis);

} // namespace llmc::top::kernels

#endif // LLMC_DIALECTS_TOP_INTERPRETER_KERNELSUPPORT_H
