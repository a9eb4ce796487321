//===- KernelsSelect.cpp - COMPARE, SELECT, TOPK and CUMSUM ---------------===//
//
// The kernels that test, pick and rank elements, and the running sum. They
// follow the top interpreter's kernels exactly: comparisons in each type's
// own arithmetic, selections that move element bits, top-k ranking NaN
// above every number and ties by the lower index, and running sums in
// double precision rounded once per output.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/Kernels.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

namespace llmc::cmodel::kernels {

/// The bytes of the element of `view` that output element (row, col) reads,
/// for an operand that may broadcast ([1, cols] or [1, 1]).
static const uint8_t *elementAt(const LaneView &view, int64_t row,
                                int64_t col) {
  const LocalGeometry &tensor = *view.tensor;
  if (tensor.rows == 1)
    row = 0;
  if (tensor.rows == 1 && tensor.cols == 1)
    col = 0;
  return view.row(row) +
         (col - view.block.colBegin) * (getDTypeBits(view.dtype()) / 8);
}

/// Elements (row, [col, col + count)) of a possibly broadcast operand as
/// doubles, which hold every float and I32 value exactly.
static void loadExact(const LaneView &view, int64_t row, int64_t col,
                      int64_t count, double *out) {
  if (isFloatDType(view.dtype())) {
    std::vector<float> values(count);
    view.loadBroadcast(row, col, count, values.data());
    std::copy(values.begin(), values.end(), out);
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    out[i] = readIntElement(view.dtype(), elementAt(view, row, col + i), 0);
}

/// Whether `lhs <comparison> rhs`, with the C++ operators: a NaN makes every
/// relation false except `ne`, as IEEE 754 says.
static bool holds(cmd::Comparison comparison, double lhs, double rhs) {
  switch (comparison) {
  case cmd::COMPARISON_EQ:
    return lhs == rhs;
  case cmd::COMPARISON_NE:
    return lhs != rhs;
  case cmd::COMPARISON_LT:
    return lhs < rhs;
  case cmd::COMPARISON_LE:
    return lhs <= rhs;
  case cmd::COMPARISON_GT:
    return lhs > rhs;
  case cmd::COMPARISON_GE:
    return lhs >= rhs;
  default:
    return false;
  }
}

void compare(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &a = *lane.in(0), &b = *lane.in(1), &y = *lane.out(0);
  const LaneBlock &block = lane.block;
  int64_t n = block.colCount;
  std::vector<double> lhs(n), rhs(n);
  std::vector<int32_t> result(n);
  for (int64_t r = block.rowBegin; r < block.rowEnd(); ++r) {
    loadExact(a, r, block.colBegin, n, lhs.data());
    loadExact(b, r, block.colBegin, n, rhs.data());
    for (int64_t i = 0; i < n; ++i)
      result[i] = holds(compute.comparison(), lhs[i], rhs[i]) ? 1 : 0;
    for (int64_t i = 0; i < n; ++i)
      writeIntElement(y.dtype(), y.row(r),
                      block.colBegin + i - y.block.colBegin, result[i]);
  }
}

void select(const cmd::Compute &, const LaneOperands &lane) {
  const LaneView &cond = *lane.in(0), &x = *lane.in(1), &y = *lane.in(2);
  const LaneView &z = *lane.out(0);
  const LaneBlock &block = lane.block;
  int64_t n = block.colCount, bytes = getDTypeBits(z.dtype()) / 8;
  std::vector<double> picks(n);
  // Through a temporary row, so z may be exactly x or y.
  std::vector<uint8_t> row(n * bytes);
  for (int64_t r = block.rowBegin; r < block.rowEnd(); ++r) {
    loadExact(cond, r, block.colBegin, n, picks.data());
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(row.data() + i * bytes,
                  elementAt(picks[i] != 0 ? x : y, r, block.colBegin + i),
                  bytes);
    std::memcpy(z.row(r) + (block.colBegin - z.block.colBegin) * bytes,
                row.data(), row.size());
  }
}

/// Whether `a` ranks above `b` when NaN ranks above every number (the top
/// interpreter's order).
static bool ranksAbove(float a, float b) {
  if (std::isnan(a))
    return !std::isnan(b);
  return !std::isnan(b) && a > b;
}

void topK(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &values = *lane.out(0),
                 &indices = *lane.out(1);
  const LaneView *map = lane.in(1);
  const LaneBlock &b = lane.block, &source = x.block;
  int64_t k = compute.group(), n = source.colCount;
  int64_t kept = std::min(k, n), bytes = getDTypeBits(x.dtype()) / 8;
  std::vector<float> row(n);
  std::vector<int32_t> index(n);
  std::vector<int64_t> order(n);
  const float padding = -std::numeric_limits<float>::infinity();
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, source.colBegin, n, row.data());
    for (int64_t i = 0; i < n; ++i)
      index[i] = map ? readIntElement(cmd::DTYPE_I32, map->row(r),
                                      source.colBegin + i - map->block.colBegin)
                     : int32_t(source.colBegin + i);
    // Larger first, NaN first of all; ties by the lower index, then by the
    // column, so that the order is total.
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + kept, order.end(),
                      [&](int64_t p, int64_t q) {
                        if (ranksAbove(row[p], row[q]))
                          return true;
                        if (ranksAbove(row[q], row[p]))
                          return false;
                        if (index[p] != index[q])
                          return index[p] < index[q];
                        return p < q;
                      });
    int64_t valueColumn = b.colBegin - values.block.colBegin;
    int64_t indexColumn = b.colBegin - indices.block.colBegin;
    for (int64_t i = 0; i < k; ++i) {
      if (i < kept) {
        std::memcpy(values.row(r) + (valueColumn + i) * bytes,
                    x.row(r) + order[i] * bytes, bytes);
        writeIntElement(cmd::DTYPE_I32, indices.row(r), indexColumn + i,
                        index[order[i]]);
        continue;
      }
      // A lane holding fewer than k columns pads with candidates below
      // every real one.
      values.store(r, b.colBegin + i, 1, &padding);
      writeIntElement(cmd::DTYPE_I32, indices.row(r), indexColumn + i,
                      std::numeric_limits<int32_t>::max());
    }
  }
}

void cumSum(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &y = *lane.out(0);
  const LaneBlock &b = lane.block;
  int64_t n = b.colCount;
  bool exclusive = compute.exclusive(), reverse = compute.reverse();
  std::vector<float> in(n), out(n);
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, 0, n, in.data());
    // One running sum serves both forms, so an exclusive output equals the
    // inclusive output of the previous position bit for bit.
    double sum = 0.0;
    for (int64_t step = 0; step < n; ++step) {
      int64_t i = reverse ? n - 1 - step : step;
      if (exclusive)
        out[i] = static_cast<float>(sum);
      sum += in[i];
      if (!exclusive)
        out[i] = static_cast<float>(sum);
    }
    y.store(r, 0, n, out.data());
  }
}

} // namespace llmc::cmodel::kernels
