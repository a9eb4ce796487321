//===- Geometry.cpp - where a tensor's elements live ----------------------===//

#include "backends/common/cmodel/Geometry.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

#include <algorithm>
#include <sstream>

namespace llmc::cmodel {

/// Dimensions beyond this are certainly wrong and would overflow byte
/// arithmetic; no memory holds 2^40 elements in one dimension.
static constexpr int64_t kMaxDim = int64_t(1) << 40;

std::string_view getRegionName(cmd::Region region) {
  switch (region) {
  case cmd::REGION_COEFF:
    return "coeff";
  case cmd::REGION_ACTIVATION:
    return "activation";
  case cmd::REGION_IO:
    return "io";
  default:
    return "invalid";
  }
}

std::string_view getLayoutName(cmd::Layout layout) {
  switch (layout) {
  case cmd::LAYOUT_ROWS:
    return "rows";
  case cmd::LAYOUT_COLS:
    return "cols";
  case cmd::LAYOUT_REPLICATED:
    return "replicated";
  default:
    return "invalid";
  }
}

static absl::Status checkShape(int64_t rows, int64_t cols, DType dtype,
                               std::string_view what) {
  if (getDTypeBits(dtype) == 0)
    return makeTrap(TrapKind::DTypeMismatch,
                    support::strCat(what, " has no valid element type"));
  if (rows < 1 || cols < 1 || rows > kMaxDim || cols > kMaxDim)
    return makeTrap(TrapKind::BadOperand,
                    support::strCat(what, " has an invalid shape [", rows, ", ",
                                    cols, "]"));
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// LocalGeometry
//===----------------------------------------------------------------------===//

absl::StatusOr<LocalGeometry>
LocalGeometry::create(const cmd::LocalTensor &tensor,
                      const plugins::ChipDescriptor &chip,
                      std::string_view what) {
  LocalGeometry g;
  g.what = std::string(what);
  g.dtype = tensor.dtype();
  g.layout = tensor.layout();
  g.rows = tensor.rows();
  g.cols = tensor.cols();
  LLMC_RETURN_IF_ERROR(checkShape(g.rows, g.cols, g.dtype, what));
  if (!cmd::Layout_IsValid(g.layout))
    return makeTrap(TrapKind::BadOperand,
                    support::strCat(what, " has an invalid layout"));

  g.laneBegin = tensor.lane_begin();
  g.laneEnd = g.laneBegin + int64_t(tensor.lane_count());
  if (tensor.lane_count() == 0 || g.laneEnd > chip.npuLanes)
    return makeTrap(TrapKind::LaneRange,
                    support::strCat(what, " uses lanes [", g.laneBegin, ", ",
                                    g.laneEnd, ") but the chip has ",
                                    chip.npuLanes, " lanes"));
  int64_t lanes = g.laneEnd - g.laneBegin;

  // The dimension the layout splits, and how much of it each lane holds.
  int64_t extent = g.layout == cmd::LAYOUT_COLS ? g.cols : g.rows;
  if (g.layout == cmd::LAYOUT_REPLICATED) {
    g.perLane = extent;
  } else {
    g.perLane =
        tensor.per_lane() ? tensor.per_lane() : (extent + lanes - 1) / lanes;
    if (g.perLane < 1)
      return makeTrap(TrapKind::BadOperand,
                      support::strCat(what, " has a negative per_lane"));
    g.perLane = std::min(g.perLane, extent);
    int64_t needed = (extent + g.perLane - 1) / g.perLane;
    if (needed > lanes)
      return makeTrap(TrapKind::BadOperand,
                      support::strCat(what, " needs ", needed, " lanes of ",
                                      g.perLane, " ", getLayoutName(g.layout),
                                      " but has ", lanes));
  }
  // A lane's columns start at a byte boundary of the global row only if a
  // 4-bit split is even.
  if (g.layout == cmd::LAYOUT_COLS && isInt4DType(g.dtype) &&
      g.perLane < g.cols && g.perLane % 2 != 0)
    return makeTrap(TrapKind::Misaligned,
                    support::strCat(what, " splits 4-bit columns ", g.perLane,
                                    " per lane; the split must be even"));

  int64_t laneCols = g.layout == cmd::LAYOUT_COLS ? g.perLane : g.cols;
  int64_t laneRows = g.layout == cmd::LAYOUT_ROWS ? g.perLane : g.rows;
  uint64_t rowBytes = getDTypeBytes(g.dtype, laneCols);
  uint64_t eu = chip.euBytesPerLane;
  g.address = tensor.address();
  g.stride = tensor.row_stride_bytes() ? tensor.row_stride_bytes()
                                       : (rowBytes + eu - 1) / eu * eu;
  if (g.address % eu != 0 || g.stride % eu != 0)
    return makeTrap(TrapKind::Misaligned,
                    support::strCat(what, " has address ", g.address,
                                    " and row stride ", g.stride,
                                    "; both must be multiples of the ", eu,
                                    " EU bytes"));
  if (g.stride < rowBytes)
    return makeTrap(TrapKind::BadOperand,
                    support::strCat(what, " has row stride ", g.stride,
                                    " below its ", rowBytes,
                                    " bytes per lane row"));
  g.rowBytes = (rowBytes + eu - 1) / eu * eu;
  uint64_t capacity = chip.localMemoryBytesPerLane;
  // Compared without overflow: address and stride may be anything a
  // malformed stream holds.
  if (g.address > capacity || g.stride > capacity ||
      uint64_t(laneRows) > capacity ||
      uint64_t(laneRows - 1) * g.stride + g.rowBytes > capacity - g.address)
    return makeTrap(
        TrapKind::LocalOverflow,
        support::strCat(what, " needs local bytes [", g.address, ", ",
                        g.address + (laneRows - 1) * g.stride + g.rowBytes,
                        ") per lane but a lane has ", capacity));
  return g;
}

LaneBlock LocalGeometry::getBlock(int64_t lane) const {
  LaneBlock block;
  if (lane < laneBegin || lane >= laneEnd)
    return block;
  int64_t first = (lane - laneBegin) * perLane;
  switch (layout) {
  case cmd::LAYOUT_ROWS:
    block.rowBegin = std::min(first, rows);
    block.rowCount = std::clamp<int64_t>(rows - first, 0, perLane);
    block.colCount = cols;
    break;
  case cmd::LAYOUT_COLS:
    block.rowCount = rows;
    block.colBegin = std::min(first, cols);
    block.colCount = std::clamp<int64_t>(cols - first, 0, perLane);
    break;
  default:
    block.rowCount = rows;
    block.colCount = cols;
    break;
  }
  return block;
}

std::string LocalGeometry::describe() const {
  std::ostringstream os;
  os << what << " (" << getDTypeName(dtype) << " [" << rows << ", " << cols
     << "] " << getLayoutName(layout);
  if (layout != cmd::LAYOUT_REPLICATED)
    os << "/" << perLane;
  os << " lanes [" << laneBegin << ", " << laneEnd << ") at " << address
     << ", stride " << stride << ")";
  return os.str();
}

int64_t findOverlappingLane(const LocalGeometry &a, const LocalGeometry &b) {
  int64_t begin = std::max(a.laneBegin, b.laneBegin);
  int64_t end = std::min(a.laneEnd, b.laneEnd);
  for (int64_t lane = begin; lane < end; ++lane) {
    uint64_t aSize = a.getFootprint(lane), bSize = b.getFootprint(lane);
    if (aSize && bSize && a.address < b.address + bSize &&
        b.address < a.address + aSize)
      return lane;
  }
  return -1;
}

//===----------------------------------------------------------------------===//
// GlobalGeometry
//===----------------------------------------------------------------------===//

absl::StatusOr<GlobalGeometry>
GlobalGeometry::create(const cmd::GlobalTensor &tensor, std::string_view what) {
  GlobalGeometry g;
  g.what = std::string(what);
  g.region = tensor.region();
  g.dtype = tensor.dtype();
  g.rows = tensor.rows();
  g.cols = tensor.cols();
  g.offset = tensor.offset();
  LLMC_RETURN_IF_ERROR(checkShape(g.rows, g.cols, g.dtype, what));
  if (!cmd::Region_IsValid(g.region) || g.region == cmd::REGION_INVALID)
    return makeTrap(TrapKind::BadOperand,
                    support::strCat(what, " has an invalid region"));
  g.rowBytes = getDTypeBytes(g.dtype, g.cols);
  g.stride = tensor.row_stride_bytes() ? tensor.row_stride_bytes() : g.rowBytes;
  if (g.stride < g.rowBytes)
    return makeTrap(TrapKind::BadOperand,
                    support::strCat(what, " has row stride ", g.stride,
                                    " below its ", g.rowBytes,
                                    " bytes per row"));
  uint64_t lastRow;
  if (__builtin_mul_overflow(uint64_t(g.rows - 1), g.stride, &lastRow) ||
      lastRow + g.rowBytes < lastRow ||
      g.offset + lastRow + g.rowBytes < g.offset)
    return makeTrap(TrapKind::OutOfBounds,
                    support::strCat(what,
                                    " extends beyond any memory (row stride ",
                                    g.stride, ")"));
  return g;
}

std::string GlobalGeometry::describe() const {
  std::ostringstream os;
  os << what << " (" << getDTypeName(dtype) << " [" << rows << ", " << cols
     << "] in " << getRegionName(region) << " at " << offset << ", stride "
     << stride << ")";
  return os.str();
}

} // namespace llmc::cmodel
