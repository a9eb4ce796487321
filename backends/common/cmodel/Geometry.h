//===- Geometry.h - where a tensor's elements live --------------*- C++ -*-===//
//
// The command stream describes tensors by a few fields with defaults; these
// classes validate them once against the chip and answer the questions the
// executor asks: which rows and columns a lane holds, where they start, how
// many bytes they occupy. Every check that fails here is a Trap naming the
// operand.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_GEOMETRY_H
#define LLMC_BACKENDS_COMMON_CMODEL_GEOMETRY_H

#include "backends/common/cmodel/DType.h"

#include "plugins/ChipDescriptor.h"

#include "support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llmc::cmodel {

/// The rows [rowBegin, rowBegin + rowCount) and columns [colBegin, colBegin
/// + colCount) of a tensor that one lane holds, in tensor coordinates.
struct LaneBlock {
  int64_t rowBegin = 0;
  int64_t rowCount = 0;
  int64_t colBegin = 0;
  int64_t colCount = 0;

  bool empty() const { return rowCount == 0 || colCount == 0; }
  int64_t rowEnd() const { return rowBegin + rowCount; }
  int64_t colEnd() const { return colBegin + colCount; }
  bool holdsRows(int64_t begin, int64_t end) const {
    return rowBegin <= begin && end <= rowEnd();
  }
  bool holdsCols(int64_t begin, int64_t end) const {
    return colBegin <= begin && end <= colEnd();
  }
  bool operator==(const LaneBlock &other) const {
    return rowBegin == other.rowBegin && rowCount == other.rowCount &&
           colBegin == other.colBegin && colCount == other.colCount;
  }
};

/// A validated local tensor with its defaults resolved.
class LocalGeometry {
public:
  /// Checks `tensor` against `chip` (lanes, alignment, overflow, type);
  /// traps name it `what` (`input 1`).
  static absl::StatusOr<LocalGeometry>
  create(const cmd::LocalTensor &tensor, const plugins::ChipDescriptor &chip,
         std::string_view what);

  /// The part lane `lane` holds; empty for lanes outside the range.
  LaneBlock getBlock(int64_t lane) const;
  /// Bytes from `address` that lane `lane`'s rows span: the strides
  /// between them and the last row's own bytes, so that a view of some
  /// columns of a wider tensor ends where its last row does.
  uint64_t getFootprint(int64_t lane) const {
    LaneBlock block = getBlock(lane);
    return block.empty() ? 0 : uint64_t(block.rowCount - 1) * stride + rowBytes;
  }
  /// `input 1 (f16 [16, 64] cols/8 lanes [0, 8) at 0x400, stride 64)`.
  std::string describe() const;

  std::string what;
  DType dtype = cmd::DTYPE_INVALID;
  cmd::Layout layout = cmd::LAYOUT_ROWS;
  int64_t rows = 0;
  int64_t cols = 0;
  /// Rows (ROWS) or columns (COLS) per lane; the extent for REPLICATED.
  int64_t perLane = 0;
  int64_t laneBegin = 0;
  int64_t laneEnd = 0;
  uint64_t address = 0;
  uint64_t stride = 0;
  /// A lane row's bytes rounded up to the EU bytes; at most `stride`.
  uint64_t rowBytes = 0;
};

/// A validated global tensor with its defaults resolved.
class GlobalGeometry {
public:
  static absl::StatusOr<GlobalGeometry> create(const cmd::GlobalTensor &tensor,
                                               std::string_view what);

  /// Bytes from the first element to past the last.
  uint64_t getExtent() const { return (rows - 1) * stride + rowBytes; }
  bool isContiguous() const { return stride == rowBytes || rows == 1; }
  std::string describe() const;

  std::string what;
  cmd::Region region = cmd::REGION_COEFF;
  DType dtype = cmd::DTYPE_INVALID;
  int64_t rows = 0;
  int64_t cols = 0;
  uint64_t offset = 0;
  uint64_t stride = 0;
  uint64_t rowBytes = 0;
};

/// The first lane on which `a` and `b` share a local byte, or -1.
int64_t findOverlappingLane(const LocalGeometry &a, const LocalGeometry &b);

/// `coeff`, `activation`, `io`.
std::string_view getRegionName(cmd::Region region);
/// `rows`, `cols`, `replicated`.
std::string_view getLayoutName(cmd::Layout layout);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_GEOMETRY_H
