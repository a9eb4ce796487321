//===- KernelsBench.cpp - throughput of the host kernels ------------------===//
//
// Not a test: prints, in one run, a STREAM-style read bandwidth (the sum of
// a 1 GiB float array on the pool's threads), then for the matrix shapes of
// a Qwen2.5-0.5B step the decode (m = 1) throughput of linear in bytes of
// weights and scales per second, with the fraction of a STREAM-style read
// of the same bytes, then the same from the L2 caches (the kernels' compute
// ceiling), and the prefill (m = 512) throughput in GFLOP/s; then
// attention.
//
// Decode cycles through enough copies of each matrix to overflow the L3
// cache, as a real step (24 layers of weights) does. The bandwidth of a
// shared host drifts by tens of percent over seconds, so each decode cell
// alternates kernel passes and plain reads of the same bytes, and compares
// the best of each.
//
// Usage: kernels_bench [--threads=N] [--isa=scalar|avx2|avx512] [--quick]
//                      [--only=decode|cached|prefill|attention]
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/HugePageMemory.h"
#include "backends/host/kernels/Kernels.h"
#include "backends/host/kernels/bench/ComputePeak.h"
#include "backends/host/kernels/bench/ReadBandwidth.h"

#include "absl/types/span.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace llmc;
using namespace llmc::host;

namespace {

/// Memory for matrices, handed out in order from chunks on huge pages, as
/// the host device keeps a binary's weights (HugePageMemory.h): over 4 KiB
/// pages a stream reads measurably slower, and the decode figures would
/// not be the model's.
class MatrixArena {
public:
  absl::Span<uint8_t> allocate(int64_t bytes) {
    bytes = (bytes + 63) / 64 * 64;
    if (chunks.empty() ||
        used + bytes > int64_t(chunks.back()->bytes().size())) {
      chunks.push_back(cmodel::HugePageMemory::allocate(
          std::max<int64_t>(bytes, int64_t(64) << 20)));
      if (!chunks.back()) {
        std::fprintf(stderr, "kernels_bench: out of memory\n");
        std::exit(1);
      }
      used = 0;
    }
    absl::Span<uint8_t> slice = chunks.back()->bytes().subspan(used, bytes);
    used += bytes;
    return slice;
  }

private:
  std::vector<std::unique_ptr<cmodel::HugePageMemory>> chunks;
  int64_t used = 0;
};

/// A matrix's bytes, in an arena that outlives it.
struct Matrix {
  absl::Span<uint8_t> data, scale, zp;
  Weights w;
};

enum class Format { F16, I8G64, U8G64Zp, I4G64, U4G64Zp, I4G32, I4G128, BF16 };

const char *formatName(Format f) {
  switch (f) {
  case Format::F16:
    return "f16";
  case Format::BF16:
    return "bf16";
  case Format::I8G64:
    return "i8 g64";
  case Format::U8G64Zp:
    return "u8 g64 zp";
  case Format::I4G64:
    return "i4 g64";
  case Format::U4G64Zp:
    return "u4 g64 zp";
  case Format::I4G32:
    return "i4 g32";
  case Format::I4G128:
    return "i4 g128";
  }
  return "?";
}

Matrix makeMatrix(Format f, int64_t n, int64_t k, std::mt19937 &rng,
                  MatrixArena &arena) {
  Matrix m;
  auto fill = [&](absl::Span<uint8_t> &v, int64_t bytes) {
    v = arena.allocate(bytes);
    // xorshift: quick enough for hundreds of MiB. Masked so that the bytes
    // make finite, moderate f16 values, and bf16 ones too: with the high
    // byte of each pair 0x3c to 0x3f, bf16 values are normal, 2^-7 to 1
    // (a subnormal operand costs a microcode assist per multiply).
    uint64_t state = rng() | 1;
    for (int64_t i = 0; i < bytes; i += 8) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      uint64_t word = (state & 0x3b3b3b3b3b3b3b3bull) | 0x3c003c003c003c00ull;
      std::memcpy(v.data() + i, &word, std::min<int64_t>(8, bytes - i));
    }
  };
  Weights w{WeightType::F16, nullptr, n, k, 2 * k};
  int64_t group = 64;
  switch (f) {
  case Format::F16:
  case Format::BF16:
    w.type = f == Format::F16 ? WeightType::F16 : WeightType::BF16;
    fill(m.data, n * 2 * k);
    break;
  case Format::I8G64:
  case Format::U8G64Zp:
    w.type = f == Format::I8G64 ? WeightType::I8 : WeightType::U8;
    w.rowStrideBytes = k;
    fill(m.data, n * k);
    break;
  default:
    w.type = f == Format::U4G64Zp ? WeightType::U4 : WeightType::I4;
    w.rowStrideBytes = k / 2;
    group = f == Format::I4G32 ? 32 : f == Format::I4G128 ? 128 : 64;
    fill(m.data, n * k / 2);
    break;
  }
  if (isQuantized(w.type)) {
    int64_t groups = k / group;
    fill(m.scale, n * groups * 2);
    w.scale = m.scale.data();
    w.scaleType = ParamType::F16;
    w.scaleRowStrideBytes = groups * 2;
    w.groupSize = group;
    if (f == Format::U8G64Zp) {
      fill(m.zp, n * groups);
      w.zpType = ParamType::U8;
      w.zpRowStrideBytes = groups;
    } else if (f == Format::U4G64Zp) {
      fill(m.zp, n * groups / 2);
      w.zpType = ParamType::U4;
      w.zpRowStrideBytes = groups / 2;
    }
    if (!m.zp.empty())
      w.zp = m.zp.data();
  }
  w.data = m.data.data();
  m.w = w;
  return m;
}

