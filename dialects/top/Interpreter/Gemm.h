//===- Gemm.h - blocked float32 matrix products for the interpreter -*- C++
//-*-===//
//
// The matrix product every MatMul, MLP and attention of the reference
// interpreter runs on. It packs operands into cache-sized panels and runs a
// register-tiled inner kernel; products of up to 16 rows (decode steps,
// short prompts) skip the packing and stream the weight once.
//
// Every output element is the sum of its K products added one after another
// in K order (or, for the decode path and dotProduct, in a fixed 16-lane
// order), whichever thread, tile or instruction set computes it: results
// are bit-identical across thread counts and across the baseline and AVX2
// kernels. No fused multiply-add is used, for the same reason.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_GEMM_H
#define LLMC_DIALECTS_TOP_INTERPRETER_GEMM_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace llmc::top {

class ThreadRunner;

namespace kernels {

/// A read-only matrix view: element (r, c) is `data[r * rowStride + c *
/// colStride]`, so a transposed operand is the same data with swapped
/// strides.
struct MatrixRef {
  const float *data = nullptr;
  int64_t rowStride = 0;
  int64_t colStride = 0;
};

/// One product of a batch: `c` (row-major M x N, contiguous) = `a` (M x K)
/// times `b` (K x N).
struct GemmOperands {
  MatrixRef a;
  MatrixRef b;
  float *c = nullptr;
};

/// The instruction sets the inner kernels are compiled for.
enum class GemmIsa { Baseline, Avx2 };

/// Whether this machine runs `isa`.
bool isGemmIsaSupported(GemmIsa isa);
/// AVX2 where the machine has it, else the x86-64 (SSE2) baseline.
GemmIsa getBestGemmIsa();

/// Overwrites every `c` of `batch` with its M x K by K x N product. `isa`
/// exists so tests can compare the kernels; it must be supported.
void gemm(int64_t m, int64_t n, int64_t k, llvm::ArrayRef<GemmOperands> batch,
          const ThreadRunner &runner, GemmIsa isa = getBestGemmIsa());

/// The dot product of two contiguous vectors, summed in 16 interleaved lanes
/// combined in a fixed tree (the order the decode path of gemm uses).
float dotProduct(const float *a, const float *b, int64_t n);

/// `y[i] += alpha * x[i]` for i < n, in order.
void addScaled(float alpha, const float *x, float *y, int64_t n);

} // namespace kernels
} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_INTERPRETER_GEMM_H
