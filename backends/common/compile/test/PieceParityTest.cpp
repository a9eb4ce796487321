//===- PieceParityTest.cpp - compiled pieces against the top interpreter --===//
//
// The conformance suite of the chip plugins: compiles pieces of the refdata
// models for every chip (bm1684x, bm1688, cv186x, host) in every mode it
// lists, runs their command streams on its device (a cmodel, or the host
// CPU natively) and compares every output with
// the top interpreter running the same piece on the weights the binary
// holds (quantized weights dequantized, float weights rounded), computing
// in f32, within the tolerance the lowering declares for the mode
// (lowering/Tolerance.h); tokens equal.
// sample_head computes in f32 in every mode. INT8 is calibrated (minmax) on
// the test's own inputs, and its reference rounds every quantized
// activation to its 8-bit grid (lowering/Int8Reference.h).
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/StreamDevice.h"
#include "backends/common/compile/DeviceRun.h"
#include "backends/common/codegen/GlobalViews.h"
#include "backends/common/compile/PieceCompiler.h"
#include "backends/common/compile/WeightPacking.h"
#include "backends/common/lowering/Int8Reference.h"
#include "backends/common/lowering/LoweredWeights.h"
#include "backends/common/lowering/Tolerance.h"
#include "backends/common/quant/CalibrationStats.h"
#include "backends/common/quant/DerivedWeightSource.h"
#include "dialects/Registration.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "dialects/tpu/IR/TpuTraits.h"
#include "dialects/top/Interpreter/Interpreter.h"
#include "driver/PieceInputs.h"
#include "driver/QuantizedTables.h"
#include "frontends/llm/ModelLoading.h"
#include "plugins/Registry.h"
#include "tests/TestData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace llmc::plugins {
void register_gguf(Registrar &registrar);
void register_hf(Registrar &registrar);
void register_bm1684x(Registrar &registrar);
void register_bm1688(Registrar &registrar);
void register_cv186x(Registrar &registrar);
void register_host(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using namespace mlir;

namespace {

struct Case {
  std::string chip;
  /// A refdata model, or "" for the checkpoint LLMC_PARITY_CHECKPOINT
  /// names (a larger random one: several tiles per op, key chunks).
  std::string model;
  std::string mode;
  int64_t seqLength = 64;
  int64_t maxInputLength = 16;
  /// Asymmetric weights, or for INT8 activations.
  bool asymmetric = false;
};

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string name = info.param.chip + "_" +
                     (info.param.model.empty() ? std::string("generated")
                                                : info.param.model) +
                     "_" + info.param.mode +
                     (info.param.asymmetric ? "_asym" : "");
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

class PieceParityTest : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    plugins::register_hf(registry);
    plugins::register_gguf(registry);
    plugins::register_bm1684x(registry);
    plugins::register_bm1688(registry);
    plugins::register_cv186x(registry);
    plugins::register_host(registry);
    ASSERT_FALSE(static_cast<bool>(registry.takeRegistrationErrors()));
    DialectRegistry dialects;
    registerAllDialects(dialects);
    context.appendDialectRegistry(dialects);
    context.loadAllAvailableDialects();
    buildOptions.seqLength = GetParam().seqLength;
    buildOptions.maxInputLength = GetParam().maxInputLength;
  }

  std::vector<top::Tensor> makeInputs(func::FuncOp function, int64_t vocab) {
    return driver::makePieceInputs(function, buildOptions.seqLength,
                                   buildOptions.maxInputLength, vocab);
  }

  void checkPiece(const Case &param, const llm::GraphBuilder &builder,
                  const plugins::WeightSource &weights,
                  const lowering::LoweringOptions &options,
                  llvm::StringRef pieceName, int64_t vocab) {
    SCOPED_TRACE(pieceName.str());
    llvm::Expected<llm::Piece> piece = builder.build(pieceName);
    ASSERT_TRUE(static_cast<bool>(piece)) << toString(piece.takeError());
    llvm::Expected<std::vector<std::string>> linearTables =
        driver::getHeadLinearWeights(builder);
    ASSERT_TRUE(static_cast<bool>(linearTables))
        << toString(linearTables.takeError());
    driver::markQuantizedTables(*piece->module, *linearTables);
    OwningOpRef<ModuleOp> reference = piece->module->clone();
    llvm::Error retargeted =
        lowering::quantizesActivations(options.mode)
            ? lowering::buildInt8Reference(*reference, options)
            : lowering::retargetToLoweredWeights(*reference, options);
    ASSERT_FALSE(static_cast<bool>(retargeted))
        << toString(std::move(retargeted));
    ModuleOp module = *piece->module;
    llvm::Error lowered = compile::lowerAndPlace(
        module, llvm::cantFail(registry.findBackend(param.chip)), options);
    ASSERT_FALSE(static_cast<bool>(lowered)) << toString(std::move(lowered));

    codegen::WeightOffsets offsets;
    llvm::Expected<std::vector<uint8_t>> coeff =
        compile::packCoeff(module, weights, offsets);
    ASSERT_TRUE(static_cast<bool>(coeff)) << toString(coeff.takeError());
    func::FuncOp function = compile::getPieceFunction(module);
    const plugins::BackendPlugin &backend =
        llvm::cantFail(registry.findBackend(param.chip));
    cmd::CommandStream stream;
    llvm::Error generated = backend.generateStream(function, offsets, stream);
    ASSERT_FALSE(static_cast<bool>(generated))
        << toString(std::move(generated));

    std::vector<top::Tensor> inputs =
        makeInputs(compile::getPieceFunction(*reference), vocab);
    std::unique_ptr<cmodel::StreamDevice> device = backend.createDevice({});
    ASSERT_TRUE(device) << param.chip << " has no device";
    llvm::Expected<std::vector<std::vector<uint8_t>>> outputs =
        compile::runOnDevice(*device, function, stream, *coeff, inputs);
    ASSERT_TRUE(static_cast<bool>(outputs)) << toString(outputs.takeError());

    top::Interpreter interpreter(weights);
    llvm::Expected<std::vector<top::Tensor>> expected =
        interpreter.run(compile::getPieceFunction(*reference), inputs);
    ASSERT_TRUE(static_cast<bool>(expected)) << toString(expected.takeError());
    for (auto [index, want] : llvm::enumerate(*expected)) {
      Type type = function.getResultTypes()[index];
      const std::vector<uint8_t> &got = (*outputs)[index];
      if (want.isI32()) {
        std::vector<int32_t> ids(want.getNumElements());
        std::memcpy(ids.data(), got.data(), got.size());
        EXPECT_EQ(ids, std::vector<int32_t>(want.getI32().begin(),
                                            want.getI32().end()))
            << "output #" << index;
        continue;
      }
      std::vector<float> values = compile::decode(got, type);
      double similarity = compile::cosine(values, want.getF32());
      EXPECT_GE(similarity, lowering::getMinPieceCosine(options.mode))
          << "output #" << index;
    }
  }

  /// INT8's calibration: minmax ranges of the quantized activations of
  /// `pieces` on the inputs checkPiece gives them.
  quant::CalibrationTable calibrate(const llm::GraphBuilder &builder,
                                    const plugins::WeightSource &weights,
                                    llvm::ArrayRef<llvm::StringRef> pieces,
                                    int64_t vocab) {
    llvm::StringMap<quant::ActivationStatistics> stats;
    quant::CalibrationTable table;
    top::InterpreterOptions options;
    options.observeOperands = [&](Operation &op,
                                  llvm::ArrayRef<const top::Tensor *> args) {
      std::string name = lowering::getQuantizedInputName(&op);
      if (!name.empty())
        stats[name].observeRange(args[0]->getF32());
    };
    top::Interpreter interpreter(weights, options);
    for (llvm::StringRef name : pieces) {
      llvm::Expected<llm::Piece> piece = builder.build(name);
      EXPECT_TRUE(static_cast<bool>(piece)) << toString(piece.takeError());
      if (!piece)
        continue;
      EXPECT_FALSE(static_cast<bool>(lowering::decomposeMLPs(*piece->module)));
      func::FuncOp function = compile::getPieceFunction(*piece->module);
      llvm::Expected<std::vector<top::Tensor>> outputs =
          interpreter.run(function, makeInputs(function, vocab));
      EXPECT_TRUE(static_cast<bool>(outputs)) << toString(outputs.takeError());
    }
    for (auto &[name, tensor] : stats)
      table.set(name, tensor.getRange(quant::CalibrationMethod::MinMax, 0));
    return table;
  }

  plugins::Registry registry;
  MLIRContext context;
  llm::BuildOptions buildOptions;
};

