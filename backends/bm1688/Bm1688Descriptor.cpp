//===- Bm1688Descriptor.cpp - the BM1688 chip as data ---------------------===//

#include "backends/bm1688/Bm1688Descriptor.h"

namespace llmc::bm1688 {

static plugins::ChipDescriptor makeDescriptor() {
  plugins::ChipDescriptor chip;
  chip.id = "bm1688";
  chip.summary = "Sophgo BM1688: 2 cores x 32 lanes x 128 KiB local memory, "
                 "16 TOPS INT8, 8 TFLOPS F16/BF16, 24 GB/s DDR";
  // TPU-MLIR's backend for this chip (BM1688.h: NPU_NUM = 32, LMEM_BYTES =
  // 1 << 17, LMEM_BANKS = 16, EU_BYTES = 16), per core.
  chip.npuLanes = 32;
  chip.localMemoryBytesPerLane = 128 * 1024;
  chip.localMemoryBanks = 16;
  chip.euBytesPerLane = 16;
  // Assumption: no L2 figure in the sources at hand, and nothing models an
  // L2 yet, so none is claimed.
  chip.l2SramBytes = 0;
  // TPU-MLIR compiles BM1688 models for one or two cores (its
  // MultiCoreInterface backend); the product brief's TPU is dual-core.
  chip.cores = 2;
  // Assumption: 1 GHz, as for the BM1684X; TPU-MLIR's cost model takes the
  // TIU clock as a parameter whose value is not in the sources at hand.
  chip.clockMHz = 1000;
  // Product brief: 16 TOPS INT8 for the chip (both cores). Assumption: the
  // float peaks keep the BM1684X's ratios to INT8 (1/2 for F16/BF16, 1/16
  // for F32); the brief's float figures were not at hand.
  chip.int8Tops = 16;
  chip.f16Tflops = 8;
  chip.bf16Tflops = 8;
  chip.f32Tflops = 1;
  // TPU-MLIR's BM1688 simulation sets the GDMA DDR-to-local bandwidth to
  // 24 GB/s (64-bit DDR); the model shares it between the cores.
  chip.ddrBandwidthGBps = 24;
  chip.quantModes = {"F32",    "F16",   "BF16",  "W8F16",
                     "W8BF16", "W4F16", "W4BF16"};
  return chip;
}

const plugins::ChipDescriptor &getDescriptor() {
  static const plugins::ChipDescriptor descriptor = makeDescriptor();
  return descriptor;
}

} // namespace llmc::bm1688
