//===- CoreSplitTest.cpp - pieces split across cores, bit for bit ---------===//
//
// Compiles one placed tpu piece twice for a two-core chip, once on one core
// and once with tpu-core-split's annotations, runs both streams on the
// cmodel and expects the same output bits: every output element is computed
// the same way, whichever core computes it. The split stream loads each
// weight byte once, spread over the cores.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/DType.h"
#include "backends/common/codegen/Codegen.h"
#include "dialects/Registration.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "dialects/tpu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MathExtras.h"

#include "gtest/gtest.h"

#include <random>

using namespace llmc;
using namespace mlir;

namespace {

// A projection with bias and 8-bit weights (N = 96: 64 channels on core 0,
// 32 on core 1), a 4-bit gated MLP with zero points whose residual add is
// absorbed, a float projection and a float MLP.
const char *const kPiece = R"mlir(
func.func @piece(%arg0: tensor<1x4x64xf16>) -> (tensor<1x4x96xf16>, tensor<1x4x64xf16>, tensor<1x4x64xf16>, tensor<1x4x64xf16>) {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
  %q = top.Weight "proj.q" : () -> tensor<96x64x!quant.any<i8:f16>>
  %qs = top.Weight "proj.s" : () -> tensor<96x1xf16>
  %qb = top.Weight "proj.b" : () -> tensor<96xf16>
  %h = tpu.A16MatMul %x, %q, %qs, %none, %qb {weight_bits = 8} : (tensor<1x4x64xf16>, tensor<96x64x!quant.any<i8:f16>>, tensor<96x1xf16>, none, tensor<96xf16>) -> tensor<1x4x96xf16>
  %g = top.Weight "mlp.g" : () -> tensor<160x64x!quant.any<u4:f16>>
  %gs = top.Weight "mlp.gs" : () -> tensor<160x2xf16>
  %gz = top.Weight "mlp.gz" : () -> tensor<160x2xui4>
  %u = top.Weight "mlp.u" : () -> tensor<160x64x!quant.any<u4:f16>>
  %us = top.Weight "mlp.us" : () -> tensor<160x2xf16>
  %uz = top.Weight "mlp.uz" : () -> tensor<160x2xui4>
  %d = top.Weight "mlp.d" : () -> tensor<64x160x!quant.any<u4:f16>>
  %ds = top.Weight "mlp.ds" : () -> tensor<64x5xf16>
  %dz = top.Weight "mlp.dz" : () -> tensor<64x5xui4>
  %m = tpu.A16MLP %x, %g, %u, %d, %gs, %us, %ds, %gz, %uz, %dz {weight_bits = 4, q_group_size = 32} : (tensor<1x4x64xf16>, tensor<160x64x!quant.any<u4:f16>>, tensor<160x64x!quant.any<u4:f16>>, tensor<64x160x!quant.any<u4:f16>>, tensor<160x2xf16>, tensor<160x2xf16>, tensor<64x5xf16>, tensor<160x2xui4>, tensor<160x2xui4>, tensor<64x5xui4>) -> tensor<1x4x64xf16>
  %r = tpu.Add %m, %x : (tensor<1x4x64xf16>, tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
  %w = top.Weight "out.w" : () -> tensor<64x96xf16>
  %o = tpu.MatMul %h, %w, %none {right_transpose = true} : (tensor<1x4x96xf16>, tensor<64x96xf16>, none) -> tensor<1x4x64xf16>
  %fg = top.Weight "fmlp.g" : () -> tensor<96x64xf16>
  %fu = top.Weight "fmlp.u" : () -> tensor<96x64xf16>
  %fd = top.Weight "fmlp.d" : () -> tensor<64x96xf16>
  %p = tpu.MLP %r, %fg, %fu, %fd : (tensor<1x4x64xf16>, tensor<96x64xf16>, tensor<96x64xf16>, tensor<64x96xf16>) -> tensor<1x4x64xf16>
  return %h, %r, %o, %p : tensor<1x4x96xf16>, tensor<1x4x64xf16>, tensor<1x4x64xf16>, tensor<1x4x64xf16>
}
)mlir";

/// The BM1688's shape: two cores of 32 lanes x 128 KiB, EU 16 B.
plugins::ChipDescriptor getTwoCoreChip() {
  plugins::ChipDescriptor chip;
  chip.id = "two_cores";
  chip.npuLanes = 32;
  chip.localMemoryBytesPerLane = 128 * 1024;
  chip.localMemoryBanks = 16;
  chip.euBytesPerLane = 16;
  chip.cores = 2;
  chip.clockMHz = 1000;
  chip.f16Tflops = 8;
  chip.bf16Tflops = 8;
  chip.f32Tflops = 1;
  chip.ddrBandwidthGBps = 24;
  chip.quantModes = {"F16"};
  return chip;
}

/// Random coeff bytes; float weights (f16: the scales and float matrices)
/// get values in [-0.5, 0.5), integer weights any bits.
struct Coeff {
  codegen::WeightOffsets offsets;
  std::vector<uint8_t> bytes;
};

Coeff makeCoeff(func::FuncOp function) {
  Coeff coeff;
  std::mt19937 random(7);
  function.walk([&](top::WeightOp weight) {
    auto type = cast<ShapedType>(weight.getType());
    Type element = type.getElementType();
    if (auto quantized = dyn_cast<mlir::quant::QuantizedType>(element))
      element = quantized.getStorageType();
    uint64_t bytes = llvm::divideCeil(
        type.getNumElements() * element.getIntOrFloatBitWidth(), 8);
    uint64_t offset = llvm::alignTo(coeff.bytes.size(), 64);
    coeff.offsets[weight.getName()] = offset;
    coeff.bytes.resize(offset + bytes);
    for (uint64_t i = offset; i < offset + bytes; ++i)
      coeff.bytes[i] = uint8_t(random());
    if (element.isF16()) {
      auto *halves = reinterpret_cast<uint16_t *>(&coeff.bytes[offset]);
      for (uint64_t i = 0; i < bytes / 2; ++i)
        // A float16 in [-0.5, 0.5): sign, exponent below 14, mantissa.
        halves[i] = uint16_t((random() & 0x8000) | ((random() % 14) << 10) |
                             (random() & 0x3ff));
    }
  });
  return coeff;
}

/// Coeff bytes the stream's loads read, over all sections and cores.
uint64_t getCoeffBytesLoaded(const cmd::CommandStream &stream) {
  uint64_t bytes = 0;
  auto count = [&](const auto &queue) {
    for (const cmd::Command &command : queue) {
      const cmd::GlobalTensor &global = command.dma().global();
      if (global.region() == cmd::REGION_COEFF)
        bytes += global.rows() *
                 cmodel::getDTypeBytes(global.dtype(), global.cols());
    }
  };
  count(stream.dma_queue());
  for (const cmd::Section &section : stream.sections())
    for (const cmd::CoreCommands &core : section.cores())
      count(core.dma_queue());
  return bytes;
}

class CoreSplitTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry dialects;
    registerAllDialects(dialects);
    context.appendDialectRegistry(dialects);
    context.loadAllAvailableDialects();
  }

  /// The piece placed for the chip, split across `cores`.
  OwningOpRef<ModuleOp> compile(int64_t cores) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kPiece, &context);
    EXPECT_TRUE(module);
    PassManager pm(&context);
    tpu::TpuCoreSplitPassOptions split;
    split.cores = cores;
    split.minWeightBytes = 0;
    pm.addNestedPass<func::FuncOp>(tpu::createTpuCoreSplitPass(split));
    tpu::TpuAddressAssignPassOptions placement;
    placement.lanes = chip.npuLanes;
    pm.addNestedPass<func::FuncOp>(tpu::createTpuAddressAssignPass(placement));
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  /// Runs the piece's stream on input `x` and returns its IO region.
  std::vector<uint8_t> run(func::FuncOp function, const Coeff &coeff,
                           const cmd::CommandStream &stream,
                           llvm::ArrayRef<uint8_t> x) {
    cmodel::CModel model(chip);
    model.global().attachReadOnly(cmd::REGION_COEFF, coeff.bytes);
    uint64_t io = function->getAttrOfType<IntegerAttr>("tpu.io_bytes").getInt();
    model.global().allocate(cmd::REGION_IO, io);
    model.global().allocate(
        cmd::REGION_ACTIVATION,
        function->getAttrOfType<IntegerAttr>("tpu.activation_bytes").getInt());
    absl::Status written = model.global().write(cmd::REGION_IO, 0, x);
    EXPECT_TRUE(written.ok()) << written.message();
    absl::StatusOr<cmodel::RunStats> stats = model.run(stream);
    if (!stats.ok()) {
      ADD_FAILURE() << stats.status().message();
      return {};
    }
    lastStats = *stats;
    absl::Span<const uint8_t> bytes =
        model.global().read(cmd::REGION_IO, 0, io).value();
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  }

  MLIRContext context;
  plugins::ChipDescriptor chip = getTwoCoreChip();
  cmodel::RunStats lastStats;
};

