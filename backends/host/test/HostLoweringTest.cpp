//===- HostLoweringTest.cpp - the host backend's lowering and codegen -----===//
//
// The plugin as the driver sees it: every listed mode lowers, nothing is
// split into cores, and codegen writes a host program: whole ops on global
// tensors, no local memory.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/test/ChipBackendTest.h"

#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::plugins {
void register_host(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

class HostLoweringTest : public test::ChipBackendTest {
protected:
  HostLoweringTest() : ChipBackendTest(plugins::register_host, "host") {}
};

TEST_F(HostLoweringTest, LowersEveryModeItLists) {
  expectLowersEveryModeItLists(test::makeLmHeadPiece(64, 512));
}

TEST_F(HostLoweringTest, RefusesInt8AndCoreSplits) {
  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::INT8;
  mlir::PassManager pm(&context);
  EXPECT_THAT(llvm::toString(backend().buildLoweringPipeline(pm, options)),
              HasSubstr("chip 'host' does not support quantization mode "
                        "'INT8'"));
  options = {};
  options.cores = 2;
  EXPECT_EQ(llvm::toString(backend().buildLoweringPipeline(pm, options)),
            "chip 'host' has 1 core(s); cannot split across 2");
  EXPECT_THAT(lower(test::makeLmHeadPiece(64, 4096), {}),
              Not(HasSubstr("core_split")));
}

TEST_F(HostLoweringTest, CodegenWritesOneCommandPerOp) {
  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::W4BF16;
  cmd::CommandStream stream =
      compile(test::makeLmHeadPiece(2048, 1024), options);
  EXPECT_EQ(stream.version(), 3u);
  EXPECT_EQ(stream.dma_queue_size() + stream.compute_queue_size() +
                stream.sections_size(),
            0);
  // The projection untiled: x [1, 2048] by the whole 4-bit weight.
  ASSERT_GE(stream.host_commands_size(), 1);
  const cmd::HostCommand *matmul = nullptr;
  for (const cmd::HostCommand &command : stream.host_commands())
    if (command.compute().opcode() == cmd::A16MATMUL)
      matmul = &command;
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->compute().inputs_size(), 0);
  EXPECT_EQ(matmul->inputs(1).rows(), 1024);
  EXPECT_EQ(matmul->inputs(1).cols(), 2048);
  EXPECT_EQ(matmul->inputs(1).region(), cmd::REGION_COEFF);
  EXPECT_EQ(matmul->outputs(0).cols(), 1024);
}

} // namespace
