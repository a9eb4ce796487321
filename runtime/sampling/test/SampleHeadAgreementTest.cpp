//===- SampleHeadAgreementTest.cpp - Sampler against sample_head ---------===//
//
// Builds the sample_head piece with the default build options (a penalty
// window of 64, 50 candidates) for a vocabulary of 300, runs it on the
// reference interpreter for random logits, windows, penalties, temperatures,
// top-p and top-k values, and checks that Sampler::filterCandidates returns
// the same candidates with the same probabilities, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/Interpreter.h"
#include "frontends/llm/GraphBuilder.h"
#include "frontends/llm/test/SampleHeadSpec.h"
#include "plugins/WeightSource.h"
#include "runtime/sampling/Sampler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace llmc;
using llmc::sampling::Candidates;
using llmc::sampling::Sampler;
using llmc::sampling::SamplingParams;
using llmc::top::Tensor;

namespace {

constexpr int64_t kVocab = 300;

/// One random case: logits, a history longer than the window, and the
/// sampling parameters.
struct Case {
  std::vector<float> logits;
  std::vector<int32_t> history;
  float penalty, temperature, topP;
  /// The run-time top-k, at most K.
  int32_t topK;
};

Case makeCase(uint64_t seed, int64_t window) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f + seed % 4);
  std::uniform_int_distribution<int32_t> id(0, kVocab - 1);
  Case c;
  c.logits.resize(kVocab);
  // Every third case rounds the logits to halves, so that ties (broken by
  // the lower id) and penalized values landing on other logits occur.
  for (float &logit : c.logits) {
    logit = normal(generator);
    if (seed % 3 == 0)
      logit = std::round(logit * 2.0f) / 2.0f;
  }
  // A history of window + 16 ids drawn from a few popular tokens (so ids
  // repeat) and the whole vocabulary; a short conversation leaves the first
  // slots empty (-1).
  int64_t length = window + 16;
  for (int64_t i = 0; i < length; ++i) {
    int32_t token = (generator() % 2) ? id(generator) : id(generator) % 8;
    c.history.push_back(seed % 5 == 1 && i < length - 10 ? -1 : token);
  }
  const float penalties[] = {1.0f, 1.1f, 1.3f, 2.0f, 0.8f};
  const float temperatures[] = {1.0f, 0.7f, 0.3f, 1.5f};
  const float topPs[] = {1.0f, 0.9f, 0.5f, 0.95f, 0.2f, 0.0f};
  c.penalty = penalties[seed % 5];
  c.temperature = temperatures[(seed / 5) % 4];
  c.topP = topPs[(seed / 3) % 6];
  const int32_t topKs[] = {sampling::kSampleHeadTopK, 20, 5, 1, 37};
  c.topK = topKs[(seed / 7) % 5];
  return c;
}

TEST(SampleHeadAgreementTest, FilterCandidatesMatchesTheInterpreter) {
  mlir::MLIRContext context;
  plugins::ModelSpec spec = llm::testing::makeSampleHeadSpec(kVocab);
  llm::BuildOptions options;
  options.seqLength = 16;
  options.maxInputLength = 4;
  ASSERT_EQ(options.sampleTopK, sampling::kSampleHeadTopK);
  llvm::Expected<llm::GraphBuilder> builder =
      llm::GraphBuilder::create(context, spec, options);
  ASSERT_TRUE(static_cast<bool>(builder))
      << llvm::toString(builder.takeError());
  llvm::Expected<llm::Piece> piece = builder->build("sample_head");
  ASSERT_TRUE(static_cast<bool>(piece)) << llvm::toString(piece.takeError());
  auto function = llvm::cast<mlir::func::FuncOp>(piece->getFunction());
  plugins::EmptyWeightSource weights{"no weights"};
  top::Interpreter interpreter(weights, top::InterpreterOptions{1});
  int64_t window = options.penaltyWindow;
  // Cases where top-p cut candidates, and where equal logits had to be
  // ranked by id: both must occur for the comparison to mean something.
  int cutCases = 0, tiedCases = 0;

  for (uint64_t seed = 0; seed < 120; ++seed) {
    SCOPED_TRACE("case " + std::to_string(seed));
    Case c = makeCase(seed, window);
    std::vector<int32_t> lastIds(c.history.end() - window, c.history.end());
    llvm::Expected<std::vector<Tensor>> outputs =
        interpreter.run(function, {Tensor::fromF32({1, kVocab}, c.logits),
                                   Tensor::fromI32({1, window}, lastIds),
                                   Tensor::fromF32({1, 1}, {c.penalty}),
                                   Tensor::fromF32({1, 1}, {c.temperature}),
                                   Tensor::fromF32({1, 1}, {c.topP}),
                                   Tensor::fromI32({1, 1}, {c.topK})});
    ASSERT_TRUE(static_cast<bool>(outputs))
        << llvm::toString(outputs.takeError());
    llvm::ArrayRef<float> headProbs = (*outputs)[0].getF32();
    llvm::ArrayRef<int32_t> headIds = (*outputs)[1].getI32();
    cutCases += llvm::is_contained(headProbs.take_front(c.topK), 0.0f);
    for (size_t i = 1; i < headIds.size(); ++i)
      if (headProbs[i] != 0.0f && headProbs[i] == headProbs[i - 1]) {
        ++tiedCases;
        break;
      }

    SamplingParams params;
    params.topK = c.topK;
    params.penaltyWindow = window;
    params.repetitionPenalty = c.penalty;
    params.temperature = c.temperature;
    params.topP = c.topP;
    // The sampler gets the whole history and must look at its last W ids.
    absl::StatusOr<Candidates> candidates =
        Sampler(params).filterCandidates(c.logits, c.history);
    ASSERT_TRUE(candidates.ok()) << candidates.status().message();
    // The head ranks K candidates and gives those past top-k probability 0.
    EXPECT_EQ(candidates->ids,
              std::vector<int32_t>(headIds.begin(), headIds.begin() + c.topK));
    EXPECT_EQ(
        candidates->probs,
        std::vector<float>(headProbs.begin(), headProbs.begin() + c.topK));
    EXPECT_TRUE(llvm::all_of(headProbs.drop_front(c.topK),
                             [](float prob) { return prob == 0.0f; }));

    // Drawing from the head's outputs or sampling on the host gives the
    // same token for the same seed.
    params.seed = seed;
    Sampler host(params), device(params);
    absl::StatusOr<int32_t> sampled = host.sample(c.logits, c.history);
    absl::StatusOr<int32_t> drawn =
        device.drawFromCandidates(headProbs, headIds);
    ASSERT_TRUE(sampled.ok() && drawn.ok());
    EXPECT_EQ(*sampled, *drawn);
  }
  EXPECT_GT(cutCases, 20);
  EXPECT_GT(tiedCases, 10);
}

} // namespace