struct Shape {
  const char *name;
  int64_t k, n;
  bool gated;
};

/// The weight formats the decode tables compare.
const std::vector<Format> kDecodeFormats = {
    Format::F16,     Format::I8G64, Format::U8G64Zp, Format::I4G64,
    Format::U4G64Zp, Format::I4G32, Format::I4G128};

/// The linear layers of a Qwen2.5-0.5B step.
const Shape kShapes[] = {{"q/o 896->896", 896, 896, false},
                         {"k/v 896->128", 896, 128, false},
                         {"gate/up 896->2x4864", 896, 4864, true},
                         {"down 4864->896", 4864, 896, false},
                         {"lm_head 896->151936", 896, 151936, false}};

struct Options {
  bool quick = false;
  Isa isa;
};

/// Reads `bytes` bytes at `data` on the pool's threads, as the STREAM sum
/// does: the reference a matrix-vector product streaming the same bytes is
/// compared with.
void readBytes(WorkerPool &pool, const uint8_t *data, int64_t bytes,
               std::vector<double> &partial) {
  const float *floats = reinterpret_cast<const float *>(data);
  pool.parallelFor(bytes / 4, 1 << 12, [&](int64_t b, int64_t e) {
    partial[(b >> 12) % partial.size()] += sumFloats(floats + b, e - b);
  });
}

