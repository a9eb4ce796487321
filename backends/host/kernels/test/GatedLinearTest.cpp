//===- GatedLinearTest.cpp - gatedLinear against a reference --------------===//

#include "backends/host/kernels/Kernels.h"
#include "backends/host/kernels/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

namespace llmc::host::test {
namespace {

double activate(Activation act, double v) {
  switch (act) {
  case Activation::SiLU:
    return v / (1.0 + std::exp(-v));
  case Activation::GELU:
    return 0.5 * v * std::erfc(-v / std::sqrt(2.0));
  case Activation::GELUTanh:
    return 0.5 * v *
           (1.0 +
            std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
  }
  return v;
}

const char *describe(Activation act) {
  switch (act) {
  case Activation::SiLU:
    return "silu";
  case Activation::GELU:
    return "gelu";
  case Activation::GELUTanh:
    return "gelu-tanh";
  }
  return "?";
}

struct Case {
  WeightType type;
  ParamType scale, zp;
  int64_t group, m, n, k;
};

void check(const Case &c, Activation act, WorkerPool &pool, std::mt19937 &rng) {
  const int64_t group = c.group ? c.group : c.k;
  TestWeights gate = makeWeights(c.type, c.scale, c.zp, c.n, c.k, group, rng);
  TestWeights up = makeWeights(c.type, c.scale, c.zp, c.n, c.k, group, rng);
  // Large enough that the activations see their tails.
  std::vector<float> x = randomFloats(c.m * c.k, rng, 3.0f);
  std::vector<double> g, gScale, u, uScale, gRounding, uRounding, spread;
  referenceProduct(x.data(), c.m, c.k, gate, g, gScale);
  referenceProduct(x.data(), c.m, c.k, up, u, uScale);
  eightBitXBound(x.data(), c.m, c.k, gate, gRounding, spread);
  eightBitXBound(x.data(), c.m, c.k, up, uRounding, spread);
  const int64_t hStride = c.n + 1;
  for (Isa isa : getTestIsas()) {
    std::vector<float> h(c.m * hStride, -7.0f);
    gatedLinear(x.data(), c.m, c.k, gate.w, up.w, act, h.data(), hStride, pool,
                isa);
    const bool eightBitX = takesEightBitX(gate.w, c.m, isa);
    int failures = 0;
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        int64_t e = i * c.n + j;
        double a = activate(act, g[e]);
        double expected = a * u[e];
        // Errors of g (through act' <= 1.2), of u, of both together, and
        // of act itself.
        double gError = 2e-5 * gScale[e] + (eightBitX ? gRounding[e] : 0.0);
        double uError = 2e-5 * uScale[e] + (eightBitX ? uRounding[e] : 0.0);
        double tolerance = 1.2 * gError * (std::fabs(u[e]) + uError) +
                           uError * std::fabs(a) +
                           2e-6 * std::fabs(g[e] * u[e]) + 1e-30;
        double got = h[i * hStride + j];
        if (!(std::fabs(got - expected) <= tolerance) && failures++ < 3)
          ADD_FAILURE() << test::describe(c.type) << " " << describe(act)
                        << " m" << c.m << " n" << c.n << " k" << c.k << " "
                        << getIsaName(isa) << ": h[" << i << ", " << j
                        << "] = " << got << ", expected " << expected << " (g "
                        << g[e] << ", u " << u[e] << ")";
      }
      EXPECT_EQ(h[i * hStride + c.n], -7.0f) << "wrote past row " << i;
    }
  }
}

TEST(GatedLinearTest, MatchesReference) {
  WorkerPool pool(2);
  std::mt19937 rng(99);
  for (Activation act :
       {Activation::SiLU, Activation::GELU, Activation::GELUTanh})
    for (int64_t m : {1, 3, 20}) {
      check({WeightType::F16, ParamType::None, ParamType::None, 0, m, 45, 96},
            act, pool, rng);
      check({WeightType::I4, ParamType::F16, ParamType::None, 32, m, 70, 320},
            act, pool, rng);
      check({WeightType::U8, ParamType::BF16, ParamType::U8, 64, m, 37, 128},
            act, pool, rng);
      check({WeightType::BF16, ParamType::None, ParamType::None, 0, m, 9, 30},
            act, pool, rng);
    }
}

TEST(GatedLinearTest, BitIdenticalForAnyThreadCount) {
  std::mt19937 rng(5);
  for (auto [type, m] : {std::pair<WeightType, int64_t>{WeightType::I4, 1},
                         {WeightType::F16, 2},
                         {WeightType::I8, 30}}) {
    TestWeights gate =
        makeWeights(type, ParamType::F16, ParamType::None, 133, 256, 64, rng);
    TestWeights up =
        makeWeights(type, ParamType::F16, ParamType::None, 133, 256, 64, rng);
    std::vector<float> x = randomFloats(m * 256, rng);
    for (Isa isa : getTestIsas()) {
      std::vector<float> first;
      for (unsigned threads : {1u, 2u, 3u}) {
        WorkerPool pool(threads);
        std::vector<float> h(m * 133);
        gatedLinear(x.data(), m, 256, gate.w, up.w, Activation::SiLU, h.data(),
                    133, pool, isa);
        if (first.empty())
          first = h;
        else
          EXPECT_EQ(0, std::memcmp(first.data(), h.data(), 4 * h.size()))
              << test::describe(type) << " m" << m << " " << getIsaName(isa)
              << ", " << threads << " threads";
      }
    }
  }
}

} // namespace
} // namespace llmc::host::test
