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

sampling::SamplingParams headParams() {
  sampling::SamplingParams params;
  params.temperature = 0.8f;
  params.topK = sampling::kSampleHeadTopK;
  params.topP = 0.9f;
  params.repetitionPenalty = 1.3f;
  params.seed = 11;
  return params;
}

TEST(DeviceSamplingTest, DrawsWhatHostSamplingDraws) {
  llvm::Expected<std::unique_ptr<Model>> model =
      Model::load(test::getDemoBinary());
  ASSERT_TRUE(static_cast<bool>(model)) << toString(model.takeError());
  DeviceSampling *head = (*model)->getDeviceSampling();
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->getCandidates(), sampling::kSampleHeadTopK);
  EXPECT_EQ(head->getWindow(), 64);

  sampling::SamplingParams params = headParams();
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
    llvm::Expected<int32_t> device = head->sample(onDevice, logits, recent);
    ASSERT_TRUE(static_cast<bool>(device)) << toString(device.takeError());
    llvm::Expected<int32_t> host = onHost.sample(logits, recent);
    ASSERT_TRUE(static_cast<bool>(host)) << toString(host.takeError());
    EXPECT_EQ(*device, *host) << "draw " << step;
    // Repeats, so the penalty sees an id more than once.
    recent.push_back(*host);
    recent.push_back(*host);
  }
}

TEST(DeviceSamplingTest, ServesOnlyTheParametersItWasCompiledFor) {
  llvm::Expected<std::unique_ptr<Model>> model =
      Model::load(test::getDemoBinary());
  ASSERT_TRUE(static_cast<bool>(model)) << toString(model.takeError());
  DeviceSampling *head = (*model)->getDeviceSampling();
  ASSERT_NE(head, nullptr);
  sampling::SamplingParams params = headParams();
  params.topK = 40;
  EXPECT_FALSE(head->serves(params));
  params = headParams();
  params.penaltyWindow = 32;
  EXPECT_FALSE(head->serves(params));
  params = headParams();
  params.greedy = true;
  EXPECT_FALSE(head->serves(params));
}

} // namespace
} // namespace llmc
