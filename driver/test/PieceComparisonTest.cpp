//===- PieceComparisonTest.cpp - per-op bisection of a compiled piece -----===//
//
// A correct lowering compares within tolerance op by op; a deliberately
// broken one is found at the op it breaks, not before; INT8's unfused
// reference MLP is matched with the device's fused one.
//
//===----------------------------------------------------------------------===//

#include "driver/PieceComparison.h"

#include "backends/common/lowering/Int8Reference.h"
#include "backends/common/lowering/LoweringSupport.h"
#include "backends/common/quant/CalibrationStats.h"
#include "backends/common/quant/DerivedWeightSource.h"
#include "dialects/Registration.h"
#include "dialects/top/Interpreter/Interpreter.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "driver/PieceInputs.h"
#include "frontends/llm/GraphBuilder.h"
#include "frontends/llm/ModelLoading.h"
#include "plugins/Registry.h"
#include "tests/TestData.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

namespace llmc::plugins {
void register_hf(Registrar &registrar);
void register_bm1684x(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using namespace mlir;

namespace {

class PieceComparisonTest : public ::testing::Test {
protected:
  void SetUp() override {
    plugins::register_hf(registry);
    plugins::register_bm1684x(registry);
    ASSERT_FALSE(static_cast<bool>(registry.takeRegistrationErrors()));
    DialectRegistry dialects;
    registerAllDialects(dialects);
    context.appendDialectRegistry(dialects);
    context.loadAllAvailableDialects();
    build.seqLength = 64;
    build.maxInputLength = 16;
    llvm::Expected<LoadedModel> loaded = loadModel(
        registry, test::getRefdataPath("models/tiny-qwen2"), build);
    ASSERT_TRUE(static_cast<bool>(loaded)) << toString(loaded.takeError());
    model = std::make_unique<LoadedModel>(std::move(*loaded));
    weights = std::make_unique<llmc::quant::DerivedWeightSource>(*model->weights);
  }

  driver::PieceComparison compare(llvm::StringRef pieceName,
                                  const lowering::LoweringOptions &options,
                                  std::function<void(ModuleOp)> breakIt = {}) {
    llvm::Expected<llm::GraphBuilder> builder =
        llm::GraphBuilder::create(context, model->spec, build);
    EXPECT_TRUE(static_cast<bool>(builder)) << toString(builder.takeError());
    llvm::Expected<llm::Piece> piece = builder->build(pieceName);
    EXPECT_TRUE(static_cast<bool>(piece)) << toString(piece.takeError());
    auto function = *piece->module->getOps<func::FuncOp>().begin();
    std::vector<top::Tensor> inputs = driver::makePieceInputs(
        function, build.seqLength, build.maxInputLength,
        model->spec.vocabSize);
    driver::ComparisonOptions comparisonOptions;
    comparisonOptions.afterLowering = std::move(breakIt);
    llvm::Expected<driver::PieceComparison> comparison = driver::comparePiece(
        *piece->module, llvm::cantFail(registry.findBackend("bm1684x")),
        *weights, options, inputs, comparisonOptions);
    EXPECT_TRUE(static_cast<bool>(comparison))
        << toString(comparison.takeError());
    return comparison ? std::move(*comparison) : driver::PieceComparison();
  }

  static lowering::LoweringOptions mode(llvm::StringRef name) {
    lowering::LoweringOptions options;
    options.mode = llvm::cantFail(lowering::parseQuantMode(name));
    return options;
  }

  static const driver::OpComparison *
  find(const driver::PieceComparison &comparison, llvm::StringRef name) {
    for (const driver::OpComparison &op : comparison.ops)
      if (op.name == name)
        return &op;
    return nullptr;
  }

  plugins::Registry registry;
  MLIRContext context;
  llm::BuildOptions build;
  std::unique_ptr<LoadedModel> model;
  std::unique_ptr<llmc::quant::DerivedWeightSource> weights;
};

TEST_F(PieceComparisonTest, CorrectLoweringIsWithinToleranceOpByOp) {
  driver::PieceComparison comparison =
      compare("block.0.prefill", mode("BF16"));
  EXPECT_FALSE(comparison.firstPastTolerance.has_value());
  ASSERT_FALSE(comparison.ops.empty());
  EXPECT_EQ(comparison.ops.front().name, "model.layers.0.input_layernorm");
  EXPECT_EQ(comparison.ops.back().name, "layers.0.mlp_residual");
  int compared = 0;
  double largestError = 0;
  for (const driver::OpComparison &op : comparison.ops) {
    if (!op.device)
      continue;
    ++compared;
    EXPECT_GE(op.cosine, comparison.minCosine) << op.name;
    largestError = std::max(largestError, op.maxError);
  }
  // Norms, projections, heads, rope tables and ropes, attention, residual
  // adds: all but the two outputs fused into their residual adds.
  EXPECT_EQ(compared, static_cast<int>(comparison.ops.size()) - 2);
  // The device computes in bf16: its values are its own, not copies.
  EXPECT_GT(largestError, 1e-3);
  const driver::OpComparison *oProj =
      find(comparison, "model.layers.0.self_attn.o_proj");
  ASSERT_NE(oProj, nullptr);
  EXPECT_FALSE(oProj->device.has_value());
  EXPECT_EQ(oProj->deviceOp, "tpu.MatMul");
  EXPECT_NE(oProj->note.find("fused into 'layers.0.attention_residual'"),
            std::string::npos)
      << oProj->note;
}

TEST_F(PieceComparisonTest, FindsTheOpABrokenLoweringMiscomputes) {
  // The key rope reads its sine table as the cosine table and back.
  driver::PieceComparison comparison =
      compare("block.0.prefill", mode("BF16"), [](ModuleOp module) {
        module.walk([](tpu::RopeOp rope) {
          if (lowering::getLocationName(rope) != "layers.0.k_rope")
            return;
          Value cos = rope->getOperand(1), sin = rope->getOperand(2);
          rope->setOperand(1, sin);
          rope->setOperand(2, cos);
        });
      });
  ASSERT_TRUE(comparison.firstPastTolerance.has_value());
  size_t first = *comparison.firstPastTolerance;
  EXPECT_EQ(comparison.ops[first].name, "layers.0.k_rope");
  EXPECT_EQ(comparison.ops[first].deviceOp, "tpu.Rope");
  EXPECT_LT(comparison.ops[first].cosine, 0.9);
  for (size_t i = 0; i < first; ++i)
    EXPECT_FALSE(comparison.ops[i].pastTolerance) << comparison.ops[i].name;
  const driver::OpComparison *attention =
      find(comparison, "layers.0.attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_TRUE(attention->pastTolerance);
  // The query rope, computed beside it, is untouched.
  EXPECT_FALSE(find(comparison, "layers.0.q_rope")->pastTolerance);
}

TEST_F(PieceComparisonTest, Int8MatchesTheUnfusedReferenceMlp) {
  lowering::LoweringOptions options = mode("INT8");
  // Min-max ranges of the quantized inputs on the inputs compared.
  auto table = std::make_shared<llmc::quant::CalibrationTable>();
  {
    llvm::Expected<llm::GraphBuilder> builder =
        llm::GraphBuilder::create(context, model->spec, build);
    ASSERT_TRUE(static_cast<bool>(builder));
    llvm::Expected<llm::Piece> piece = builder->build("block.0.prefill");
    ASSERT_TRUE(static_cast<bool>(piece));
    ASSERT_FALSE(static_cast<bool>(lowering::decomposeMLPs(*piece->module)));
    llvm::StringMap<llmc::quant::ActivationStatistics> stats;
    top::InterpreterOptions observe;
    observe.observeOperands = [&](Operation &op,
                                  llvm::ArrayRef<const top::Tensor *> args) {
      std::string name = lowering::getQuantizedInputName(&op);
      if (!name.empty())
        stats[name].observeRange(args[0]->getF32());
    };
    auto function = *piece->module->getOps<func::FuncOp>().begin();
    top::Interpreter interpreter(*model->weights, observe);
    ASSERT_FALSE(static_cast<bool>(
        interpreter
            .run(function, driver::makePieceInputs(function, build.seqLength,
                                                   build.maxInputLength,
                                                   model->spec.vocabSize))
            .takeError()));
    for (auto &[name, statistics] : stats)
      table->set(name, statistics.getRange(
                           llmc::quant::CalibrationMethod::MinMax, 0));
  }
  options.calibration = table;
  driver::PieceComparison comparison = compare("block.0.prefill", options);
  EXPECT_FALSE(comparison.firstPastTolerance.has_value());
  const driver::OpComparison *mlp = find(comparison, "layers.0.mlp");
  ASSERT_NE(mlp, nullptr);
  EXPECT_EQ(mlp->deviceOp, "tpu.A8MLP");
  EXPECT_EQ(mlp->referenceOp, "top.MatMul");
  ASSERT_TRUE(mlp->device.has_value());
  EXPECT_GE(mlp->cosine, comparison.minCosine);
  const driver::OpComparison *down =
      find(comparison, "model.layers.0.mlp.down_proj");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->note, "on the device, part of 'layers.0.mlp'");
}

} // namespace
