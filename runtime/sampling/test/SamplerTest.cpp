//===- SamplerTest.cpp - greedy, seeded draws, filters and errors ---------===//

#include "runtime/sampling/Sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace llmc::sampling;

namespace {

/// Normally distributed logits from a fixed seed.
std::vector<float> randomLogits(int64_t vocab, uint64_t seed,
                                float scale = 2.0f) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> logits(vocab);
  for (float &logit : logits)
    logit = normal(generator);
  return logits;
}

int32_t sampleOrFail(Sampler &sampler, absl::Span<const float> logits,
                     absl::Span<const int32_t> recent = {}) {
  absl::StatusOr<int32_t> token = sampler.sample(logits, recent);
  if (!token.ok()) {
    ADD_FAILURE() << token.status().message();
    return -1;
  }
  return *token;
}

std::string errorOf(const absl::StatusOr<int32_t> &result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error, got token " << *result;
    return "";
  }
  return std::string(result.status().message());
}

SamplingParams greedyParams() {
  SamplingParams params;
  params.greedy = true;
  return params;
}

std::vector<int32_t> drawSequence(const SamplingParams &params, int count) {
  Sampler sampler(params);
  std::vector<int32_t> tokens;
  for (int step = 0; step < count; ++step)
    tokens.push_back(sampleOrFail(sampler, randomLogits(100, step, 1.0f)));
  return tokens;
}

TEST(SamplerTest, GreedyTakesTheFirstMaximum) {
  Sampler sampler(greedyParams());
  EXPECT_EQ(sampleOrFail(sampler, {1.0f, 3.0f, 3.0f, 2.0f}), 1);
  EXPECT_EQ(
      sampleOrFail(sampler,
                   {-5.0f, -std::numeric_limits<float>::infinity(), -4.0f}),
      2);
}

TEST(SamplerTest, SameSeedGivesTheSameTokens) {
  SamplingParams params;
  params.seed = 42;
  params.temperature = 0.9f;
  params.topP = 0.95f;
  std::vector<int32_t> first = drawSequence(params, 200);
  EXPECT_EQ(first, drawSequence(params, 200));

  // reseed restarts the sequence.
  Sampler sampler(params);
  for (int step = 0; step < 10; ++step)
    sampleOrFail(sampler, randomLogits(100, step, 1.0f));
  sampler.reseed(42);
  EXPECT_EQ(sampleOrFail(sampler, randomLogits(100, 0, 1.0f)), first[0]);
}

TEST(SamplerTest, DifferentSeedsGiveDifferentTokens) {
  SamplingParams params;
  params.seed = 1;
  std::vector<int32_t> first = drawSequence(params, 200);
  params.seed = 2;
  std::vector<int32_t> second = drawSequence(params, 200);
  int differing = 0;
  for (size_t i = 0; i < first.size(); ++i)
    differing += first[i] != second[i];
  // Flat logits over 100 tokens: almost every step differs.
  EXPECT_GT(differing, 150);
}

TEST(SamplerTest, DrawFollowsTheDocumentedGenerator) {
  SamplingParams params;
  params.seed = 7;
  Sampler sampler(params);
  std::mt19937_64 generator(7);
  std::vector<float> probs = {0.1f, 0.2f, 0.3f, 0.4f};
  std::vector<int32_t> ids = {10, 11, 12, 13};
  for (int step = 0; step < 100; ++step) {
    double u = static_cast<double>(generator() >> 11) * 0x1.0p-53;
    int32_t expected = u < 0.1 ? 10 : u < 0.3 ? 11 : u < 0.6 ? 12 : 13;
    // Skip draws that fall within rounding of a boundary.
    double nearest =
        std::min({std::abs(u - 0.1), std::abs(u - 0.3), std::abs(u - 0.6)});
    absl::StatusOr<int32_t> token = sampler.drawFromCandidates(probs, ids);
    ASSERT_TRUE(token.ok()) << token.status().message();
    if (nearest > 1e-6) {
      EXPECT_EQ(*token, expected) << "step " << step << ", u = " << u;
    }
  }
}

TEST(SamplerTest, TopKOfOneIsGreedy) {
  SamplingParams params;
  params.topK = 1;
  params.temperature = 0.7f;
  params.repetitionPenalty = 1.3f;
  params.seed = 3;
  Sampler sampler(params);
  Sampler greedy([&] {
    SamplingParams p = params;
    p.greedy = true;
    return p;
  }());
  std::vector<int32_t> recent = {5, 17, 5, 40, -1};
  for (uint64_t row = 0; row < 50; ++row) {
    std::vector<float> logits = randomLogits(64, row);
    EXPECT_EQ(sampleOrFail(sampler, logits, recent),
              sampleOrFail(greedy, logits, recent));
  }
}

