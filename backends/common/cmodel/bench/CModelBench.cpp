//===- CModelBench.cpp - host throughput of the cmodel --------------------===//
//
// Times streams with the matmul shapes of a Qwen2.5-0.5B step (hidden 896,
// ffn 4864) on a BM1684X-like chip: a W4 gate projection of a decode step,
// an F16 projection of a 64-token prefill chunk and an F16 decode product,
// each as a load of its operands and one compute command. Prints the host
// time and multiply-accumulate rate for one and two threads next to the
// modelled time. Run with `bazel run
// //backends/common/cmodel/bench:cmodel_bench`.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/StreamBuilder.h"

#include <chrono>
#include <cstdio>
#include <random>

using namespace llmc;
using namespace llmc::cmodel;

namespace {

plugins::ChipDescriptor getChip() {
  plugins::ChipDescriptor chip;
  chip.id = "bm1684x_like";
  chip.npuLanes = 64;
  chip.localMemoryBytesPerLane = 256 * 1024;
  chip.localMemoryBanks = 16;
  chip.euBytesPerLane = 64;
  chip.cores = 1;
  chip.clockMHz = 1000;
  chip.int8Tops = 32;
  chip.f16Tflops = 16;
  chip.bf16Tflops = 16;
  chip.f32Tflops = 2;
  chip.ddrBandwidthGBps = 64;
  chip.quantModes = {"F16"};
  return chip;
}

struct Case {
  const char *name;
  int64_t m, n, k;
  bool w4;
};

/// x [m, k] replicated, w [n, k] split by rows, y [m, n] split by columns.
cmd::CommandStream buildStream(const Case &c, uint64_t &ioBytes) {
  StreamBuilder b(c.name);
  cmd::DType weightType = c.w4 ? cmd::DTYPE_U4 : cmd::DTYPE_F16;
  int64_t groups = c.k / 64;
  uint64_t offset = 0, address = 0;
  auto global = [&](int64_t rows, int64_t cols, cmd::DType type) {
    cmd::GlobalTensor g =
        globalTensor(cmd::REGION_IO, offset, rows, cols, type);
    offset += rows * getDTypeBytes(type, cols) + 64;
    return g;
  };
  auto local = [&](int64_t rows, int64_t cols, cmd::DType type,
                   cmd::Layout layout) {
    cmd::LocalTensor l = localTensor(0, 64, address, rows, cols, type, layout);
    int64_t laneRows = layout == cmd::LAYOUT_ROWS ? (rows + 63) / 64 : rows;
    int64_t laneCols = layout == cmd::LAYOUT_COLS ? (cols + 63) / 64 : cols;
    address += laneRows * ((getDTypeBytes(type, laneCols) + 63) / 64 * 64);
    return l;
  };
  cmd::LocalTensor x = local(c.m, c.k, cmd::DTYPE_F16, cmd::LAYOUT_REPLICATED);
  cmd::LocalTensor w = local(c.n, c.k, weightType, cmd::LAYOUT_ROWS);
  std::vector<uint32_t> loads = {b.load(global(c.m, c.k, cmd::DTYPE_F16), x),
                                 b.load(global(c.n, c.k, weightType), w)};
  cmd::LocalTensor y = local(c.m, c.n, cmd::DTYPE_F16, cmd::LAYOUT_COLS);
  if (c.w4) {
    cmd::LocalTensor scale =
        local(c.n, groups, cmd::DTYPE_F16, cmd::LAYOUT_ROWS);
    cmd::LocalTensor zp = local(c.n, groups, cmd::DTYPE_U4, cmd::LAYOUT_ROWS);
    loads.push_back(b.load(global(c.n, groups, cmd::DTYPE_F16), scale));
    loads.push_back(b.load(global(c.n, groups, cmd::DTYPE_U4), zp));
    b.a16MatMul(x, w, scale, zp, y, loads);
  } else {
    b.matMul(x, w, y, loads);
  }
  ioBytes = offset;
  return b.take();
}

} // namespace

int main() {
  const Case cases[] = {{"decode W4 gate 1x896 -> 4864", 1, 4864, 896, true},
                        {"prefill F16 64x896 -> 896", 64, 896, 896, false},
                        {"decode F16 1x896 -> 4096", 1, 4096, 896, false}};
  std::printf("%-32s %7s %10s %10s %12s\n", "case", "threads", "host ms",
              "GMAC/s", "modelled us");
  for (const Case &c : cases) {
    uint64_t ioBytes = 0;
    cmd::CommandStream stream = buildStream(c, ioBytes);
    for (unsigned threads : {1u, 2u}) {
      CModel model(getChip(), CModelOptions{{threads}, {}});
      model.global().allocate(cmd::REGION_IO, ioBytes);
      // Small random values in every byte: valid f16 and u4 alike.
      std::mt19937 engine(1);
      std::vector<uint8_t> bytes(ioBytes);
      for (uint8_t &byte : bytes)
        byte = uint8_t(engine() & 0x3b);
      absl::Status written = model.global().write(cmd::REGION_IO, 0, bytes);
      absl::StatusOr<RunStats> warmUp = model.run(stream);
      if (!written.ok() || !warmUp.ok()) {
        absl::Status error = written.ok() ? warmUp.status() : written;
        std::fprintf(stderr, "%.*s\n", int(error.message().size()),
                     error.message().data());
        return 1;
      }
      RunStats stats = *warmUp;
      int runs = 0;
      auto start = std::chrono::steady_clock::now();
      double elapsed = 0;
      while (elapsed < 0.5) {
        stats = model.run(stream).value();
        ++runs;
        elapsed = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      }
      double perRun = elapsed / runs;
      std::printf("%-32s %7u %10.3f %10.2f %12.1f\n", c.name, threads,
                  perRun * 1e3, double(stats.macs) / perRun / 1e9,
                  stats.seconds * 1e6);
    }
  }
  return 0;
}
