//===- GlobalViews.h - where a piece's values live in global memory -*- C++ -*-===//
//
// Turns tpu-address-assign's ranges and the binary's weight layout into the
// command stream's 2-D GlobalTensors, and slices them into tiles.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_GLOBALVIEWS_H
#define LLMC_BACKENDS_COMMON_CODEGEN_GLOBALVIEWS_H

#include "backends/common/cmodel/command_stream.pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

namespace llmc::codegen {

/// Byte offsets of the weights in the binary's coeff region, by name.
using WeightOffsets = llvm::StringMap<uint64_t>;

/// The command-stream element type of `element` (floats, i32, and 4- or
/// 8-bit integer or quantized storage).
llvm::Expected<cmd::DType> getDType(mlir::Type element);

/// The elements of a tensor-typed value.
int64_t getNumElements(mlir::Value value);

/// The bytes the coeff region holds for a constant's elements: each
/// element little-endian in its type's width, an i1 as one byte.
std::vector<uint8_t> packConstant(mlir::DenseElementsAttr value);
/// The name under which the binary's weight layout holds the constant
/// `packed` (its content, so equal constants are stored once).
std::string getConstantName(llvm::ArrayRef<uint8_t> packed);

/// Where every value of one piece is: function arguments and results by
/// their `tpu.addr`, compute results by `addr`, reshapes by their input,
/// weights and constants by `WeightOffsets`.
class ValuePlacement {
public:
  /// With `standIns`, a value not placed yet reads as offset 0 of its
  /// region (coeff for weights and constants, IO for arguments, activation
  /// for the rest): a pass costs alternatives with codegen's emitters
  /// before tpu-address-assign, and the time model needs only shapes.
  explicit ValuePlacement(const WeightOffsets &weights, bool standIns = false)
      : weights(weights), standIns(standIns) {}

  /// `value` as a packed row-major [numElements / cols, cols] tensor.
  llvm::Expected<cmd::GlobalTensor> view(mlir::Value value,
                                         int64_t cols) const;
  /// As view(), with `cols` the size of the last dimension.
  llvm::Expected<cmd::GlobalTensor> view(mlir::Value value) const;
  /// The region and byte offset `value` starts at.
  llvm::Expected<std::pair<cmd::Region, uint64_t>>
  getAddress(mlir::Value value) const;
  /// Where `op`'s scratch range (its `scratch`) starts.
  llvm::Expected<std::pair<cmd::Region, uint64_t>>
  getScratch(mlir::Operation *op) const;

private:
  const WeightOffsets &weights;
  bool standIns;
};

/// The bytes from one row's start to the next.
uint64_t getRowStride(const cmd::GlobalTensor &tensor);
/// Rows [begin, begin + count) of `tensor`.
cmd::GlobalTensor sliceRows(const cmd::GlobalTensor &tensor, int64_t begin,
                            int64_t count);
/// Columns [begin, begin + count); `begin` must start a byte.
cmd::GlobalTensor sliceCols(const cmd::GlobalTensor &tensor, int64_t begin,
                            int64_t count);
/// The same packed bytes as [rows * cols / newCols, newCols].
cmd::GlobalTensor reflow(const cmd::GlobalTensor &tensor, int64_t newCols);

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_GLOBALVIEWS_H
