//===- KernelsNorm.cpp - row kernels: norms, ROPE, SOFTMAX, ARGMAX --------===//

#include "backends/common/cmodel/Kernels.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace llmc::cmodel::kernels {

void rmsNorm(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &y = *lane.out(0);
  const LaneView *weight = lane.in(1);
  const LaneBlock &b = lane.block;
  int64_t group = compute.group() ? compute.group() : x.tensor->cols;
  auto eps = float(compute.eps());
  std::vector<float> scales(group), values(b.colCount);
  if (weight)
    weight->load(0, 0, group, scales.data());
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, b.colBegin, b.colCount, values.data());
    for (int64_t start = 0; start < b.colCount; start += group) {
      float *v = values.data() + start;
      float meanSquare = dot16(v, v, group) / float(group);
      float inverse = 1.0f / std::sqrt(meanSquare + eps);
      for (int64_t i = 0; i < group; ++i)
        v[i] *= inverse;
      if (weight)
        for (int64_t i = 0; i < group; ++i)
          v[i] *= scales[i];
    }
    y.store(r, b.colBegin, b.colCount, values.data());
  }
}

void layerNorm(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &y = *lane.out(0);
  const LaneView *weight = lane.in(1), *bias = lane.in(2);
  const LaneBlock &b = lane.block;
  int64_t group = compute.group() ? compute.group() : x.tensor->cols;
  auto eps = float(compute.eps());
  std::vector<float> scales(group), shifts(group), values(b.colCount);
  if (weight)
    weight->load(0, 0, group, scales.data());
  if (bias)
    bias->load(0, 0, group, shifts.data());
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, b.colBegin, b.colCount, values.data());
    for (int64_t start = 0; start < b.colCount; start += group) {
      float *v = values.data() + start;
      float mean = sum16(v, group) / float(group);
      for (int64_t i = 0; i < group; ++i)
        v[i] -= mean;
      float variance = dot16(v, v, group) / float(group);
      float inverse = 1.0f / std::sqrt(variance + eps);
      for (int64_t i = 0; i < group; ++i)
        v[i] *= inverse;
      if (weight)
        for (int64_t i = 0; i < group; ++i)
          v[i] *= scales[i];
      if (bias)
        for (int64_t i = 0; i < group; ++i)
          v[i] += shifts[i];
    }
    y.store(r, b.colBegin, b.colCount, values.data());
  }
}

void rope(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &cos = *lane.in(1), &sin = *lane.in(2);
  const LaneView &y = *lane.out(0);
  const LaneBlock &b = lane.block;
  int64_t headDim = compute.group(), rotary = cos.tensor->cols;
  int64_t half = rotary / 2;
  bool interleaved = compute.interleaved();
  std::vector<float> in(b.colCount), out(b.colCount), c(rotary), s(rotary);
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, b.colBegin, b.colCount, in.data());
    cos.load(r, 0, rotary, c.data());
    sin.load(r, 0, rotary, s.data());
    out = in; // Channels past the rotary ones pass through.
    for (int64_t head = 0; head < b.colCount; head += headDim) {
      const float *xs = in.data() + head;
      float *ys = out.data() + head;
      // x * cos + rotate(x) * sin, cos/sin read at the output channel (the
      // top interpreter's and Hugging Face's convention).
      for (int64_t i = 0; i < half; ++i) {
        int64_t first = interleaved ? 2 * i : i;
        int64_t second = interleaved ? 2 * i + 1 : i + half;
        float p = xs[first], q = xs[second];
        ys[first] = p * c[first] - q * s[first];
        ys[second] = q * c[second] + p * s[second];
      }
    }
    y.store(r, b.colBegin, b.colCount, out.data());
  }
}

void softmax(const cmd::Compute &, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &y = *lane.out(0);
  const LaneBlock &b = lane.block;
  int64_t n = b.colCount;
  std::vector<float> values(n);
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, 0, n, values.data());
    float max = -std::numeric_limits<float>::infinity();
    for (float v : values)
      max = std::max(max, v);
    if (max == -std::numeric_limits<float>::infinity()) {
      // Nothing to normalize: zeros, as ATTENTION gives a query that sees no
      // key.
      std::fill(values.begin(), values.end(), 0.0f);
    } else {
      for (float &v : values)
        v = std::exp(v - max);
      float sum = sum16(values.data(), n);
      for (float &v : values)
        v /= sum;
    }
    y.store(r, 0, n, values.data());
  }
}

void argMax(const cmd::Compute &, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &values = *lane.out(0),
                 &indices = *lane.out(1);
  const LaneView *map = lane.in(1);
  const LaneBlock &b = lane.block, &source = x.block;
  int64_t n = source.colCount, bytes = getDTypeBytes(x.dtype(), 1);
  std::vector<float> row(n);
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, source.colBegin, n, row.data());
    // The first maximum; a NaN counts as the maximum, as in NumPy.
    int64_t best = 0;
    for (int64_t i = 1; i < n && !std::isnan(row[best]); ++i)
      if (std::isnan(row[i]) || row[i] > row[best])
        best = i;
    int64_t column = source.colBegin + best;
    std::memcpy(values.row(r) + bytes * (b.colBegin - values.block.colBegin),
                x.row(r) + bytes * best, bytes);
    int32_t index = map ? readIntElement(cmd::DTYPE_I32, map->row(r),
                                         column - map->block.colBegin)
                        : int32_t(column);
    writeIntElement(cmd::DTYPE_I32, indices.row(r),
                    b.colBegin - indices.block.colBegin, index);
  }
}

} // namespace llmc::cmodel::kernels
