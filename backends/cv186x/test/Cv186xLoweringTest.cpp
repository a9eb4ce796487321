//===- Cv186xLoweringTest.cpp - the CV186AH backend's lowering hooks ------===//
//
// The plugin as the driver sees it: every listed mode lowers, its one core
// takes every op, and codegen tiles for its 32 lanes of 128 KiB.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/test/ChipBackendTest.h"

#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::plugins {
void register_cv186x(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using ::testing::HasSubstr;

namespace {

class Cv186xLoweringTest : public test::ChipBackendTest {
protected:
  Cv186xLoweringTest() : ChipBackendTest(plugins::register_cv186x, "cv186x") {}
};

TEST_F(Cv186xLoweringTest, LowersEveryModeItLists) {
  expectLowersEveryModeItLists(test::makeLmHeadPiece(64, 512));
}

TEST_F(Cv186xLoweringTest, KeepsEveryOpOnItsOneCore) {
  lowering::LoweringOptions options;
  EXPECT_THAT(lower(test::makeLmHeadPiece(64, 2048), options),
              ::testing::Not(HasSubstr("core_split")));
  options.cores = 2;
  mlir::PassManager pm(&context);
  EXPECT_EQ(llvm::toString(backend().buildLoweringPipeline(pm, options)),
            "chip 'cv186x' has 1 core(s); cannot split across 2");
}

TEST_F(Cv186xLoweringTest, CodegenFitsItsLanes) {
  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::W4BF16;
  cmd::CommandStream stream =
      compile(test::makeLmHeadPiece(2048, 1024), options);
  EXPECT_EQ(stream.version(), 1u);
  expectFitsTheChip(stream);
}

} // namespace