TEST(SamplerTest, TinyTopPIsGreedy) {
  Sampler greedy(greedyParams());
  for (float topP : {1e-6f, 0.0f, std::nanf("")}) {
    SamplingParams params;
    params.topP = topP;
    params.seed = 11;
    Sampler sampler(params);
    for (uint64_t row = 0; row < 50; ++row) {
      std::vector<float> logits = randomLogits(64, row);
      EXPECT_EQ(sampleOrFail(sampler, logits), sampleOrFail(greedy, logits))
          << "top_p " << topP << ", row " << row;
    }
  }
}

TEST(SamplerTest, PenaltyChangesTheArgmax) {
  SamplingParams params = greedyParams();
  params.repetitionPenalty = 1.5f;
  Sampler sampler(params);
  // A positive logit is divided: 3.0 / 1.5 = 2.0 falls below 2.5.
  std::vector<float> positive = {3.0f, 2.5f, 1.0f};
  EXPECT_EQ(sampleOrFail(sampler, positive), 0);
  EXPECT_EQ(sampleOrFail(sampler, positive, {0}), 1);
  // A negative logit is multiplied: -1.0 * 1.5 = -1.5 falls below -1.2.
  std::vector<float> negative = {-1.0f, -1.2f, -3.0f};
  EXPECT_EQ(sampleOrFail(sampler, negative), 0);
  EXPECT_EQ(sampleOrFail(sampler, negative, {0, -1}), 1);
  // An id repeated in the window is penalized once: 3.0 / 1.5 = 2.0 still
  // beats 1.9 (twice would give 1.33).
  std::vector<float> close = {3.0f, 1.9f};
  EXPECT_EQ(sampleOrFail(sampler, close, {0, 0, 0}), 0);
}

TEST(SamplerTest, PenaltyLooksOnlyAtTheWindow) {
  SamplingParams params = greedyParams();
  params.repetitionPenalty = 1.5f;
  params.penaltyWindow = 2;
  Sampler sampler(params);
  std::vector<float> logits = {3.0f, 2.5f, 1.0f};
  // Token 0 is older than the last two ids: not penalized.
  EXPECT_EQ(sampleOrFail(sampler, logits, {0, 2, 2}), 0);
  EXPECT_EQ(sampleOrFail(sampler, logits, {2, 0, 2}), 1);
  params.penaltyWindow = 0;
  Sampler noWindow(params);
  EXPECT_EQ(sampleOrFail(noWindow, logits, {0}), 0);
}

TEST(SamplerTest, FilterKeepsTheTopPPrefixAndRenormalizes) {
  SamplingParams params;
  params.topK = 4;
  params.topP = 0.5f;
  Sampler sampler(params);
  // The candidates are {2, 1, 1, 0} (the tie at 1 goes to id 1 over id 4),
  // with probabilities 0.534, 0.197, 0.197, 0.072: 0.534 alone reaches 0.5.
  std::vector<float> logits = {2.0f, 1.0f, 0.0f, -1.0f, 1.0f};
  absl::StatusOr<Candidates> candidates = sampler.filterCandidates(logits, {});
  ASSERT_TRUE(candidates.ok()) << candidates.status().message();
  EXPECT_EQ(candidates->ids, (std::vector<int32_t>{0, 1, 4, 2}));
  EXPECT_EQ(candidates->probs, (std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f}));

  // top_p 0.6 needs the second candidate too (0.534 + 0.197 = 0.731 then
  // reaches it): e / (e + 1) and 1 / (e + 1) after renormalization.
  params.topP = 0.6f;
  candidates = Sampler(params).filterCandidates(logits, {});
  ASSERT_TRUE(candidates.ok()) << candidates.status().message();
  float first = std::exp(1.0f) / (std::exp(1.0f) + 1.0f);
  EXPECT_NEAR(candidates->probs[0], first, 1e-6f);
  EXPECT_NEAR(candidates->probs[1], 1.0f - first, 1e-6f);
  EXPECT_EQ(candidates->probs[2], 0.0f);
  EXPECT_EQ(candidates->probs[3], 0.0f);
}

/// Draws `draws` tokens and checks each token's frequency against
/// `expected` within five standard deviations.
void expectFrequencies(const SamplingParams &params,
                       absl::Span<const float> logits,
                       absl::Span<const double> expected, int draws) {
  Sampler sampler(params);
  std::vector<int> counts(logits.size(), 0);
  for (int i = 0; i < draws; ++i) {
    int32_t token = sampleOrFail(sampler, logits);
    ASSERT_GE(token, 0);
    ++counts[token];
  }
  for (size_t id = 0; id < logits.size(); ++id) {
    double frequency = double(counts[id]) / draws;
    double sigma = std::sqrt(expected[id] * (1.0 - expected[id]) / draws);
    EXPECT_NEAR(frequency, expected[id], 5.0 * sigma + 1e-9)
        << "token " << id << " drawn " << counts[id] << " times";
  }
}

