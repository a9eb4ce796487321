//===- ChipDescriptor.h - a chip generation described as data --*- C++ -*-===//
//
// What the compiler needs to know about a chip to lower, tile, schedule and
// cost a model for it, stated as plain figures (like IREE's known-targets
// table). Backends fill one in; the common layer-group, address-assign and
// cmodel engines read it instead of asking the backend through virtual calls.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PLUGINS_CHIPDESCRIPTOR_H
#define LLMC_PLUGINS_CHIPDESCRIPTOR_H

#include "support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::plugins {

struct ChipDescriptor {
  /// The name users pass to `--chip` (`bm1684x`).
  std::string id;
  /// One line for `llmc --list-plugins`.
  std::string summary;

  // Lanes, local memory and EU width describe one core; the peaks and the
  // DDR bandwidth describe the whole chip, shared by its cores.

  /// Parallel lanes of one core's NPU; each owns a slice of local memory.
  int64_t npuLanes = 0;
  /// Local (on-chip) memory of one lane, and how many banks it splits into.
  int64_t localMemoryBytesPerLane = 0;
  int64_t localMemoryBanks = 0;
  /// Bytes one lane's execution unit processes per cycle; tensors in local
  /// memory are aligned to it.
  int64_t euBytesPerLane = 0;
  /// Shared on-chip SRAM between DDR and the lanes.
  int64_t l2SramBytes = 0;
  /// Independent TPU cores a piece may be split across, each with its own
  /// lanes and local memory.
  int64_t cores = 0;
  /// Clock of the NPU, used to turn modelled cycles into time.
  double clockMHz = 0;

  /// Peak throughput per element type, in tera-operations per second
  /// (a multiply-accumulate counts as two operations).
  double int8Tops = 0;
  double f16Tflops = 0;
  double bf16Tflops = 0;
  double f32Tflops = 0;
  /// Sustained DDR bandwidth, in GB/s (1e9 bytes per second).
  double ddrBandwidthGBps = 0;

  /// The chip computes on global memory itself, with no local memory and no
  /// DMA (the host CPU): codegen emits each op whole, as the commands of a
  /// host program (a version 3 stream), and the local-memory figures are
  /// unused (0). npuLanes is 1: one address space.
  bool computesInGlobalMemory = false;

  /// The chip's products with 4-bit weights may take x in 8 bits per block
  /// of 64 values (a unit of 1/127 of the block's largest |x|), beyond the
  /// rounding of the mode's activation type, as llama.cpp's Q4_0 products
  /// do; its conformance bounds add that rounding's error
  /// (lowering/Tolerance.h).
  bool eightBitXWith4BitWeights = false;

  /// Quantization modes the chip's backend compiles (`F32`, `W4BF16`, ...).
  std::vector<std::string> quantModes;

  int64_t localMemoryBytes() const {
    return npuLanes * localMemoryBytesPerLane;
  }
  int64_t localMemoryBankBytes() const {
    return localMemoryBanks ? localMemoryBytesPerLane / localMemoryBanks : 0;
  }
  /// Whether `mode` (in any case) is one of quantModes.
  bool supportsQuantMode(std::string_view mode) const;

  /// Checks that every figure is present and consistent (positive counts,
  /// banks dividing local memory, at least one quant mode).
  absl::Status validate() const;
};

} // namespace llmc::plugins

#endif // LLMC_PLUGINS_CHIPDESCRIPTOR_H
