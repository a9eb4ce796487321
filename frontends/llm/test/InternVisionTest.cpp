//===- InternVisionTest.cpp - InternViT embeddings against the reference --===//
//
// tiny-internvl's vision piece, as the graph builder builds it from the
// checkpoint's config, on the top interpreter, fed the reference
// pixel values of each image, against the embeddings an independent float64
// implementation of the official code computed (../shared/refdata/vlm).
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/GraphBuilder.h"

#include "dialects/Registration.h"
#include "dialects/top/Interpreter/Interpreter.h"
#include "dialects/top/Interpreter/NpyFile.h"
#include "frontends/hf/HfConfig.h"
#include "frontends/hf/Safetensors.h"
#include "tests/TestData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

#include <cmath>
#include <utility>

namespace llmc::llm {
namespace {

class InternVisionTest : public ::testing::TestWithParam<const char *> {};

TEST_P(InternVisionTest, EmbeddingsMatchTheReference) {
  std::string refs =
      test::getRefdataPath("vlm/refs") + "/tiny-internvl." + GetParam();
  absl::StatusOr<top::Tensor> pixels =
      top::readNpyFile(refs + ".pixel_values.npy");
  absl::StatusOr<top::Tensor> expected =
      top::readNpyFile(refs + ".vision_embeds.npy");
  ASSERT_TRUE(pixels.ok() && expected.ok())
      << pixels.status().message() << expected.status().message();
  auto weights = hf::SafetensorsSource::openFile(
      test::getRefdataPath("vlm/models/tiny-internvl") + "/model.safetensors");
  ASSERT_TRUE(static_cast<bool>(weights)) << toString(weights.takeError());

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::Expected<plugins::ModelSpec> spec =
      hf::readModelSpec(test::getRefdataPath("vlm/models/tiny-internvl"));
  ASSERT_TRUE(static_cast<bool>(spec)) << toString(spec.takeError());
  llvm::Expected<GraphBuilder> builder =
      GraphBuilder::create(context, *spec, BuildOptions());
  ASSERT_TRUE(static_cast<bool>(builder)) << toString(builder.takeError());
  ASSERT_EQ(builder->getPieceNames().back(), "vision");
  llvm::Expected<Piece> piece = builder->build("vision");
  ASSERT_TRUE(static_cast<bool>(piece)) << toString(piece.takeError());
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*piece->module)));
  ASSERT_EQ(piece->inputs.size(), 1u);
  EXPECT_EQ(piece->inputs[0].role, IORole::PixelValues);
  ASSERT_EQ(piece->outputs.size(), 1u);
  EXPECT_EQ(piece->outputs[0].role, IORole::VisionEmbeds);
  auto function = llvm::cast<mlir::func::FuncOp>(piece->getFunction());

  top::InterpreterOptions options;
  options.threads = 1;
  top::Interpreter interpreter(**weights, options);
  float largest = 0;
  for (int64_t tile = 0; tile < pixels->getShape()[0]; ++tile) {
    llvm::Expected<std::vector<top::Tensor>> outputs =
        interpreter.run(function, {pixels->getOuterSlice(tile)});
    ASSERT_TRUE(static_cast<bool>(outputs)) << toString(outputs.takeError());
    top::Tensor want = expected->getOuterSlice(tile);
    ASSERT_EQ((*outputs)[0].getShape(), want.getShape());
    llvm::ArrayRef<float> ours = std::as_const((*outputs)[0]).getF32();
    llvm::ArrayRef<float> theirs = std::as_const(want).getF32();
    for (size_t i = 0; i < ours.size(); ++i)
      largest = std::max(largest, std::fabs(ours[i] - theirs[i]));
  }
  // The contract F32 pieces keep against the references (1e-4); measured
  // 2e-6 on every image.
  EXPECT_LE(largest, 1e-4f) << GetParam();
  RecordProperty("largest_difference", std::to_string(largest));
}

INSTANTIATE_TEST_SUITE_P(Images, InternVisionTest,
                         ::testing::Values("chelsea", "synth_wide",
                                           "synth_tall", "synth_square"));

} // namespace
} // namespace llmc::llm
