//===- OnnxCheckpointTest.cpp - rope_theta and malformed exports ----------===//

#include "frontends/onnx/OnnxCheckpoint.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace llmc::onnx;
using ::testing::HasSubstr;

namespace {

/// Hugging Face's default rotary tables, computed in float32 as torch does.
void makeTables(double theta, int64_t positions, int64_t headDim,
                std::vector<float> &cos, std::vector<float> &sin,
                float positionScale = 1.0f) {
  cos.clear();
  sin.clear();
  for (int64_t position = 0; position < positions; ++position)
    for (int64_t channel = 0; channel < headDim; ++channel) {
      float frequency = static_cast<float>(
          1.0 / std::pow(theta, double(2 * (channel % (headDim / 2))) /
                                    double(headDim)));
      float angle = float(position) * positionScale * frequency;
      cos.push_back(std::cos(angle));
      sin.push_back(std::sin(angle));
    }
}

TEST(OnnxCheckpointTest, ReadsRopeThetaFromTheTables) {
  std::vector<float> cos, sin;
  for (double theta : {10000.0, 500000.0, 1000000.0}) {
    for (int64_t headDim : {32, 64, 128}) {
      makeTables(theta, 512, headDim, cos, sin);
      llvm::Expected<double> read = inferRopeTheta(cos, sin, 512, headDim);
      ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
      EXPECT_EQ(*read, theta) << "head_dim " << headDim;
    }
  }
}

TEST(OnnxCheckpointTest, RefusesScaledRope) {
  // Linear rope scaling (positions / 4) matches no theta at every position.
  std::vector<float> cos, sin;
  makeTables(10000.0, 512, 64, cos, sin, 0.25f);
  llvm::Expected<double> read = inferRopeTheta(cos, sin, 512, 64);
  ASSERT_FALSE(static_cast<bool>(read));
  EXPECT_THAT(llvm::toString(read.takeError()),
              HasSubstr("llmc reads unscaled half-layout rope only"));
}

TEST(OnnxCheckpointTest, NamesTheBrokenFile) {
  llvm::SmallString<128> directory;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("onnx", directory));
  EXPECT_FALSE(isOnnxExport(directory));
  for (const char *name : {"embedding.onnx", "block_0.onnx", "lm_head.onnx"}) {
    std::error_code error;
    llvm::raw_fd_ostream file((directory + "/" + name).str(), error);
    ASSERT_FALSE(error);
    file << "\xff\xff\xff\xff not a protobuf";
  }
  EXPECT_TRUE(isOnnxExport(directory));
  llvm::Expected<llmc::plugins::Checkpoint> checkpoint =
      loadCheckpoint(directory);
  ASSERT_FALSE(static_cast<bool>(checkpoint));
  EXPECT_EQ(llvm::toString(checkpoint.takeError()),
            (directory + "/embedding.onnx: not an ONNX model (the protobuf "
                         "does not parse)")
                .str());
  llvm::sys::fs::remove_directories(directory);
}

} // namespace
