//===- HostDataMovement.cpp - copies, gathers and rankings on the host ----===//

#include "backends/host/device/HostCommands.h"

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/DType.h"

#include "support/Strings.h"

#include "absl/types/span.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numeric>

namespace llmc::host {
namespace {

/// Bytes of one row of `tensor`, which must start and end on a byte.
absl::StatusOr<int64_t> getRowBytes(const TensorRef &tensor) {
  int64_t bits = cmodel::getDTypeBits(tensor.dtype()) * tensor.cols();
  if (bits % 8)
    return commandError("rows must be whole bytes");
  return bits / 8;
}

absl::Status runCopy(const HostOperands &operands) {
  const TensorRef &x = operands.in(0), &y = operands.out(0);
  if (x.dtype() != y.dtype() || x.rows() != y.rows() || x.cols() != y.cols())
    return commandError("COPY keeps the shape and type");
  absl::StatusOr<int64_t> bytes = getRowBytes(x);
  if (!bytes.ok())
    return bytes.status();
  for (int64_t r = 0; r < x.rows(); ++r)
    std::memmove(y.row(r), x.row(r), *bytes);
  return absl::OkStatus();
}

/// The I32 indices of `index` [1, count], each checked against `limit`.
absl::StatusOr<std::vector<int32_t>> readIndices(const TensorRef &index,
                                                 int64_t count, int64_t limit) {
  if (index.dtype() != cmd::DTYPE_I32 || index.rows() * index.cols() != count)
    return commandError("the index must hold one I32 per row");
  std::vector<int32_t> indices(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t r = index.cols() == 1 ? i : 0, c = index.cols() == 1 ? 0 : i;
    std::memcpy(&indices[i], index.row(r) + 4 * c, 4);
    if (indices[i] < 0 || indices[i] >= limit)
      return commandError(support::strCat(
          "index ", indices[i], " is outside the table's ", limit, " rows"));
  }
  return indices;
}

/// GATHER from a quantized table: each row widened, dequantized by its
/// scale and zero point rows (DEQUANTIZE's arithmetic) and narrowed.
absl::Status runDequantizingGather(const HostOperands &operands,
                                   absl::Span<const int32_t> indices) {
  const TensorRef &table = operands.in(0), &scale = operands.in(2),
                  &zp = operands.in(3), &y = operands.out(0);
  int64_t k = table.cols(), groups = scale.cols();
  if (!cmodel::isQuantWeightDType(table.dtype()) ||
      !cmodel::isFloatDType(scale.dtype()) ||
      !cmodel::isFloatDType(y.dtype()) || y.cols() != k ||
      scale.rows() != table.rows() || groups == 0 || k % groups != 0 ||
      (zp.present() && (zp.rows() != scale.rows() || zp.cols() != groups)))
    return commandError("a dequantizing GATHER reads an I8/U8/I4/U4 table "
                        "[V, K] with float scales [V, K/G] (and zero points) "
                        "into float rows [rows, K]");
  std::vector<float> row(k), scales(groups), zeros(groups, 0.0f);
  for (int64_t r = 0; r < y.rows(); ++r) {
    int64_t source = indices[r];
    cmodel::widenElements(table.dtype(), table.row(source), 0, k, row.data());
    scale.widenRow(source, groups, scales.data());
    if (zp.present())
      zp.widenRow(source, groups, zeros.data());
    cmodel::dequantizeGroups(row.data(), k, scales.data(), zeros.data(),
                             groups);
    y.narrowRow(r, row.data());
  }
  return absl::OkStatus();
}

absl::Status runGather(const HostOperands &operands) {
  const TensorRef &table = operands.in(0), &y = operands.out(0);
  if (operands.in(2).present()) {
    absl::StatusOr<std::vector<int32_t>> indices =
        readIndices(operands.in(1), y.rows(), table.rows());
    if (!indices.ok())
      return indices.status();
    return runDequantizingGather(operands, *indices);
  }
  if (table.dtype() != y.dtype() || table.cols() != y.cols())
    return commandError("GATHER keeps the table's row type and width");
  absl::StatusOr<std::vector<int32_t>> indices =
      readIndices(operands.in(1), y.rows(), table.rows());
  if (!indices.ok())
    return indices.status();
  absl::StatusOr<int64_t> bytes = getRowBytes(y);
  if (!bytes.ok())
    return bytes.status();
  for (int64_t r = 0; r < y.rows(); ++r)
    std::memcpy(y.row(r), table.row((*indices)[r]), *bytes);
  return absl::OkStatus();
}

absl::Status runScatter(const HostOperands &operands) {
  const TensorRef &rows = operands.in(0), &table = operands.out(0);
  if (rows.dtype() != table.dtype() || rows.cols() != table.cols())
    return commandError("SCATTER keeps the table's row type and width");
  absl::StatusOr<std::vector<int32_t>> indices =
      readIndices(operands.in(1), rows.rows(), table.rows());
  if (!indices.ok())
    return indices.status();
  absl::StatusOr<int64_t> bytes = getRowBytes(rows);
  if (!bytes.ok())
    return bytes.status();
  for (int64_t r = 0; r < rows.rows(); ++r)
    std::memcpy(table.row((*indices)[r]), rows.row(r), *bytes);
  return absl::OkStatus();
}

/// Whether `a` (at column ia) ranks before `b` (at ib): NaN above every
/// number, then the larger, then the lower column.
bool ranksBefore(float a, int64_t ia, float b, int64_t ib) {
  if (std::isnan(a) != std::isnan(b))
    return std::isnan(a);
  if (!std::isnan(a) && a != b)
    return a > b;
  return ia < ib;
}

/// The column of the best of `values` (ranksBefore), n > 0. A greedy
/// decode step ranks a whole vocabulary (150k logits), so this takes one
/// pass: the largest value of each block over independent chains, and a
/// scan only of the blocks that hold a NaN (or an infinity, which v - v
/// cannot tell apart) or beat the best so far.
int64_t findBest(const float *values, int64_t n) {
  constexpr int64_t kBlock = 512, kChains = 8;
  int64_t best = -1;
  float bestValue = -INFINITY;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    float largest[kChains], nonFinite[kChains];
    std::fill(largest, largest + kChains, -INFINITY);
    std::fill(nonFinite, nonFinite + kChains, 0.0f);
    int64_t c = start;
    for (; c + kChains <= end; c += kChains)
      for (int64_t j = 0; j < kChains; ++j) {
        largest[j] = std::max(largest[j], values[c + j]);
        nonFinite[j] += values[c + j] - values[c + j];
      }
    for (; c < end; ++c) {
      largest[0] = std::max(largest[0], values[c]);
      nonFinite[0] += values[c] - values[c];
    }
    if (std::isnan(std::accumulate(nonFinite, nonFinite + kChains, 0.0f))) {
      const float *nan = std::find_if(values + start, values + end,
                                      [](float v) { return std::isnan(v); });
      if (nan != values + end)
        return nan - values;
    }
    const float blockMax = *std::max_element(largest, largest + kChains);
    if (best < 0 || blockMax > bestValue) {
      best = std::find(values + start, values + end, blockMax) - values;
      bestValue = blockMax;
    }
  }
  return best;
}

/// ARGMAX (k = 1) and TOPK: the k best columns of every row, best first.
absl::Status runRanking(const cmd::Compute &compute,
                        const HostOperands &operands) {
  const TensorRef &x = operands.in(0), &values = operands.out(0),
                  &indices = operands.out(1);
  int64_t k = compute.opcode() == cmd::TOPK ? compute.group() : 1;
  if (k <= 0 || !indices.present() || indices.dtype() != cmd::DTYPE_I32 ||
      indices.rows() != x.rows() || indices.cols() != k ||
      (values.present() &&
       (values.rows() != x.rows() || values.cols() != k ||
        !cmodel::isFloatDType(values.dtype()))))
    return commandError("ranking writes [rows, k] I32 indices and, if "
                        "present, [rows, k] float values");
  int64_t cols = x.cols();
  if (k == 1 && cols > 0) {
    std::vector<float> widened;
    for (int64_t r = 0; r < x.rows(); ++r) {
      // Aligned f32 rows (lm_head's logits) are ranked where they lie.
      const float *row = reinterpret_cast<const float *>(x.row(r));
      if (x.dtype() != cmd::DTYPE_F32 ||
          reinterpret_cast<uintptr_t>(row) % alignof(float)) {
        widened.resize(cols);
        x.widenRow(r, cols, widened.data());
        row = widened.data();
      }
      int64_t column = findBest(row, cols);
      int32_t index = static_cast<int32_t>(column);
      std::memcpy(indices.row(r), &index, 4);
      if (values.present())
        values.narrowRow(r, &row[column]);
    }
    return absl::OkStatus();
  }
  std::vector<float> row(cols), best(k);
  std::vector<int64_t> order(cols);
  for (int64_t r = 0; r < x.rows(); ++r) {
    x.widenRow(r, cols, row.data());
    std::iota(order.begin(), order.end(), 0);
    int64_t kept = std::min(k, cols);
    std::partial_sort(order.begin(), order.begin() + kept, order.end(),
                      [&](int64_t a, int64_t b) {
                        return ranksBefore(row[a], a, row[b], b);
                      });
    for (int64_t i = 0; i < k; ++i) {
      bool real = i < kept;
      int32_t index = real ? static_cast<int32_t>(order[i]) : INT32_MAX;
      best[i] = real ? row[order[i]] : -INFINITY;
      std::memcpy(indices.row(r) + 4 * i, &index, 4);
    }
    if (values.present())
      values.narrowRow(r, best.data());
  }
  return absl::OkStatus();
}

} // namespace

absl::Status runDataMovement(const cmd::Compute &compute,
                             const HostOperands &operands) {
  if (!operands.in(0).present() ||
      (!operands.out(0).present() && !operands.out(1).present()))
    return commandError("needs an input and an output");
  switch (compute.opcode()) {
  case cmd::COPY:
    return runCopy(operands);
  case cmd::GATHER:
    return runGather(operands);
  case cmd::SCATTER:
    return runScatter(operands);
  default:
    return runRanking(compute, operands);
  }
}

} // namespace llmc::host
