//===- Geometry.cpp - where a tensor's elements live ----------------------===//

#include "backends/common/cmodel/Geometry.h"

#include "backends/common/cmodel/Trap.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace llmc::cmodel {

/// Dimensions beyond this are certainly wrong and would overflow byte
/// arithmetic; no memory holds 2^40 elements in one dimension.
static constexpr int64_t kMaxDim = int64_t(1) << 40;

llvm::StringRef getRegionName(cmd::Region region) {
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

llvm::StringRef getLayoutName(cmd::Layout layout) {
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

static llvm::Error checkShape(int64_t rows, int64_t cols, DType dtype,
                              llvm::StringRef what) {
  if (getDTypeBits(dtype) == 0)
    return makeTrap(TrapKind::DTypeMismatch,
                    what + " has no valid element type");
  if (rows < 1 || cols < 1 || rows > kMaxDim || cols > kMaxDim)
    return makeTrap(TrapKind::BadOperand, what + " has an invalid shape [" +
                                              llvm::Twine(rows) + ", " +
                                              llvm::Twine(cols) + "]");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// LocalGeometry
//===----------------------------------------------------------------------===//

llvm::Expected<LocalGeometry>
LocalGeometry::create(const cmd::LocalTensor &tensor,
                      const plugins::ChipDescriptor &chip,
                      llvm::StringRef what) {
  LocalGeometry g;
  g.what = what.str();
  g.dtype = tensor.dtype();
  g.layout = tensor.layout();
  g.rows = tensor.rows();
  g.cols = tensor.cols();
  if (llvm::Error error = checkShape(g.rows, g.cols, g.dtype, what))
    return std::move(error);
  if (!cmd::Layout_IsValid(g.layout))
    return makeTrap(TrapKind::BadOperand, what + " has an invalid layout");

  g.laneBegin = tensor.lane_begin();
  g.laneEnd = g.laneBegin + int64_t(tensor.lane_count());
  if (tensor.lane_count() == 0 || g.laneEnd > chip.npuLanes)
    return makeTrap(TrapKind::LaneRange,
                    what + " uses lanes [" + llvm::Twine(g.laneBegin) + ", " +
                        llvm::Twine(g.laneEnd) + ") but the chip has " +
                        llvm::Twine(chip.npuLanes) + " lanes");
  int64_t lanes = g.laneEnd - g.laneBegin;

  // The dimension the layout splits, and how much of it each lane holds.
  int64_t extent = g.layout == cmd::LAYOUT_COLS ? g.cols : g.rows;
  if (g.layout == cmd::LAYOUT_REPLICATED) {
    g.perLane = extent;
  } else {
    g.perLane =
        tensor.per_lane() ? tensor.per_lane() : llvm::divideCeil(extent, lanes);
    if (g.perLane < 1)
      return makeTrap(TrapKind::BadOperand, what + " has a negative per_lane");
    g.perLane = std::min(g.perLane, extent);
    int64_t needed = llvm::divideCeil(extent, g.perLane);
    if (needed > lanes)
      return makeTrap(TrapKind::BadOperand,
                      what + " needs " + llvm::Twine(needed) + " lanes of " +
                          llvm::Twine(g.perLane) + " " +
                          getLayoutName(g.layout) + " but has " +
                          llvm::Twine(lanes));
  }
  // A lane's columns start at a byte boundary of the global row only if a
  // 4-bit split is even.
  if (g.layout == cmd::LAYOUT_COLS && isInt4DType(g.dtype) &&
      g.perLane < g.cols && g.perLane % 2 != 0)
    return makeTrap(TrapKind::Misaligned,
                    what + " splits 4-bit columns " + llvm::Twine(g.perLane) +
                        " per lane; the split must be even");

  int64_t laneCols = g.layout == cmd::LAYOUT_COLS ? g.perLane : g.cols;
  int64_t laneRows = g.layout == cmd::LAYOUT_ROWS ? g.perLane : g.rows;
  uint64_t rowBytes = getDTypeBytes(g.dtype, laneCols);
  uint64_t eu = chip.euBytesPerLane;
  g.address = tensor.address();
  g.stride = tensor.row_stride_bytes() ? tensor.row_stride_bytes()
                                       : llvm::alignTo(rowBytes, eu);
  if (g.address % eu != 0 || g.stride % eu != 0)
    return makeTrap(TrapKind::Misaligned,
                    what + " has address " + llvm::Twine(g.address) +
                        " and row stride " + llvm::Twine(g.stride) +
                        "; both must be multiples of the " + llvm::Twine(eu) +
                        " EU bytes");
  if (g.stride < rowBytes)
    return makeTrap(TrapKind::BadOperand,
                    what + " has row stride " + llvm::Twine(g.stride) +
                        " below its " + llvm::Twine(rowBytes) +
                        " bytes per lane row");
  g.rowBytes = llvm::alignTo(rowBytes, eu);
  uint64_t capacity = chip.localMemoryBytesPerLane;
  // Compared without overflow: address and stride may be anything a
  // malformed stream holds.
  if (g.address > capacity || g.stride > capacity ||
      uint64_t(laneRows) > capacity ||
      uint64_t(laneRows - 1) * g.stride + g.rowBytes > capacity - g.address)
    return makeTrap(TrapKind::LocalOverflow,
                    what + " needs local bytes [" + llvm::Twine(g.address) +
                        ", " +
                        llvm::Twine(g.address + (laneRows - 1) * g.stride +
                                    g.rowBytes) +
                        ") per lane but a lane has " + llvm::Twine(capacity));
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
  std::string text;
  llvm::raw_string_ostream os(text);
  os << what << " (" << getDTypeName(dtype) << " [" << rows << ", " << cols
     << "] " << getLayoutName(layout);
  if (layout != cmd::LAYOUT_REPLICATED)
    os << "/" << perLane;
  os << " lanes [" << laneBegin << ", " << laneEnd << ") at " << address
     << ", stride " << stride << ")";
  return text;
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

llvm::Expected<GlobalGeometry>
GlobalGeometry::create(const cmd::GlobalTensor &tensor, llvm::StringRef what) {
  GlobalGeometry g;
  g.what = what.str();
  g.region = tensor.region();
  g.dtype = tensor.dtype();
  g.rows = tensor.rows();
  g.cols = tensor.cols();
  g.offset = tensor.offset();
  if (llvm::Error error = checkShape(g.rows, g.cols, g.dtype, what))
    return std::move(error);
  if (!cmd::Region_IsValid(g.region) || g.region == cmd::REGION_INVALID)
    return makeTrap(TrapKind::BadOperand, what + " has an invalid region");
  g.rowBytes = getDTypeBytes(g.dtype, g.cols);
  g.stride = tensor.row_stride_bytes() ? tensor.row_stride_bytes() : g.rowBytes;
  if (g.stride < g.rowBytes)
    return makeTrap(TrapKind::BadOperand,
                    what + " has row stride " + llvm::Twine(g.stride) +
                        " below its " + llvm::Twine(g.rowBytes) +
                        " bytes per row");
  uint64_t lastRow;
  if (__builtin_mul_overflow(uint64_t(g.rows - 1), g.stride, &lastRow) ||
      lastRow + g.rowBytes < lastRow ||
      g.offset + lastRow + g.rowBytes < g.offset)
    return makeTrap(TrapKind::OutOfBounds,
                    what + " extends beyond any memory (row stride " +
                        llvm::Twine(g.stride) + ")");
  return g;
}

std::string GlobalGeometry::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << what << " (" << getDTypeName(dtype) << " [" << rows << ", " << cols
     << "] in " << getRegionName(region) << " at " << offset << ", stride "
     << stride << ")";
  return text;
}

} // namespace llmc::cmodel