TEST_F(CoreSplitTest, TwoCoresGiveTheOneCoreBits) {
  OwningOpRef<ModuleOp> one = compile(1), two = compile(2);
  auto function = [](ModuleOp module) {
    return *module.getOps<func::FuncOp>().begin();
  };
  int splits = 0;
  function(*two).walk(
      [&](Operation *op) { splits += op->hasAttr("core_split"); });
  EXPECT_EQ(splits, 4);

  Coeff coeff = makeCoeff(function(*one));
  llvm::Expected<cmd::CommandStream> oneStream =
      codegen::generateCommandStream(function(*one), chip, coeff.offsets);
  ASSERT_TRUE(bool(oneStream)) << llvm::toString(oneStream.takeError());
  llvm::Expected<cmd::CommandStream> twoStream =
      codegen::generateCommandStream(function(*two), chip, coeff.offsets);
  ASSERT_TRUE(bool(twoStream)) << llvm::toString(twoStream.takeError());
  EXPECT_EQ(oneStream->version(), 1u);
  EXPECT_EQ(twoStream->version(), 2u);
  int parallel = 0;
  for (const cmd::Section &section : twoStream->sections())
    parallel += section.cores_size() == 2;
  // The projections one section each, the MLPs two.
  EXPECT_EQ(parallel, 6);
  EXPECT_EQ(getCoeffBytesLoaded(*twoStream), getCoeffBytesLoaded(*oneStream));

  std::vector<uint8_t> x(4 * 64 * 2);
  std::mt19937 random(3);
  for (size_t i = 0; i < x.size(); i += 2) {
    uint16_t half = uint16_t((random() & 0x8000) | ((random() % 15) << 10) |
                             (random() & 0x3ff));
    std::memcpy(&x[i], &half, 2);
  }
  std::vector<uint8_t> oneBytes = run(function(*one), coeff, *oneStream, x);
  cmodel::RunStats oneStats = lastStats;
  std::vector<uint8_t> twoBytes = run(function(*two), coeff, *twoStream, x);
  ASSERT_FALSE(oneBytes.empty());
  EXPECT_EQ(oneBytes, twoBytes);
  EXPECT_EQ(lastStats.macs, oneStats.macs);
  EXPECT_EQ(lastStats.syncCycles,
            6 * cmodel::TimeModel(chip).getCoreSyncCycles());
}

TEST_F(CoreSplitTest, RejectsMoreCoresThanTheChipHas) {
  OwningOpRef<ModuleOp> two = compile(2);
  func::FuncOp function = *two->getOps<func::FuncOp>().begin();
  plugins::ChipDescriptor single = chip;
  single.cores = 1;
  llvm::Expected<cmd::CommandStream> stream = codegen::generateCommandStream(
      function, single, makeCoeff(function).offsets);
  ASSERT_FALSE(bool(stream));
  EXPECT_NE(llvm::toString(stream.takeError())
                .find("is split across 2 cores; two_cores has 1"),
            std::string::npos);
}

} // namespace
