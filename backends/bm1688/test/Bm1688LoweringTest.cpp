//===- Bm1688LoweringTest.cpp - the BM1688 backend's lowering hooks -------===//
//
// The plugin as the driver sees it: every listed mode lowers, heavy weights
// are split across its two cores (or not, when asked for one), and codegen
// tiles for its 32 lanes of 128 KiB.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/test/ChipBackendTest.h"

#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::plugins {
void register_bm1688(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

class Bm1688LoweringTest : public test::ChipBackendTest {
protected:
  Bm1688LoweringTest() : ChipBackendTest(plugins::register_bm1688, "bm1688") {}
};

TEST_F(Bm1688LoweringTest, LowersEveryModeItLists) {
  expectLowersEveryModeItLists(test::makeLmHeadPiece(64, 512));
}

TEST_F(Bm1688LoweringTest, SplitsHeavyWeightsAcrossItsTwoCores) {
  // 2048 x 64 f32 weights: 512 KiB.
  std::string heavy = test::makeLmHeadPiece(64, 2048);
  lowering::LoweringOptions options;
  EXPECT_THAT(lower(heavy, options),
              HasSubstr("core_split = #tpu.core_split<cores = 2, axis = 1>"));
  // 128 KiB are not worth the barrier.
  EXPECT_THAT(lower(test::makeLmHeadPiece(64, 512), options),
              Not(HasSubstr("core_split")));
  options.cores = 1;
  EXPECT_THAT(lower(heavy, options), Not(HasSubstr("core_split")));
  options.cores = 3;
  mlir::PassManager pm(&context);
  EXPECT_EQ(llvm::toString(backend().buildLoweringPipeline(pm, options)),
            "chip 'bm1688' has 2 core(s); cannot split across 3");
}

TEST_F(Bm1688LoweringTest, CodegenFitsItsLanesOnBothCores) {
  // 8 KiB weight rows: a lane of 128 KiB holds few of them per tile.
  lowering::LoweringOptions options;
  cmd::CommandStream stream =
      compile(test::makeLmHeadPiece(2048, 1024), options);
  EXPECT_EQ(stream.version(), 2u);
  ASSERT_EQ(stream.sections_size(), 1);
  EXPECT_EQ(stream.sections(0).cores_size(), 2);
  expectFitsTheChip(stream);
  options.cores = 1;
  stream = compile(test::makeLmHeadPiece(2048, 1024), options);
  EXPECT_EQ(stream.version(), 1u);
  expectFitsTheChip(stream);
}

} // namespace
