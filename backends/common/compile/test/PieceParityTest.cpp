//===- PieceParityTest.cpp - compiled pieces against the top interpreter --===//
//
// The conformance suite of the chip plugins: compiles pieces of the refdata
// models for every chip (bm1684x, bm1688, cv186x) in every mode it lists,
// runs their command streams on its cmodel and compares every output with
// the top interpreter running the same piece on the weights the binary
// holds (quantized weights dequantized, float weights rounded), computing
// in f32, within the tolerance the lowering declares for the mode
// (lowering/Tolerance.h); tokens equal.
// sample_head computes in f32 in every mode. INT8 is calibrated (minmax) on
// the test's own inputs, and its reference rounds every quantized
// activation to its 8-bit grid (lowering/Int8Reference.h).
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/CModel.h"
#include "backends/common/codegen/Codegen.h"
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
#include "plugins/Float16.h"
#include "dialects/top/Interpreter/Interpreter.h"
#include "frontends/llm/Masks.h"
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
#include <random>

namespace llmc::plugins {
void register_gguf(Registrar &registrar);
void register_hf(Registrar &registrar);
void register_bm1684x(Registrar &registrar);
void register_bm1688(Registrar &registrar);
void register_cv186x(Registrar &registrar);
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

double cosine(llvm::ArrayRef<float> a, llvm::ArrayRef<float> b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  if (na == 0 && nb == 0)
    return 1;
  return dot / std::sqrt(na * nb);
}

/// `tensor`'s values as a piece input of `type` (f32, f16, bf16 or i32).
std::vector<uint8_t> encode(const top::Tensor &tensor, Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  const auto *raw = reinterpret_cast<const uint8_t *>(tensor.getRawData());
  if (!element.isF16() && !element.isBF16())
    return std::vector<uint8_t>(raw, raw + tensor.getNumElements() * 4);
  std::vector<uint8_t> bytes(tensor.getNumElements() * 2);
  auto *out = reinterpret_cast<uint16_t *>(bytes.data());
  for (auto [i, value] : llvm::enumerate(tensor.getF32()))
    out[i] = element.isF16() ? floatToHalf(value) : floatToBFloat16(value);
  return bytes;
}

/// A float piece output of `type` widened to f32.
std::vector<float> decode(llvm::ArrayRef<uint8_t> bytes, Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  int64_t count = cast<ShapedType>(type).getNumElements();
  std::vector<float> values(count);
  if (element.isF32()) {
    std::memcpy(values.data(), bytes.data(), count * 4);
    return values;
  }
  const auto *in = reinterpret_cast<const uint16_t *>(bytes.data());
  for (int64_t i = 0; i < count; ++i)
    values[i] = element.isF16() ? halfToFloat(in[i]) : bfloat16ToFloat(in[i]);
  return values;
}

class PieceParityTest : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    plugins::register_hf(registry);
    plugins::register_gguf(registry);
    plugins::register_bm1684x(registry);
    plugins::register_bm1688(registry);
    plugins::register_cv186x(registry);
    ASSERT_FALSE(static_cast<bool>(registry.takeRegistrationErrors()));
    DialectRegistry dialects;
    registerAllDialects(dialects);
    context.appendDialectRegistry(dialects);
    context.loadAllAvailableDialects();
    buildOptions.seqLength = GetParam().seqLength;
    buildOptions.maxInputLength = GetParam().maxInputLength;
  }

  /// Inputs for `function` by role: plausible ids, positions, masks and
  /// sampling parameters; recent ids include empty slots (-1) and repeats.
  std::vector<top::Tensor> makeInputs(func::FuncOp function, int64_t vocab) {
    std::mt19937 random(7);
    std::normal_distribution<float> normal;
    std::vector<top::Tensor> inputs;
    int64_t s = buildOptions.seqLength, l = buildOptions.maxInputLength;
    function.walk([&](top::InputOp input) {
      auto type = cast<RankedTensorType>(input.getType());
      llvm::SmallVector<int64_t> shape(type.getShape());
      int64_t count = type.getNumElements();
      llvm::StringRef role = input.getRole().value_or("");
      bool decode = function.getName().ends_with("decode");
      bool prefillKV = function.getName().ends_with("prefill_kv");
      if (type.getElementType().isInteger(32)) {
        std::vector<int32_t> values(count);
        for (int64_t i = 0; i < count; ++i) {
          if (role == "position_ids")
            values[i] = decode ? s / 2 : (prefillKV ? s - l : 0) + i;
          else if (role == "top_k")
            values[i] = 20;
          else if (role == "recent_ids" && i % 5 == 4)
            values[i] = i % 2 ? -1 : values[i - 1];
          else
            values[i] = static_cast<int32_t>(random() % vocab);
        }
        inputs.push_back(top::Tensor::fromI32(shape, std::move(values)));
        return;
      }
      std::vector<float> values(count);
      // Sampling parameters: penalty, temperature and top_p.
      static const llvm::StringMap<float> scalars = {
          {"penalty", 1.3f}, {"temperature", 0.8f}, {"top_p", 0.9f}};
      if (auto it = scalars.find(role); it != scalars.end())
        values.assign(count, it->second);
      else if (role == "mask")
        values = decode      ? llm::buildDecodeMask(s, s / 2)
                 : prefillKV ? llm::buildPrefillKVMask(l, s - l, (s - l) / 2)
                             : llm::buildPrefillMask(l);
      else
        for (float &value : values)
          value = normal(random) * (role == "logits" ? 3.0f : 1.0f);
      inputs.push_back(top::Tensor::fromF32(shape, std::move(values)));
    });
    return inputs;
  }

  void checkPiece(const Case &param, const llm::GraphBuilder &builder,
                  const plugins::WeightSource &weights,
                  const lowering::LoweringOptions &options,
                  llvm::StringRef pieceName, int64_t vocab) {
    SCOPED_TRACE(pieceName.str());
    llvm::Expected<llm::Piece> piece = builder.build(pieceName);
    ASSERT_TRUE(static_cast<bool>(piece)) << toString(piece.takeError());
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

    // The coeff region: every weight the piece reads, 64-byte aligned.
    std::vector<uint8_t> coeff;
    codegen::WeightOffsets offsets;
    for (const compile::WeightUse &use : compile::collectWeights(module)) {
      llvm::Expected<std::vector<uint8_t>> bytes =
          use.constant.empty()
              ? compile::packWeight(weights, use.name, use.type)
              : llvm::Expected<std::vector<uint8_t>>(use.constant);
      ASSERT_TRUE(static_cast<bool>(bytes)) << toString(bytes.takeError());
      offsets[use.name] = coeff.size();
      coeff.insert(coeff.end(), bytes->begin(), bytes->end());
      coeff.resize(llvm::alignTo(coeff.size(), 64));
    }
    func::FuncOp function = compile::getPieceFunction(module);
    const plugins::ChipDescriptor &chip =
        llvm::cantFail(registry.findBackend(param.chip)).getDescriptor();
    llvm::Expected<cmd::CommandStream> stream =
        codegen::generateCommandStream(function, chip, offsets);
    ASSERT_TRUE(static_cast<bool>(stream)) << toString(stream.takeError());

    std::vector<top::Tensor> inputs =
        makeInputs(compile::getPieceFunction(*reference), vocab);
    cmodel::CModel device(chip);
    device.global().attachReadOnly(cmd::REGION_COEFF, coeff);
    device.global().allocate(
        cmd::REGION_ACTIVATION,
        std::max<int64_t>(
            64, function->getAttrOfType<IntegerAttr>("tpu.activation_bytes")
                    .getInt()));
    device.global().allocate(
        cmd::REGION_IO,
        function->getAttrOfType<IntegerAttr>("tpu.io_bytes").getInt());
    for (auto [index, input] : llvm::enumerate(inputs)) {
      auto mem = cast<llmc::tpu::MemAttr>(function.getArgAttr(index, "tpu.addr"));
      std::vector<uint8_t> bytes =
          encode(input, function.getArgumentTypes()[index]);
      ASSERT_FALSE(static_cast<bool>(
          device.global().write(cmd::REGION_IO, mem.getOffset(), bytes)));
    }
    llvm::Expected<cmodel::RunStats> stats = device.run(*stream);
    ASSERT_TRUE(static_cast<bool>(stats)) << toString(stats.takeError());

    top::Interpreter interpreter(weights);
    llvm::Expected<std::vector<top::Tensor>> expected =
        interpreter.run(compile::getPieceFunction(*reference), inputs);
    ASSERT_TRUE(static_cast<bool>(expected)) << toString(expected.takeError());
    for (auto [index, want] : llvm::enumerate(*expected)) {
      auto mem = cast<llmc::tpu::MemAttr>(function.getResultAttr(index, "tpu.addr"));
      Type type = function.getResultTypes()[index];
      llvm::Expected<llvm::ArrayRef<uint8_t>> got = device.global().read(
          cmd::REGION_IO, mem.getOffset(),
          *llmc::tpu::getTensorBytes(type));
      ASSERT_TRUE(static_cast<bool>(got)) << toString(got.takeError());
      if (want.isI32()) {
        std::vector<int32_t> ids(want.getNumElements());
        std::memcpy(ids.data(), got->data(), got->size());
        EXPECT_EQ(ids, std::vector<int32_t>(want.getI32().begin(),
                                            want.getI32().end()))
            << "output #" << index;
        continue;
      }
      std::vector<float> values = decode(*got, type);
      double similarity = cosine(values, want.getF32());
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
