//===- SampleHeadTest.cpp - the built sample_head on the interpreter ------===//
//
// Builds sample_head from a small hand-made ModelSpec (V = 10, W = 6) and
// runs it on the reference interpreter. Expected values come from a NumPy
// float32 implementation of the documented semantics: Hugging Face's
// repetition penalty once per distinct id of the window (negative ids are
// empty slots), stable descending top-k, division by the temperature, softmax
// in float64, and the smallest prefix whose cumulative probability reaches
// top_p (the first always kept), renormalized.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/Interpreter.h"
#include "frontends/llm/GraphBuilder.h"
#include "frontends/llm/test/SampleHeadSpec.h"
#include "plugins/WeightSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llmc;
using llmc::top::Tensor;

namespace {

const std::vector<float> kLogits = {2.0f, -1.0f, 0.5f,  3.0f, -0.5f,
                                    1.5f, 0.0f,  -2.0f, 2.5f, 1.0f};

struct Sampled {
  std::vector<float> probs;
  std::vector<int32_t> ids;
};

class SampleHeadTest : public ::testing::Test {
protected:
  /// Builds sample_head with a top-k of `topK`, checks its IO, and runs it
  /// with the run-time top-k `keep` (by default all K).
  Sampled run(int64_t topK, std::vector<int32_t> window, float penalty,
              float temperature, float topP, int32_t keep = 1000) {
    llm::BuildOptions options;
    options.seqLength = 16;
    options.maxInputLength = 4;
    options.penaltyWindow = 6;
    options.sampleTopK = topK;
    llvm::Expected<llm::GraphBuilder> builder =
        llm::GraphBuilder::create(context, spec, options);
    if (!builder) {
      ADD_FAILURE() << llvm::toString(builder.takeError());
      return {};
    }
    llvm::Expected<llm::Piece> piece = builder->build("sample_head");
    if (!piece) {
      ADD_FAILURE() << llvm::toString(piece.takeError());
      return {};
    }
    EXPECT_TRUE(succeeded(mlir::verify(*piece->module)));
    int64_t k = std::min<int64_t>(topK, spec.vocabSize);
    EXPECT_TRUE(piece->weights.empty());
    EXPECT_EQ(piece->inputs.size(), 6u);
    EXPECT_EQ(piece->outputs.size(), 2u);
    if (piece->outputs.size() == 2) {
      EXPECT_EQ(piece->outputs[0].role, llm::IORole::Probs);
      EXPECT_EQ(piece->outputs[0].shape, (llvm::SmallVector<int64_t>{1, k}));
      EXPECT_EQ(piece->outputs[1].role, llm::IORole::TokenIds);
      EXPECT_TRUE(piece->outputs[1].isInteger);
    }

    top::Interpreter interpreter(weights, top::InterpreterOptions{1});
    auto function = llvm::cast<mlir::func::FuncOp>(piece->getFunction());
    llvm::Expected<std::vector<Tensor>> outputs = interpreter.run(
        function,
        {Tensor::fromF32({1, spec.vocabSize}, kLogits),
         Tensor::fromI32({1, 6}, std::move(window)),
         Tensor::fromF32({1, 1}, {penalty}),
         Tensor::fromF32({1, 1}, {temperature}),
         Tensor::fromF32({1, 1}, {topP}), Tensor::fromI32({1, 1}, {keep})});
    if (!outputs) {
      ADD_FAILURE() << llvm::toString(outputs.takeError());
      return {};
    }
    llvm::ArrayRef<float> probs = (*outputs)[0].getF32();
    llvm::ArrayRef<int32_t> ids = (*outputs)[1].getI32();
    return {{probs.begin(), probs.end()}, {ids.begin(), ids.end()}};
  }

  static void expectProbs(const Sampled &sampled,
                          llvm::ArrayRef<float> expected) {
    ASSERT_EQ(sampled.probs.size(), expected.size());
    for (auto [index, got, want] : llvm::enumerate(sampled.probs, expected))
      EXPECT_NEAR(got, want, 2e-6f) << "candidate " << index;
  }