TEST_P(PieceParityTest, PiecesMatchInterpreter) {
  const Case &param = GetParam();
  std::string path;
  if (param.model.empty()) {
    const char *generated = std::getenv("LLMC_PARITY_CHECKPOINT");
    if (!generated)
      GTEST_SKIP() << "LLMC_PARITY_CHECKPOINT names no checkpoint";
    path = generated;
  } else {
    path = test::getRefdataPath("models/" + param.model);
  }
  llvm::Expected<LoadedModel> model =
      loadModel(registry, path, buildOptions);
  ASSERT_TRUE(static_cast<bool>(model)) << toString(model.takeError());
  quant::DerivedWeightSource weights(*model->weights);
  lowering::LoweringOptions options;
  options.mode = llvm::cantFail(lowering::parseQuantMode(param.mode));
  options.asymmetric = param.asymmetric;
  llvm::Expected<llm::GraphBuilder> builder =
      llm::GraphBuilder::create(context, model->spec, buildOptions);
  ASSERT_TRUE(static_cast<bool>(builder)) << toString(builder.takeError());
  llvm::StringRef pieces[] = {"embed.prefill",      "embed.decode",
                              "block.0.prefill",    "block.0.prefill_kv",
                              "block.0.decode",     "lm_head",
                              "greedy_head"};
  if (lowering::quantizesActivations(options.mode))
    options.calibration = std::make_shared<quant::CalibrationTable>(
        calibrate(*builder, *model->weights, pieces, model->spec.vocabSize));
  for (llvm::StringRef piece : pieces)
    checkPiece(param, *builder, weights, options, piece,
               model->spec.vocabSize);
}