TEST(SamplerTest, DrawsFollowTheSoftmax) {
  SamplingParams params;
  params.temperature = 0.8f;
  params.seed = 2024;
  std::vector<float> logits = {1.0f, 0.5f, 0.0f, -0.5f, 2.0f};
  std::vector<double> expected(logits.size());
  double sum = 0.0;
  for (size_t i = 0; i < logits.size(); ++i)
    sum += expected[i] = std::exp(logits[i] / 0.8);
  for (double &p : expected)
    p /= sum;
  expectFrequencies(params, logits, expected, 20000);

  // With top-k 3 the two least likely tokens never appear and the others
  // share their mass.
  params.topK = 3;
  double kept = expected[4] + expected[0] + expected[1];
  std::vector<double> truncated = {expected[0] / kept, expected[1] / kept, 0.0,
                                   0.0, expected[4] / kept};
  expectFrequencies(params, logits, truncated, 20000);
}

TEST(SamplerTest, DrawFromCandidatesMatchesSample) {
  SamplingParams params;
  params.seed = 99;
  params.topK = kSampleHeadTopK;
  params.topP = 0.9f;
  params.repetitionPenalty = 1.1f;
  Sampler direct(params), split(params);
  std::vector<int32_t> recent = {3, 4, 5};
  for (uint64_t row = 0; row < 100; ++row) {
    std::vector<float> logits = randomLogits(300, row);
    absl::StatusOr<Candidates> candidates =
        split.filterCandidates(logits, recent);
    ASSERT_TRUE(candidates.ok()) << candidates.status().message();
    absl::StatusOr<int32_t> drawn =
        split.drawFromCandidates(candidates->probs, candidates->ids);
    ASSERT_TRUE(drawn.ok()) << drawn.status().message();
    EXPECT_EQ(sampleOrFail(direct, logits, recent), *drawn);
  }
}

TEST(SamplerTest, BadInputsAreErrors) {
  SamplingParams params;
  Sampler sampler(params);
  EXPECT_EQ(errorOf(sampler.sample({}, {})), "sampling: the logits are empty");
  EXPECT_EQ(errorOf(sampler.sample({0.0f, std::nanf(""), 1.0f}, {})),
            "sampling: logit 1 is NaN");
  EXPECT_EQ(errorOf(sampler.sample(
                {std::numeric_limits<float>::infinity(), 1.0f}, {})),
            "sampling: logit 0 is +inf");
  EXPECT_EQ(errorOf(sampler.sample({1.0f, 2.0f}, {1, 2})),
            "sampling: recent token id 2 is outside the vocabulary of 2");
  float negInf = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(errorOf(sampler.sample({negInf, negInf}, {})),
            "sampling: every logit is -inf");

  // Greedy decoding checks the logits too.
  Sampler greedy(greedyParams());
  EXPECT_EQ(errorOf(greedy.sample({std::nanf("")}, {})),
            "sampling: logit 0 is NaN");

  params.temperature = 0.0f;
  EXPECT_EQ(errorOf(Sampler(params).sample({1.0f}, {})),
            "sampling: the temperature must be positive and finite (got 0); "
            "use greedy decoding for temperature 0");
  params.temperature = 1.0f;
  params.repetitionPenalty = -1.0f;
  EXPECT_EQ(errorOf(Sampler(params).sample({1.0f}, {})),
            "sampling: the repetition penalty must be positive and finite "
            "(got -1)");

  EXPECT_EQ(errorOf(sampler.drawFromCandidates({0.5f}, {1, 2})),
            "sampling: 1 probabilities for 2 candidate ids");
  EXPECT_EQ(errorOf(sampler.drawFromCandidates({}, {})),
            "sampling: there are no candidates to draw from");
  EXPECT_EQ(errorOf(sampler.drawFromCandidates({0.0f, 0.0f}, {1, 2})),
            "sampling: every candidate has probability 0");
  EXPECT_EQ(errorOf(sampler.drawFromCandidates({0.5f, std::nanf("")}, {1, 2})),
            "sampling: candidate 1 has probability nan");
}

TEST(SamplerTest, ZeroProbabilityCandidatesAreNeverDrawn) {
  Sampler sampler(SamplingParams{});
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<int32_t> token = sampler.drawFromCandidates(
        {0.0f, 0.7f, 0.0f, 0.3f, 0.0f}, {5, 6, 7, 8, 9});
    ASSERT_TRUE(token.ok()) << token.status().message();
    EXPECT_TRUE(*token == 6 || *token == 8) << *token;
  }
}

} // namespace
