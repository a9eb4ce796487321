//===- DeviceSamplingTest.cpp - sample_head against host sampling ---------===//
//
// A binary's sample_head filters the candidates on the device; with one
// seed, drawing from them must give the tokens the host sampler gives.
//
//===----------------------------------------------------------------------===//

#include "runtime/api/test/TestModels.h"
#include "runtime/llmc.h"

#include "gtest/gtest.h"

#include <random>

namespace llmc {
namespace {

sampling::SamplingParams headParams(int64_t topK) {
  sampling::SamplingParams params;
  params.temperature = 0.8f;
  params.topK = topK;
  params.topP = 0.9f;
  params.repetitionPenalty = 1.3f;
  params.seed = 11;
  return params;
}

TEST(DeviceSamplingTest, DrawsWhatHostSamplingDraws) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::load(test::getDemoBinary());
  ASSERT_TRUE(model.ok()) << model.status().message();
  DeviceSampling *head = (*model)->getDeviceSampling();
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->getCandidates(), sampling::kSampleHeadTopK);
  EXPECT_EQ(head->getWindow(), 64);

  // The compiled K, and a smaller top-k the head applies at run time.
  for (int64_t topK : {sampling::kSampleHeadTopK, int64_t(20)}) {
    SCOPED_TRACE("top-k " + std::to_string(topK));
    sampling::SamplingParams params = headParams(topK);
    ASSERT_TRUE(head->serves(params));
    sampling::Sampler onDevice(params), onHost(params);
    int64_t vocab = (*model)->getDims().vocabSize;
    std::mt19937 random(3);
    std::normal_distribution<float> normal;
    std::vector<int32_t> recent;
    for (int step = 0; step < 20; ++step) {
      std::vector<float> logits(vocab);
      for (float &logit : logits)
        logit = 3.0f * normal(random);
      absl::StatusOr<int32_t> device = head->sample(onDevice, logits, recent);
      ASSERT_TRUE(device.ok()) << device.status().message();
      absl::StatusOr<int32_t> host = onHost.sample(logits, recent);
      ASSERT_TRUE(host.ok()) << host.status().message();
      EXPECT_EQ(*device, *host) << "draw " << step;
      // Repeats, so the penalty sees an id more than once.
      recent.push_back(*host);
      recent.push_back(*host);
    }
  }
}

TEST(DeviceSamplingTest, ServesOnlyTheParametersItWasCompiledFor) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::load(test::getDemoBinary());
  ASSERT_TRUE(model.ok()) << model.status().message();
  DeviceSampling *head = (*model)->getDeviceSampling();
  ASSERT_NE(head, nullptr);
  EXPECT_TRUE(head->serves(headParams(1)));
  EXPECT_FALSE(head->serves(headParams(sampling::kSampleHeadTopK + 1)));
  // Every token of a vocabulary larger than K.
  EXPECT_FALSE(head->serves(headParams(0)));
  sampling::SamplingParams params = headParams(20);
  params.penaltyWindow = 32;
  EXPECT_FALSE(head->serves(params));
  params = headParams(20);
  params.greedy = true;
  EXPECT_FALSE(head->serves(params));
}

} // namespace
} // namespace llmc
