//===- TestSupport.h - references and data for the kernel tests -*- C++ -*-===//
//
// Everything here is written independently of the library (double
// arithmetic, no shared helpers), so a shared mistake cannot hide.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_TEST_TESTSUPPORT_H
#define LLMC_BACKENDS_HOST_KERNELS_TEST_TESTSUPPORT_H

#include "backends/host/kernels/Kernels.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace llmc::host::test {

/// The paths this host can run, Scalar first.
std::vector<Isa> getTestIsas();

/// Reference conversions, in double arithmetic.
double referenceFromHalf(uint16_t bits);
uint16_t referenceToHalf(float value);
uint16_t referenceToBFloat16(float value);

std::string describe(WeightType type);
std::string describe(ParamType type);

/// A stored weight matrix with its dequantized values, computed from the
/// spec: (q - zp) * scale with an exact difference and the product rounded
/// to float32. Rows and parameter rows are padded (strides past the data).
struct TestWeights {
  std::vector<uint8_t> data, scale, zp;
  Weights w;
  std::vector<float> dequantized; // [n, k]
};

/// Random weights; float zero points have few mantissa bits, so that the
/// difference with q stays exact in float32, as the spec requires.
TestWeights makeWeights(WeightType type, ParamType scaleType, ParamType zpType,
                        int64_t n, int64_t k, int64_t groupSize,
                        std::mt19937 &rng);

std::vector<float> randomFloats(size_t count, std::mt19937 &rng,
                                float scale = 1.0f);

/// x [m, xStride] times dequantized^T, in double; also the sums of |x w| per
/// output (the scale of its rounding error).
void referenceProduct(const float *x, int64_t m, int64_t xStride,
                      const TestWeights &w, std::vector<double> &product,
                      std::vector<double> &magnitude);

/// Whether linear, under `isa`, takes m rows of x against `w` in 8 bits a
/// value (one byte piece per 64-column block): the integer-dot prefill of
/// 4-bit weights.
bool takesEightBitX(const Weights &w, int64_t m, Isa isa);

/// Per output, what x in 8 bits does to sum_c x[i, c] w[j, c]: each x
/// rounds by at most half a unit (a unit is 1/127 of the largest |x| of its
/// 64-column block), so the sum moves by at most `bound`, the sum of half
/// units times |w[j, c]|; rounding to nearest spreads each x's error evenly
/// over the unit, so the sum's error has the standard deviation `spread`.
void eightBitXBound(const float *x, int64_t m, int64_t xStride,
                    const TestWeights &w, std::vector<double> &bound,
                    std::vector<double> &spread);

} // namespace llmc::host::test

#endif // LLMC_BACKENDS_HOST_KERNELS_TEST_TESTSUPPORT_H
