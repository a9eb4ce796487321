//===- HostDescriptor.cpp - the host CPU as a chip ------------------------===//
//
// A binary for the host must not depend on the machine that compiled it, so
// the figures are nominal: they describe no particular CPU and feed no time
// model (the host device measures its time instead). The instruction set
// the kernels use is chosen when the binary runs (backends/host/kernels).
//
//===----------------------------------------------------------------------===//

#include "backends/host/HostDescriptor.h"

namespace llmc::host {

static plugins::ChipDescriptor makeDescriptor() {
  plugins::ChipDescriptor chip;
  chip.id = "host";
  chip.summary = "the host CPU, natively: SIMD kernels (AVX2, AVX-512, "
                 "chosen at run time) on every hardware thread";
  chip.computesInGlobalMemory = true;
  chip.npuLanes = 1;
  // One AVX-512 register: the width tensors are aligned to.
  chip.euBytesPerLane = 64;
  // Threads share one address space; the device uses them all, so pieces
  // are never split into per-core sections.
  chip.cores = 1;
  // Nominal: a 3 GHz core with two 512-bit FMA pipes (2 x 16 x 2 flops per
  // cycle) and dual-channel DDR5 (about 40 GB/s). Unused by the compiler.
  chip.clockMHz = 3000;
  chip.f32Tflops = 0.192;
  chip.f16Tflops = 0.192;
  chip.bf16Tflops = 0.192;
  chip.ddrBandwidthGBps = 40;
  // The kernels compute in f32 on f32, f16 or bf16 activations, with f32,
  // f16, bf16 or 8- and 4-bit group-quantized weights. 8-bit activations
  // (INT8) have no host kernels.
  chip.quantModes = {"F32",   "F16",   "BF16",  "W8F16",
                     "W8BF16", "W4F16", "W4BF16"};
  // The prefill products with 4-bit weights on AVX-512 VNNI cores
  // (kernels/GemmAvx512Vnni.cpp).
  chip.eightBitXWith4BitWeights = true;
  return chip;
}

const plugins::ChipDescriptor &getDescriptor() {
  static const plugins::ChipDescriptor descriptor = makeDescriptor();
  return descriptor;
}

} // namespace llmc::host