  mlir::MLIRContext context;
  plugins::ModelSpec spec = llm::testing::makeSampleHeadSpec(10);
  plugins::EmptyWeightSource weights{"no weights"};
};

TEST_F(SampleHeadTest, PenaltyOncePerIdOnPositiveAndNegativeLogits) {
  // K = 50 caps at V = 10, so every token's probability shows. Token 3
  // appears three times and is divided by 2 once (3.0 -> 1.5, tying token 5,
  // ranked by id); token 1 is multiplied (-1.0 -> -2.0, tying token 7). The
  // empty slots (-1) leave token 0 and the last token alone.
  Sampled sampled = run(50, {3, 1, 3, 3, -1, -1}, 2.0f, 1.0f, 1.0f);
  EXPECT_EQ(sampled.ids, (std::vector<int32_t>{8, 0, 3, 5, 9, 2, 6, 4, 1, 7}));
  expectProbs(sampled, {0.350281715f, 0.212456599f, 0.128861442f, 0.128861442f,
                        0.0781584159f, 0.0474054739f, 0.0287528727f,
                        0.0174394995f, 0.00389127829f, 0.00389127829f});
}

TEST_F(SampleHeadTest, EmptyWindowChangesNothing) {
  Sampled sampled = run(50, {-1, -1, -1, -1, -1, -1}, 2.0f, 1.0f, 1.0f);
  EXPECT_EQ(sampled.ids, (std::vector<int32_t>{3, 8, 0, 5, 9, 2, 6, 4, 1, 7}));
  expectProbs(sampled, {0.396825612f, 0.240686908f, 0.145983994f, 0.0885437652f,
                        0.0537045076f, 0.0325734317f, 0.0197567847f,
                        0.0119830957f, 0.00726811495f, 0.00267379009f});
}

TEST_F(SampleHeadTest, TemperatureSharpensTheTopK) {
  Sampled sampled = run(4, {-1, -1, -1, -1, -1, -1}, 1.0f, 0.5f, 1.0f);
  EXPECT_EQ(sampled.ids, (std::vector<int32_t>{3, 8, 0, 5}));
  expectProbs(sampled,
              {0.643914282f, 0.236882821f, 0.0871443152f, 0.0320586041f});
}

TEST_F(SampleHeadTest, TopPCutsAndRenormalizes) {
  // Penalized by 1.3 (token 8 falls below token 0; the last token and the
  // spare slot -5 do not disturb anything), then T = 0.8: the exclusive
  // running sums are 0, 0.588, 0.757, 0.910, so top_p = 0.6 keeps two.
  std::vector<int32_t> window = {8, 7, -1, 9, 8, -5};
  Sampled sampled = run(4, window, 1.3f, 0.8f, 0.6f);
  EXPECT_EQ(sampled.ids, (std::vector<int32_t>{3, 0, 8, 5}));
  expectProbs(sampled, {0.777299881f, 0.222700134f, 0.0f, 0.0f});

  // A top_p of 0 or NaN still keeps the best candidate.
  for (float topP : {0.0f, std::nanf("")}) {
    Sampled first = run(4, window, 1.3f, 0.8f, topP);
    EXPECT_EQ(first.ids, (std::vector<int32_t>{3, 0, 8, 5}));
    expectProbs(first, {1.0f, 0.0f, 0.0f, 0.0f});
  }
}

TEST_F(SampleHeadTest, RunTimeTopKKeepsTheFirstCandidates) {
  // As TopPCutsAndRenormalizes, with top_p off and a run-time top-k of 2:
  // the same two candidates, renormalized the same way.
  std::vector<int32_t> window = {8, 7, -1, 9, 8, -5};
  Sampled sampled = run(4, window, 1.3f, 0.8f, 1.0f, /*keep=*/2);
  EXPECT_EQ(sampled.ids, (std::vector<int32_t>{3, 0, 8, 5}));
  expectProbs(sampled, {0.777299881f, 0.222700134f, 0.0f, 0.0f});

  // A top-k below 1 still keeps the best candidate.
  for (int32_t keep : {0, -3}) {
    Sampled first = run(4, window, 1.3f, 0.8f, 1.0f, keep);
    expectProbs(first, {1.0f, 0.0f, 0.0f, 0.0f});
  }
}

TEST_F(SampleHeadTest, RejectsEmptyWindowOrTopK) {
  llm::BuildOptions options;
  options.seqLength = 16;
  options.maxInputLength = 4;
  options.sampleTopK = 0;
  llvm::Expected<llm::GraphBuilder> builder =
      llm::GraphBuilder::create(context, spec, options);
  ASSERT_FALSE(static_cast<bool>(builder));
  std::string message = llvm::toString(builder.takeError());
  EXPECT_NE(message.find("the penalty window and the sampling top-k must be "
                         "at least 1"),
            std::string::npos)
      << message;
}

} // namespace
