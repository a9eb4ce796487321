//===- TokenDistributionsTest.cpp - KLD, perplexity, top-1 agreement ------===//

#include "tools/llmc/TokenDistributions.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc {
namespace {

TEST(TokenDistributionsTest, NegativeLogLikelihoodIsTheSoftmaxsLogProbability) {
  // softmax(log 1, log 2, log 5) = (0.125, 0.25, 0.625); shifting every
  // logit by 100 changes nothing.
  std::vector<float> logits = {0.0f, std::log(2.0f), std::log(5.0f)};
  EXPECT_NEAR(getNegativeLogLikelihood(logits, 1), -std::log(0.25), 1e-6);
  for (float &logit : logits)
    logit += 100;
  EXPECT_NEAR(getNegativeLogLikelihood(logits, 2), -std::log(0.625), 1e-5);
}

TEST(TokenDistributionsTest, KlDivergenceOfTwoDistributions) {
  // P = (0.5, 0.5), Q = (0.25, 0.75): KL = 0.5 ln 2 + 0.5 ln(2/3).
  std::vector<float> p = {0.0f, 0.0f};
  std::vector<float> q = {std::log(1.0f), std::log(3.0f)};
  EXPECT_NEAR(getKlDivergence(p, q), 0.5 * std::log(2.0) + 0.5 * std::log(2.0 / 3),
              1e-7);
  // It is not symmetric: KL(Q || P) = 0.25 ln 0.5 + 0.75 ln 1.5.
  EXPECT_NEAR(getKlDivergence(q, p),
              0.25 * std::log(0.5) + 0.75 * std::log(1.5), 1e-7);
  EXPECT_EQ(getKlDivergence(p, p), 0.0);
}

TEST(TokenDistributionsTest, FiguresOverPositions) {
  DistributionComparison comparison;
  std::vector<float> even = {0.0f, 0.0f};
  std::vector<float> skewed = {0.0f, std::log(3.0f)};
  // 99 positions where the models agree exactly and one where they do not:
  // the mean is a hundredth of that one KLD, the 99th percentile 0.
  for (int i = 0; i < 99; ++i)
    comparison.add(skewed, skewed, 1);
  comparison.add(even, skewed, 0);
  DistributionFigures figures = comparison.getFigures();
  double divergence = getKlDivergence(even, skewed);
  EXPECT_EQ(figures.positions, 100);
  EXPECT_NEAR(figures.meanKld, divergence / 100, 1e-12);
  EXPECT_EQ(figures.p99Kld, 0.0);
  EXPECT_NEAR(figures.maxKld, divergence, 1e-12);
  // The tie (0, 0) ranks token 0 first, the skewed logits token 1.
  EXPECT_NEAR(figures.top1Agreement, 0.99, 1e-12);
  // Perplexity: exp of the mean NLL; the candidate scored
  // -ln 0.75 99 times and -ln 0.25 once, the reference -ln 0.5 once. The
  // logits hold ln 3 as a float (6e-9 apart from these figures).
  EXPECT_NEAR(figures.candidatePerplexity,
              std::exp((-99 * std::log(0.75) - std::log(0.25)) / 100), 1e-7);
  EXPECT_NEAR(figures.referencePerplexity,
              std::exp((-99 * std::log(0.75) - std::log(0.5)) / 100), 1e-7);
  // Two positions above the 99th percentile's rank move it.
  comparison.add(even, skewed, 0);
  EXPECT_NEAR(comparison.getFigures().p99Kld, divergence, 1e-12);
}

TEST(TokenDistributionsTest, NoPositionsGiveZeros) {
  DistributionFigures figures = DistributionComparison().getFigures();
  EXPECT_EQ(figures.positions, 0);
  EXPECT_EQ(figures.meanKld, 0.0);
}

} // namespace
} // namespace llmc