/// Every refdata model in every mode `chip` lists (INT8 symmetric and
/// asymmetric), and GGUF files whose weights compile as stored.
std::vector<Case> allCases(void (*registerChip)(plugins::Registrar &)) {
  plugins::Registry registry;
  registerChip(registry);
  const plugins::ChipDescriptor &chip =
      registry.getBackends().front()->getDescriptor();
  auto lists = [&](llvm::StringRef mode) {
    return llvm::is_contained(chip.quantModes, mode);
  };
  std::vector<Case> cases;
  for (const char *model : {"tiny-qwen2", "tiny-llama", "tiny-qwen3"})
    for (const std::string &mode : chip.quantModes) {
      cases.push_back({chip.id, model, mode});
      if (lowering::quantizesActivations(
              llvm::cantFail(lowering::parseQuantMode(mode))))
        cases.push_back({chip.id, model, mode, 64, 16, /*asymmetric=*/true});
    }
  for (auto [file, mode] : {std::pair{"tiny-llama/model-q8_0.gguf", "W8F16"},
                            {"tiny-qwen3/model-q4_0.gguf", "W4BF16"},
                            {"tiny-qwen2/model-q4_0.gguf", "W8BF16"}})
    if (lists(mode))
      cases.push_back({chip.id, file, mode});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Bm1684x, PieceParityTest,
                         ::testing::ValuesIn(allCases(
                             plugins::register_bm1684x)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Bm1688, PieceParityTest,
                         ::testing::ValuesIn(allCases(
                             plugins::register_bm1688)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Cv186x, PieceParityTest,
                         ::testing::ValuesIn(allCases(
                             plugins::register_cv186x)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Host, PieceParityTest,
                         ::testing::ValuesIn(allCases(plugins::register_host)),
                         caseName);

// The Qwen2.5-0.5B shape with one layer and a 32000 vocabulary, S = 512,
// L = 128: projections in several channel and row tiles, f32 attention in
// key chunks, a 32000-way arg-max.
INSTANTIATE_TEST_SUITE_P(
    Bm1684xGenerated, PieceParityTest,
    ::testing::Values(Case{"bm1684x", "", "F32", 512, 128},
                      Case{"bm1684x", "", "BF16", 512, 128},
                      Case{"bm1684x", "", "W4BF16", 512, 128}),
    caseName);

} // namespace