/// Decode: GB/s of weights and scales for m = 1, and the fraction of a
/// STREAM-style read of the same bytes (the same calls, summing the bytes
/// instead), both the best of alternating runs, as the bandwidth of a
/// shared host drifts.
void benchDecode(WorkerPool &pool, const Options &options, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::printf("\ndecode, m = 1: GB/s of weights and scales (%% of a "
              "STREAM-style read of the same bytes)\n%-22s",
              "");
  for (Format f : kDecodeFormats)
    std::printf("%15s", formatName(f));
  std::printf("\n");
  std::vector<double> partial(64);
  for (const Shape &shape : kShapes) {
    std::printf("%-22s", shape.name);
    std::vector<float> x(shape.k), y(2 * shape.n);
    for (float &v : x)
      v = normal(rng);
    for (Format f : kDecodeFormats) {
      // Enough copies to spill the 32 MiB L3 (at least 256 MiB in all), as
      // the layers of a step do.
      MatrixArena arena;
      Matrix one = makeMatrix(f, shape.n, shape.k, rng, arena);
      const int64_t perCopy = getWeightBytes(one.w);
      int64_t copies = std::max<int64_t>(2, (int64_t(256) << 20) / perCopy + 1);
      copies += copies % 2;
      std::vector<Matrix> all;
      all.push_back(std::move(one));
      while (int64_t(all.size()) < copies)
        all.push_back(makeMatrix(f, shape.n, shape.k, rng, arena));
      auto kernels = [&] {
        if (shape.gated)
          for (size_t c = 0; c < all.size(); c += 2)
            gatedLinear(x.data(), 1, shape.k, all[c].w, all[c + 1].w,
                        Activation::SiLU, y.data(), shape.n, pool, options.isa);
        else
          for (const Matrix &matrix : all)
            linear(x.data(), 1, shape.k, matrix.w, nullptr, y.data(), shape.n,
                   false, pool, options.isa);
      };
      auto reads = [&] {
        for (const Matrix &matrix : all) {
          readBytes(pool, matrix.data.data(), matrix.data.size(), partial);
          readBytes(pool, matrix.scale.data(), matrix.scale.size(), partial);
          readBytes(pool, matrix.zp.data(), matrix.zp.size(), partial);
        }
      };
      double kernelSeconds = 1e30, readSeconds = 1e30;
      for (int round = 0; round < (options.quick ? 2 : 4); ++round) {
        kernelSeconds = std::min(kernelSeconds, bestTime(kernels, 0.1, 2));
        readSeconds = std::min(readSeconds, bestTime(reads, 0.1, 2));
      }
      const double bytes = perCopy * double(all.size());
      char cell[32];
      std::snprintf(cell, sizeof(cell), "%.1f (%.0f%%)",
                    bytes / kernelSeconds / 1e9,
                    100 * readSeconds / kernelSeconds);
      std::printf("%15s", cell);
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}

/// Decode from cache: GB/s of weights and scales for m = 1 with each
/// matrix cut to the rows that fit the threads' L2 caches (512 KiB each)
/// and run again and again: the kernels' own ceiling, which the figures
/// above hide behind DRAM (a 4-bit kernel that costs more compute than its
/// bytes take to arrive shows here first).
void benchCachedDecode(WorkerPool &pool, const Options &options,
                       std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::printf("\ndecode from L2, m = 1: GB/s of weights and scales\n%-22s", "");
  for (Format f : kDecodeFormats)
    std::printf("%15s", formatName(f));
  std::printf("\n");
  for (const Shape &shape : kShapes) {
    if (shape.gated)
      continue;
    std::printf("%-22s", shape.name);
    std::vector<float> x(shape.k), y(shape.n);
    for (float &v : x)
      v = normal(rng);
    for (Format f : kDecodeFormats) {
      MatrixArena arena;
      const int64_t rowBytes =
          getWeightBytes(makeMatrix(f, 1, shape.k, rng, arena).w);
      const int64_t n = std::min<int64_t>(
          shape.n, (int64_t(512) << 10) * pool.size() / rowBytes / 16 * 16);
      Matrix matrix = makeMatrix(f, n, shape.k, rng, arena);
      double seconds = bestTime(
          [&] {
            for (int r = 0; r < 10; ++r)
              linear(x.data(), 1, shape.k, matrix.w, nullptr, y.data(), n,
                     false, pool, options.isa);
          },
          options.quick ? 0.1 : 0.3, 3);
      std::printf("%15.1f", 10 * getWeightBytes(matrix.w) / seconds / 1e9);
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}

/// Prefill: GFLOP/s of m = 512 products.
void benchPrefill(WorkerPool &pool, const Options &options, std::mt19937 &rng) {
  const int64_t m = 512;
  const std::vector<Format> formats = {Format::F16, Format::BF16, Format::I8G64,
                                       Format::I4G64};
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::printf("\nprefill, m = %ld: GFLOP/s\n%-22s", long(m), "");
  for (Format f : formats)
    std::printf("%12s", formatName(f));
  std::printf("\n");
  for (const Shape &shape : kShapes) {
    if (options.quick && shape.n > 10000)
      continue;
    std::printf("%-22s", shape.name);
    std::vector<float> x(m * shape.k), y(m * shape.n);
    for (float &v : x)
      v = normal(rng);
    for (Format f : formats) {
      MatrixArena arena;
      Matrix a = makeMatrix(f, shape.n, shape.k, rng, arena);
      Matrix b = makeMatrix(f, shape.n, shape.k, rng, arena);
      double seconds = bestTime(
          [&] {
            if (shape.gated)
              gatedLinear(x.data(), m, shape.k, a.w, b.w, Activation::SiLU,
                          y.data(), shape.n, pool, options.isa);
            else
              linear(x.data(), m, shape.k, a.w, nullptr, y.data(), shape.n,
                     false, pool, options.isa);
          },
          options.quick ? 0.2 : 0.5, shape.n > 10000 ? 1 : 2);
      double flops = 2.0 * m * shape.k * shape.n * (shape.gated ? 2 : 1);
      std::printf("%12.1f", flops / seconds / 1e9);
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}

/// A decode step's attention as the runtime runs it: an f16 cache of 1024
/// slots, the first 512 in use and the rest hidden by the llm masks' finite
/// score, plus the new key; the history cold, as the layers' weights
/// streamed through the caches since the previous step (copies of it, as
/// many as 256 MiB, taken in turn).
void benchColdDecodeAttention(WorkerPool &pool, const Options &options,
                              std::mt19937 &rng) {
  const int64_t hq = 14, hkv = 2, d = 64, lk = 1025, used = 512;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> q(hq * d), o(hq * d), mask(lk, -10000.0f),
      kv(lk * hkv * d);
  for (float &value : q)
    value = normal(rng);
  for (float &value : kv)
    value = normal(rng);
  std::fill_n(mask.begin(), used, 0.0f);
  mask[lk - 1] = 0.0f;
  std::vector<uint16_t> one(kv.size());
  narrowF16(kv.data(), one.data(), int64_t(kv.size()));
  const int64_t copies = (int64_t(256) << 20) / int64_t(2 * 2 * one.size());
  std::vector<std::vector<uint16_t>> keys(copies, one), values(copies, one);
  double seconds = bestTime(
      [&] {
        for (int64_t c = 0; c < copies; ++c)
          attention(q.data(), hq * d, {FloatType::F16, keys[c].data(), hkv * d},
                    {FloatType::F16, values[c].data(), hkv * d}, mask.data(),
                    lk, 1, lk, hq, hkv, d, 0.125f, 0.0f, o.data(), hq * d, pool,
                    options.isa);
      },
      options.quick ? 0.2 : 0.5, 2);
  std::printf("  lq    1 lk %4ld k/v f16, %ld slots in use, history cold: "
              "%8.1f us\n",
              long(lk), long(used), seconds * 1e6 / copies);
}

/// Attention of Qwen2.5-0.5B (14 query heads, 2 key/value heads, d = 64),
/// causal, decode and prefill, with f32 keys and values and with f16 ones
/// (a decode step's history as the host device holds it).
void benchAttention(WorkerPool &pool, const Options &options,
                    std::mt19937 &rng) {
  const int64_t hq = 14, hkv = 2, d = 64;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::printf("\nattention (hq %ld, hkv %ld, d %ld, causal)\n", long(hq),
              long(hkv), long(d));
  for (auto [lq, lk] :
       {std::pair<int64_t, int64_t>{1, 1024}, {1, 4096}, {512, 512}}) {
    std::vector<float> q(lq * hq * d), k(lk * hkv * d), v(lk * hkv * d),
        o(lq * hq * d), mask(lq * lk);
    for (std::vector<float> *values : {&q, &k, &v})
      for (float &value : *values)
        value = normal(rng);
    std::vector<uint16_t> k16(k.size()), v16(v.size());
    narrowF16(k.data(), k16.data(), int64_t(k.size()));
    narrowF16(v.data(), v16.data(), int64_t(v.size()));
    // Causal, aligned to the last key.
    for (int64_t i = 0; i < lq; ++i)
      for (int64_t t = 0; t < lk; ++t)
        mask[i * lk + t] = t <= i + (lk - lq) ? 0.0f : -INFINITY;
    // Multiply-adds of QK^T and PV over the unmasked keys.
    double pairs = lq == 1 ? double(lk) : lq * (lk + 1) / 2.0;
    for (FloatType type : {FloatType::F32, FloatType::F16}) {
      bool f32 = type == FloatType::F32;
      FloatRows keys{type, f32 ? (const void *)k.data() : k16.data(), hkv * d};
      FloatRows values{type, f32 ? (const void *)v.data() : v16.data(),
                       hkv * d};
      double seconds = bestTime(
          [&] {
            attention(q.data(), hq * d, keys, values, mask.data(), lk, lq, lk,
                      hq, hkv, d, 0.125f, 0.0f, o.data(), hq * d, pool,
                      options.isa);
          },
          options.quick ? 0.2 : 0.5, 3);
      std::printf("  lq %4ld lk %4ld k/v %s: %8.1f us, %6.1f GFLOP/s\n",
                  long(lq), long(lk), f32 ? "f32" : "f16", seconds * 1e6,
                  4.0 * pairs * hq * d / seconds / 1e9);
    }
  }
  benchColdDecodeAttention(pool, options, rng);
}

} // namespace

int main(int argc, char **argv) {
  unsigned threads = 2;
  std::string only;
  Options options;
  options.isa = selectIsa();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--threads=", 0) == 0)
      threads = unsigned(std::atoi(arg.c_str() + 10));
    else if (arg == "--quick")
      options.quick = true;
    else if (arg.rfind("--only=", 0) == 0)
      only = arg.substr(7);
    else if (arg.rfind("--isa=", 0) == 0)
      for (Isa candidate : kIsas)
        if (arg.substr(6) == getIsaName(candidate))
          options.isa = clampIsa(candidate);
  }
  WorkerPool pool(threads);
  std::printf("host: %s\nisa: %s, threads: %u\n",
              CpuFeatures::host().describe().c_str(), getIsaName(options.isa),
              pool.size());
  std::printf("STREAM-style read (sum of 1 GiB f32, %u threads): %.1f GB/s\n",
              pool.size(), measureReadBandwidth(pool));
  std::printf("FMA peak (float32 FMA chains, %u threads): %.1f GFLOP/s\n",
              pool.size(), measureFmaPeak(pool));
  // The cost of handing a loop to the pool: an empty loop over 2 chunks.
  double loop = bestTime(
      [&] {
        for (int i = 0; i < 10000; ++i)
          pool.parallelFor(pool.size(), 1, [](int64_t, int64_t) {});
      },
      0.3, 3);
  std::printf("parallelFor round trip: %.2f us\n", loop / 10000 * 1e6);
  std::mt19937 rng(7);
  if (only.empty() || only == "decode")
    benchDecode(pool, options, rng);
  if (only.empty() || only == "cached")
    benchCachedDecode(pool, options, rng);
  if (only.empty() || only == "prefill")
    benchPrefill(pool, options, rng);
  if (only.empty() || only == "attention")
    benchAttention(pool, options, rng);
  return 0;
}
