//===- ChipBackendTest.cpp - a chip plugin as the driver sees it ----------===//

#include "backends/common/lowering/test/ChipBackendTest.h"

#include "backends/common/codegen/Codegen.h"
#include "backends/common/compile/PieceCompiler.h"
#include "backends/common/quant/CalibrationTable.h"
#include "dialects/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include "gmock/gmock.h"

using ::testing::HasSubstr;

namespace llmc::test {

std::string makeLmHeadPiece(int64_t hidden, int64_t vocab) {
  return llvm::formatv(R"mlir(
func.func @lm_head(%arg0: tensor<1x{0}xf32>) -> tensor<1x{1}xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {{role = "hidden"} : (tensor<1x{0}xf32>) -> tensor<1x{0}xf32>
  %w = top.Weight "lm_head.weight" : () -> tensor<{1}x{0}xf32>
  %y = top.MatMul %x, %w, %none {{right_transpose = true} : (tensor<1x{0}xf32>, tensor<{1}x{0}xf32>, none) -> tensor<1x{1}xf32> loc("lm_head")
  return %y : tensor<1x{1}xf32>
}
)mlir",
                       hidden, vocab)
      .str();
}

ChipBackendTest::ChipBackendTest(void (*registerPlugin)(plugins::Registrar &),
                                 std::string chipId)
    : registerPlugin(registerPlugin), chipId(std::move(chipId)) {}

void ChipBackendTest::SetUp() {
  registerPlugin(registry);
  ASSERT_FALSE(static_cast<bool>(registry.takeRegistrationErrors()));
  mlir::DialectRegistry dialects;
  registerAllDialects(dialects);
  context.appendDialectRegistry(dialects);
  context.loadAllAvailableDialects();
}

const plugins::BackendPlugin &ChipBackendTest::backend() {
  return llvm::cantFail(registry.findBackend(chipId));
}

std::string ChipBackendTest::lower(llvm::StringRef piece,
                                   const lowering::LoweringOptions &options) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(piece, &context);
  EXPECT_TRUE(module);
  mlir::PassManager pm(&context);
  if (llvm::Error error = backend().buildLoweringPipeline(pm, options)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return "";
  }
  EXPECT_TRUE(mlir::succeeded(pm.run(*module)));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

void ChipBackendTest::expectLowersEveryModeItLists(llvm::StringRef piece) {
  for (const std::string &name : backend().getDescriptor().quantModes) {
    lowering::LoweringOptions options;
    options.mode = llvm::cantFail(lowering::parseQuantMode(name));
    bool int8 = lowering::quantizesActivations(options.mode);
    if (int8) {
      auto table = std::make_shared<quant::CalibrationTable>();
      table->set("lm_head", {-1, 1, 1});
      options.calibration = table;
    }
    std::string ir = lower(piece, options);
    EXPECT_THAT(ir, ::testing::Not(HasSubstr("top.MatMul"))) << name;
    if (int8)
      EXPECT_THAT(ir, HasSubstr("tpu.A8MatMul")) << name;
    else if (lowering::getWeightBits(options.mode))
      EXPECT_THAT(ir, HasSubstr("tpu.A16MatMul")) << name;
    else
      EXPECT_THAT(ir, HasSubstr("tpu.MatMul")) << name;
  }
}

cmd::CommandStream
ChipBackendTest::compile(llvm::StringRef piece,
                         const lowering::LoweringOptions &options) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(piece, &context);
  EXPECT_TRUE(module);
  if (llvm::Error error = compile::lowerAndPlace(*module, backend(), options)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return {};
  }
  codegen::WeightOffsets offsets;
  uint64_t end = 0;
  for (const compile::WeightUse &use : compile::collectWeights(*module)) {
    offsets[use.name] = end;
    end = llvm::alignTo(end + use.type.getNumElements() * 4, 64);
  }
  llvm::Expected<cmd::CommandStream> stream = codegen::generateCommandStream(
      compile::getPieceFunction(*module), backend().getDescriptor(), offsets);
  if (!stream) {
    ADD_FAILURE() << llvm::toString(stream.takeError());
    return {};
  }
  return *stream;
}

void ChipBackendTest::expectFitsTheChip(const cmd::CommandStream &stream) {
  const plugins::ChipDescriptor &chip = backend().getDescriptor();
  uint32_t widest = 0;
  auto check = [&](const cmd::LocalTensor &tensor) {
    if (tensor.rows() == 0)
      return;
    widest = std::max(widest, tensor.lane_count());
    EXPECT_LE(tensor.lane_begin() + tensor.lane_count(), chip.npuLanes);
    EXPECT_LT(tensor.address(), uint64_t(chip.localMemoryBytesPerLane));
    EXPECT_EQ(tensor.address() % chip.euBytesPerLane, 0u);
  };
  auto checkQueue = [&](const auto &queue) {
    for (const cmd::Command &command : queue) {
      if (command.has_dma())
        check(command.dma().local());
      for (const cmd::LocalTensor &tensor : command.compute().inputs())
        check(tensor);
      for (const cmd::LocalTensor &tensor : command.compute().outputs())
        check(tensor);
    }
  };
  checkQueue(stream.dma_queue());
  checkQueue(stream.compute_queue());
  for (const cmd::Section &section : stream.sections())
    for (const cmd::CoreCommands &core : section.cores()) {
      checkQueue(core.dma_queue());
      checkQueue(core.compute_queue());
    }
  EXPECT_EQ(widest, uint32_t(chip.npuLanes));
}

} // namespace llmc::test
