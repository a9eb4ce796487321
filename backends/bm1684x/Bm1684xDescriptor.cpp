//===- Bm1684xDescriptor.cpp - the BM1684X chip as data -------------------===//

#include "backends/bm1684x/Bm1684xDescriptor.h"

namespace llmc::bm1684x {

static plugins::ChipDescriptor makeDescriptor() {
  plugins::ChipDescriptor chip;
  chip.id = "bm1684x";
  chip.summary = "Sophgo BM1684X: 64 lanes x 256 KiB local memory, 1 core, "
                 "32 TOPS INT8, 16 TFLOPS F16/BF16, 64 GB/s DDR";
  // TPU-MLIR's backend for this chip (NPU_NUM = 64, LMEM_BYTES = 256 KiB,
  // LMEM_BANKS = 16, EU_BYTES = 64) matches the product brief's 16 MiB of
  // local memory.
  chip.npuLanes = 64;
  chip.localMemoryBytesPerLane = 256 * 1024;
  chip.localMemoryBanks = 16;
  chip.euBytesPerLane = 64;
  // Product brief: about 2 MiB of L2 SRAM shared by the lanes.
  chip.l2SramBytes = 2 * 1024 * 1024;
  chip.cores = 1;
  // Assumption: the TPU runs at 1 GHz, the clock TPU-MLIR's cost model uses.
  chip.clockMHz = 1000;
  // Product brief peaks.
  chip.int8Tops = 32;
  chip.f16Tflops = 16;
  chip.bf16Tflops = 16;
  chip.f32Tflops = 2;
  // Product brief: LPDDR4X at about 64 GB/s.
  chip.ddrBandwidthGBps = 64;
  chip.quantModes = {"F32",   "F16",   "BF16",   "W8F16", "W8BF16",
                     "W4F16", "W4BF16", "INT8"};
  return chip;
}

const plugins::ChipDescriptor &getDescriptor() {
  static const plugins::ChipDescriptor descriptor = makeDescriptor();
  return descriptor;
}

} // namespace llmc::bm1684x
