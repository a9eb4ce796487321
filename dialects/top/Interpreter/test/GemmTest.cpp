//===- GemmTest.cpp - the blocked matrix product behind every MatMul ------===//
//
// Checks every path of kernels::gemm (decode dot products, decode row
// updates, packed tiles with partial edges and K blocks) against a double
// precision loop, and that neither the thread count nor the instruction
// set changes a single bit.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/Gemm.h"
#include "dialects/top/Interpreter/Parallel.h"
#include "dialects/top/Interpreter/test/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace llmc::top;
using namespace llmc::top::kernels;
using namespace llmc::top::testing;

namespace {

struct Shape {
  int64_t batch, m, n, k;
  bool transposeA, transposeB;
};

/// Every path: decode dot (m <= 16, B columns contiguous), decode rows
/// (m <= 16, B rows contiguous), packed (m > 16) with partial tiles, K above
/// one block (256), single rows, columns and depths, and batches.
const Shape kShapes[] = {
    {1, 1, 37, 300, false, true},    {1, 16, 33, 17, false, true},
    {1, 3, 70, 5, true, true},       {1, 1, 600, 9, false, false},
    {1, 13, 519, 260, false, false}, {1, 17, 19, 300, false, false},
    {1, 100, 300, 513, true, true},  {1, 64, 1, 1, false, false},
    {3, 20, 7, 33, true, false},     {2, 2, 5, 0, false, true},
};

/// The operands of one shape, stored as the transposes ask.
struct Problem {
  Shape shape;
  std::vector<float> a, b;
  std::vector<GemmOperands> products(std::vector<float> &c) const {
    std::vector<GemmOperands> all;
    int64_t m = shape.m, n = shape.n, k = shape.k;
    for (int64_t i = 0; i < shape.batch; ++i) {
      GemmOperands ops;
      const float *a0 = a.data() + i * m * k, *b0 = b.data() + i * k * n;
      ops.a = shape.transposeA ? MatrixRef{a0, 1, m} : MatrixRef{a0, k, 1};
      ops.b = shape.transposeB ? MatrixRef{b0, 1, k} : MatrixRef{b0, n, 1};
      ops.c = c.data() + i * m * n;
      all.push_back(ops);
    }
    return all;
  }
};

Problem makeProblem(const Shape &shape, uint32_t seed) {
  Problem problem{shape, {}, {}};
  problem.a = patternValues(shape.batch * shape.m * shape.k, seed);
  problem.b = patternValues(shape.batch * shape.k * shape.n, seed + 1);
  return problem;
}

std::vector<float> compute(const Problem &problem, unsigned threads,
                           GemmIsa isa = getBestGemmIsa()) {
  const Shape &s = problem.shape;
  // NaN-filled so an element the kernel forgets to write shows up.
  std::vector<float> c(s.batch * s.m * s.n, NAN);
  ThreadRunner runner(threads);
  gemm(s.m, s.n, s.k, problem.products(c), runner, isa);
  return c;
}

TEST(Gemm, MatchesADoublePrecisionLoopOnEveryPath) {
  for (const Shape &s : kShapes) {
    Problem problem = makeProblem(s, 11);
    std::vector<float> c = compute(problem, 2);
    std::vector<GemmOperands> views = problem.products(c);
    for (int64_t i = 0; i < s.batch; ++i)
      for (int64_t r = 0; r < s.m; ++r)
        for (int64_t j = 0; j < s.n; ++j) {
          double sum = 0.0, magnitude = 0.0;
          for (int64_t p = 0; p < s.k; ++p) {
            double product = double(views[i].a.data[r * views[i].a.rowStride +
                                                    p * views[i].a.colStride]) *
                             double(views[i].b.data[p * views[i].b.rowStride +
                                                    j * views[i].b.colStride]);
            sum += product;
            magnitude += std::fabs(product);
          }
          float got = c[(i * s.m + r) * s.n + j];
          ASSERT_NEAR(got, sum, 1e-6 * (magnitude + 1.0))
              << "shape " << s.batch << "x" << s.m << "x" << s.n << "x" << s.k
              << " at " << i << "," << r << "," << j;
        }
  }
}

TEST(Gemm, ThreadCountDoesNotChangeBits) {
  for (const Shape &s : kShapes) {
    Problem problem = makeProblem(s, 21);
    std::vector<float> one = compute(problem, 1);
    for (unsigned threads : {2u, 3u, 5u}) {
      std::vector<float> many = compute(problem, threads);
      ASSERT_EQ(std::memcmp(one.data(), many.data(), one.size() * 4), 0)
          << "shape " << s.m << "x" << s.n << "x" << s.k << ", " << threads
          << " threads";
    }
  }
}

TEST(Gemm, InstructionSetDoesNotChangeBits) {
  if (!isGemmIsaSupported(GemmIsa::Avx2))
    GTEST_SKIP() << "this machine has no AVX2";
  for (const Shape &s : kShapes) {
    Problem problem = makeProblem(s, 31);
    std::vector<float> baseline = compute(problem, 2, GemmIsa::Baseline);
    std::vector<float> avx2 = compute(problem, 2, GemmIsa::Avx2);
    ASSERT_EQ(std::memcmp(baseline.data(), avx2.data(), baseline.size() * 4), 0)
        << "shape " << s.m << "x" << s.n << "x" << s.k;
  }
}

TEST(Gemm, DotProductAndAddScaled) {
  std::vector<float> a = patternValues(37, 41), b = patternValues(37, 42);
  double sum = 0.0;
  for (int i = 0; i < 37; ++i)
    sum += double(a[i]) * double(b[i]);
  EXPECT_NEAR(dotProduct(a.data(), b.data(), 37), sum, 1e-5);

  std::vector<float> y(37, 1.0f);
  addScaled(-2.0f, a.data(), y.data(), 37);
  for (int i = 0; i < 37; ++i)
    EXPECT_EQ(y[i], 1.0f - 2.0f * a[i]) << i;
}

} // namespace
