//===- AttentionTest.cpp - attention against a double reference -----------===//

#include "backends/host/kernels/Kernels.h"
#include "backends/host/kernels/test/TestSupport.h"
#include "pieces/Masks.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

namespace llmc::host::test {
namespace {

/// HistoryGap is a decode step's mask: a third of the slots hold history,
/// the new rows come last (causal among themselves), the slots between are
/// empty and hidden from every row. EmptySlots is the same step as the llm
/// masks write it: the empty slots at the finite masked score, where a
/// kernel that read them would meet NaN (the first 64 slots hold history and
/// the new rows start at slot 288, so that every path skips whole blocks).
enum class MaskKind {
  None,
  Causal,
  Random,
  OneRowHidden,
  HistoryGap,
  EmptySlots
};

using pieces::kMaskedScore;

struct Case {
  int64_t lq, lk, hq, hkv, d;
  MaskKind mask;
  float scale;
  /// Positive: the scores are soft-capped.
  float softcap = 0.0f;
};

const char *describe(FloatType type) {
  switch (type) {
  case FloatType::F32:
    return "f32";
  case FloatType::F16:
    return "f16";
  case FloatType::BF16:
    return "bf16";
  }
  return "";
}

/// Every path with every stored type of keys and values.
std::vector<std::pair<Isa, FloatType>> getTestIsasAndTypes() {
  std::vector<std::pair<Isa, FloatType>> runs;
  for (Isa isa : getTestIsas())
    for (FloatType type : {FloatType::F32, FloatType::F16, FloatType::BF16})
      runs.emplace_back(isa, type);
  return runs;
}

std::string describe(const Case &c, Isa isa, FloatType kvType) {
  return "lq" + std::to_string(c.lq) + " lk" + std::to_string(c.lk) + " hq" +
         std::to_string(c.hq) + " hkv" + std::to_string(c.hkv) + " d" +
         std::to_string(c.d) + " mask" + std::to_string(int(c.mask)) +
         " softcap" + std::to_string(c.softcap) + " " + getIsaName(isa) +
         " k/v " + describe(kvType);
}

struct Inputs {
  int64_t qStride, kStride, vStride, maskStride, oStride;
  std::vector<float> q, k, v, mask;
};

Inputs makeInputs(const Case &c, std::mt19937 &rng) {
  Inputs in;
  in.qStride = c.hq * c.d + 3;
  in.kStride = c.hkv * c.d + 1;
  in.vStride = c.hkv * c.d + 5;
  in.maskStride = c.lk + 2;
  in.oStride = c.hq * c.d + 4;
  in.q = randomFloats(c.lq * in.qStride, rng);
  in.k = randomFloats(c.lk * in.kStride, rng);
  in.v = randomFloats(c.lk * in.vStride, rng);
  // Keys and values that bf16 and f16 hold exactly, so that one reference
  // serves every stored type.
  for (std::vector<float> *values : {&in.k, &in.v})
    for (float &value : *values) {
      uint32_t bits = uint32_t(referenceToBFloat16(value)) << 16;
      std::memcpy(&value, &bits, 4);
      if (std::fabs(value) < 0x1p-14f)
        value = 0.0f;
    }
  std::uniform_int_distribution<int> percent(0, 99);
  if (c.mask != MaskKind::None) {
    in.mask.assign(c.lq * in.maskStride, 0.0f);
    for (int64_t i = 0; i < c.lq; ++i)
      for (int64_t t = 0; t < c.lk; ++t) {
        float &m = in.mask[i * in.maskStride + t];
        switch (c.mask) {
        case MaskKind::Causal: // Aligned to the last key, as in decoding.
          m = t <= i + (c.lk - c.lq) ? 0.0f : -INFINITY;
          break;
        case MaskKind::Random:
          m = percent(rng) < 30 ? -INFINITY : float(percent(rng)) / 50.0f;
          break;
        case MaskKind::OneRowHidden:
          m = i == c.lq / 2 ? -INFINITY : 0.0f;
          break;
        case MaskKind::HistoryGap:
          m = t < c.lk / 3 || (t >= c.lk - c.lq && t <= i + (c.lk - c.lq))
                  ? 0.0f
                  : -INFINITY;
          break;
        case MaskKind::EmptySlots:
          m = t < 64 || t >= c.lk - c.lq ? 0.0f : kMaskedScore;
          break;
        default:
          break;
        }
      }
  }
  return in;
}

/// `values` [rows, stride] stored as `type`, with the rows `hidden` marks
/// (which the mask hides from every query row) set to `fill`: what an empty
/// history slot holds must not reach the output.
struct StoredRows {
  std::vector<float> f32;
  std::vector<uint16_t> halves;
  FloatRows rows;
};

StoredRows store(const std::vector<float> &values, int64_t stride,
                 FloatType type, const std::vector<bool> &hidden, float fill) {
  StoredRows stored;
  stored.f32 = values;
  for (size_t t = 0; t < hidden.size(); ++t)
    if (hidden[t])
      std::fill_n(stored.f32.begin() + t * stride, stride, fill);
  for (float value : stored.f32)
    stored.halves.push_back(type == FloatType::F16
                                ? referenceToHalf(value)
                                : referenceToBFloat16(value));
  stored.rows = {type,
                 type == FloatType::F32 ? (const void *)stored.f32.data()
                                        : stored.halves.data(),
                 stride};
  return stored;
}

void check(const Case &c, WorkerPool &pool, std::mt19937 &rng) {
  Inputs in = makeInputs(c, rng);
  const int64_t group = c.hq / c.hkv;
  // Keys the mask hides from every query row.
  std::vector<bool> hidden(c.lk, !in.mask.empty());
  for (int64_t t = 0; t < c.lk && !in.mask.empty(); ++t)
    for (int64_t i = 0; i < c.lq; ++i)
      hidden[t] = hidden[t] && in.mask[i * in.maskStride + t] <= kMaskedScore;
  // Keys at -inf may share a block with visible ones, which a path reads
  // whole: a large value there is harmless, NaN would not be.
  const float fill = c.mask == MaskKind::EmptySlots ? NAN : 16384.0f;
  for (auto [isa, kvType] : getTestIsasAndTypes()) {
    StoredRows keys = store(in.k, in.kStride, kvType, hidden, fill);
    StoredRows values = store(in.v, in.vStride, kvType, hidden, fill);
    std::vector<float> o(c.lq * in.oStride, 9.0f);
    attention(in.q.data(), in.qStride, keys.rows, values.rows,
              in.mask.empty() ? nullptr : in.mask.data(), in.maskStride, c.lq,
              c.lk, c.hq, c.hkv, c.d, c.scale, c.softcap, o.data(), in.oStride,
              pool, isa);
    int failures = 0;
    for (int64_t i = 0; i < c.lq; ++i)
      for (int64_t h = 0; h < c.hq; ++h) {
        const int64_t kv = h / group;
        std::vector<double> s(c.lk);
        double max = -INFINITY;
        for (int64_t t = 0; t < c.lk; ++t) {
          double dot = 0;
          for (int64_t e = 0; e < c.d; ++e)
            dot += double(in.q[i * in.qStride + h * c.d + e]) *
                   in.k[t * in.kStride + kv * c.d + e];
          s[t] = dot * c.scale;
          if (c.softcap > 0)
            s[t] = c.softcap * std::tanh(s[t] / c.softcap);
          s[t] += in.mask.empty() ? 0.0 : in.mask[i * in.maskStride + t];
          max = std::max(max, s[t]);
        }
        double sum = 0;
        for (int64_t t = 0; t < c.lk; ++t) {
          s[t] = max == -INFINITY ? 0.0 : std::exp(s[t] - max);
          sum += s[t];
        }
        for (int64_t e = 0; e < c.d; ++e) {
          double expected = 0, scale = 0;
          for (int64_t t = 0; t < c.lk; ++t) {
            double value = in.v[t * in.vStride + kv * c.d + e];
            expected += s[t] * value;
            scale += s[t] * std::fabs(value);
          }
          expected = sum ? expected / sum : 0.0;
          scale = sum ? scale / sum : 0.0;
          double got = o[i * in.oStride + h * c.d + e];
          if (!(std::fabs(got - expected) <= 2e-5 * (scale + 1.0)) &&
              failures++ < 3)
            ADD_FAILURE() << describe(c, isa, kvType) << ": o[" << i
                          << ", head " << h << ", " << e << "] = " << got
                          << ", expected " << expected;
        }
      }
    for (int64_t i = 0; i < c.lq; ++i)
      EXPECT_EQ(o[i * in.oStride + c.hq * c.d], 9.0f) << "wrote past row " << i;
  }
}

TEST(AttentionTest, MatchesReference) {
  WorkerPool pool(2);
  std::mt19937 rng(3);
  const Case cases[] = {
      {1, 1, 1, 1, 1, MaskKind::None, 1.0f},
      {1, 37, 14, 2, 64, MaskKind::None, 0.125f},
      {1, 300, 14, 2, 64, MaskKind::Causal, 0.125f},
      {3, 40, 4, 4, 20, MaskKind::Random, 0.3f},
      {17, 17, 6, 2, 16, MaskKind::Causal, 0.25f},
      {5, 33, 4, 1, 100, MaskKind::OneRowHidden, 0.1f},
      {9, 70, 2, 2, 65, MaskKind::Random, 1.0f},
      {40, 40, 2, 1, 32, MaskKind::Causal, 0.5f},
      {2, 16, 3, 1, 48, MaskKind::None, 2.0f},
      {1, 300, 14, 2, 64, MaskKind::HistoryGap, 0.125f},
      {4, 100, 4, 2, 32, MaskKind::HistoryGap, 0.25f},
      {1, 289, 14, 2, 64, MaskKind::EmptySlots, 0.125f},
      {3, 291, 4, 2, 32, MaskKind::EmptySlots, 0.25f},
      // Gemma 2's soft-capping: caps near the spread of the scores.
      {1, 70, 4, 2, 64, MaskKind::Causal, 0.5f, 2.0f},
      {9, 70, 2, 2, 65, MaskKind::Random, 1.0f, 3.0f},
      {17, 17, 6, 2, 16, MaskKind::Causal, 0.25f, 50.0f},
  };
  for (const Case &c : cases)
    check(c, pool, rng);
}

TEST(AttentionTest, BitIdenticalForAnyThreadCount) {
  std::mt19937 rng(11);
  for (const Case &c : {Case{1, 200, 14, 2, 64, MaskKind::None, 0.125f},
                        Case{33, 33, 4, 2, 32, MaskKind::Causal, 0.2f},
                        Case{33, 33, 4, 2, 32, MaskKind::Causal, 0.2f, 2.0f}}) {
    Inputs in = makeInputs(c, rng);
    for (Isa isa : getTestIsas()) {
      std::vector<float> first;
      for (unsigned threads : {1u, 2u, 3u}) {
        WorkerPool pool(threads);
        std::vector<float> o(c.lq * in.oStride);
        attention(
            in.q.data(), in.qStride, {FloatType::F32, in.k.data(), in.kStride},
            {FloatType::F32, in.v.data(), in.vStride},
            in.mask.empty() ? nullptr : in.mask.data(), in.maskStride, c.lq,
            c.lk, c.hq, c.hkv, c.d, c.scale, c.softcap, o.data(), in.oStride,
            pool, isa);
        if (first.empty())
          first = o;
        else
          EXPECT_EQ(0, std::memcmp(first.data(), o.data(), 4 * o.size()))
              << describe(c, isa, FloatType::F32) << ", " << threads
              << " threads";
      }
    }
  }
}

} // namespace
} // namespace llmc::host::test
