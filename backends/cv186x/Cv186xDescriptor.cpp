//===- Cv186xDescriptor.cpp - the CV186AH chip as data --------------------===//

#include "backends/cv186x/Cv186xDescriptor.h"

namespace llmc::cv186x {

static plugins::ChipDescriptor makeDescriptor() {
  plugins::ChipDescriptor chip;
  chip.id = "cv186x";
  chip.summary = "Sophgo CV186AH: 1 core x 32 lanes x 128 KiB local memory, "
                 "7.2 TOPS INT8, 3.6 TFLOPS F16/BF16, 12 GB/s DDR";
  // TPU-MLIR compiles cv186x with its BM1688 backend (the same NPU_NUM = 32,
  // LMEM_BYTES = 1 << 17, LMEM_BANKS = 16, EU_BYTES = 16), at another clock.
  chip.npuLanes = 32;
  chip.localMemoryBytesPerLane = 128 * 1024;
  chip.localMemoryBanks = 16;
  chip.euBytesPerLane = 16;
  // Assumption: as for the BM1688, no L2 is claimed.
  chip.l2SramBytes = 0;
  // Assumption: one core. TPU-MLIR offers its multi-core option for the
  // BM1688, and 7.2 TOPS is 0.45 of the BM1688's 16: one of its two cores
  // at 0.9 of its clock.
  chip.cores = 1;
  chip.clockMHz = 900;
  // Product brief: 7.2 TOPS INT8. Assumption: the float peaks keep the
  // BM1684X's ratios to INT8, as for the BM1688.
  chip.int8Tops = 7.2;
  chip.f16Tflops = 3.6;
  chip.bf16Tflops = 3.6;
  chip.f32Tflops = 0.45;
  // TPU-MLIR's simulation of the cv186 (32-bit DDR) sets the GDMA
  // DDR-to-local bandwidth to 12 GB/s.
  chip.ddrBandwidthGBps = 12;
  chip.quantModes = {"F32",    "F16",   "BF16",  "W8F16",
                     "W8BF16", "W4F16", "W4BF16"};
  return chip;
}

const plugins::ChipDescriptor &getDescriptor() {
  static const plugins::ChipDescriptor descriptor = makeDescriptor();
  return descriptor;
}

} // namespace llmc::cv186x
