//===- OpConformanceTest.cpp - every lowered op on every chip's device ----===//
//
// The per-op conformance suite of the chip plugins: a golden set of
// single-op top functions (small static shapes, seeded random inputs and
// weights held in memory), each compiled for every registered chip in every
// mode its descriptor lists, run on the chip's device (a cmodel, or the host
// CPU natively) and compared with the top interpreter running the same
// function on the weights the binary holds (quantized weights dequantized,
// float weights rounded), in f32, within the bound the lowering declares
// for the op and mode (lowering/Tolerance.h: getOpTolerance). Integer
// outputs must be equal. INT8 is calibrated (minmax) on the test's own
// inputs and its reference rounds the quantized activations to their 8-bit
// grid, as in piece_parity_test.
//
// Each (chip, op, mode) is a test case of its own, named
// `<chip>_<op>_<mode>`; it records the figures it measured (of its worst
// float output) as the test properties `one_minus_cosine` and
// `max_relative_error`, which the bounds in Tolerance.cpp were set from.
// On a chip with local memory the MatMul golden must also split into at
// least two tiles per core. A chip plugin is covered by adding it to
// registerChips and to the target's deps.
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
#include "dialects/top/Interpreter/Interpreter.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "dialects/tpu/IR/TpuTraits.h"
#include "pieces/Masks.h"
#include "plugins/Registry.h"
#include "plugins/WeightSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <ostream>
#include <random>

namespace llmc::plugins {
void register_bm1684x(Registrar &registrar);
void register_bm1688(Registrar &registrar);
void register_cv186x(Registrar &registrar);
void register_host(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using namespace mlir;

namespace {

/// Every chip the suite covers.
void registerChips(plugins::Registrar &registrar) {
  plugins::register_bm1684x(registrar);
  plugins::register_bm1688(registrar);
  plugins::register_cv186x(registrar);
  plugins::register_host(registrar);
}

//===----------------------------------------------------------------------===//
// The golden set
//===----------------------------------------------------------------------===//

/// How a piece input or a weight is filled.
enum class Fill {
  /// Normal values times `scale`.
  Normal,
  /// Uniform in [0.5, 2): a divisor.
  Positive,
  /// Uniform in [0, 1/64): probabilities of a distribution over about 64.
  Probabilities,
  /// 1 + 0.1 times normal values: a norm's weight.
  NormWeight,
  /// i32 uniform in [0, bound).
  Ids,
  /// i32 distinct values in [0, bound).
  DistinctIds,
  /// i32 0 or 1.
  Bits,
  /// A prefill_kv attention mask [1, L, H + L] (pieces/Masks.h):
  /// half the history visible, causal over the new tokens.
  Mask,
  /// Rotary cos / sin [1, L, R] in the half layout, of the angles of
  /// positions 1..L.
  Cos,
  Sin,
};

struct FillSpec {
  Fill fill = Fill::Normal;
  float scale = 1;
  int64_t bound = 0;
};

struct WeightSpec {
  std::string name;
  llvm::SmallVector<int64_t> shape;
  FillSpec fill;
};

/// One top function of the golden set: `op` (`top.MatMul`) is the op under
/// test, whose tolerance applies; other ops only feed or read it.
struct GoldenOp {
  std::string name;
  std::string op;
  std::string source;
  /// One per argument of @main.
  std::vector<FillSpec> inputs;
  std::vector<WeightSpec> weights;
  /// Tiles the chip must split the op's projections into, per core, on a
  /// chip with local memory (ignored by one that computes in global memory).
  int64_t minTiles = 0;
  /// Whether the time model must spread the op's rows over the lanes (a
  /// prefill's projections and attention) in the float modes, where no lane
  /// repeats another's dequantization.
  bool splitsRows = false;
  /// Whether the time model must keep the golden's intermediate values (a
  /// gated MLP's h, a held norm or attention output) in local memory in
  /// the float modes, on a chip of one core (split across cores, an MLP's
  /// cores exchange h through global memory): nothing is stored to the
  /// activation region, where they would go.
  bool keepsIntermediate = false;
};

FillSpec normal(float scale = 1) { return {Fill::Normal, scale}; }
FillSpec ids(int64_t bound) { return {Fill::Ids, 1, bound}; }

/// The ops the common patterns lower and every chip generates code for, in
/// shapes of a small model's pieces.
const std::vector<GoldenOp> &getGoldenOps() {
  // clang-format off
  static const std::vector<GoldenOp> ops = {
      // A prefill projection with a bias (Qwen2's q_proj): 32 rows of 4096
      // are several tiles of activation rows in every element type, 8-bit
      // included, on every chip with local memory.
      {"MatMul", "top.MatMul", R"mlir(
func.func @main(%arg0: tensor<1x32x4096xf32>) -> tensor<1x32x128xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x32x4096xf32>) -> tensor<1x32x4096xf32>
  %w = top.Weight "linear.weight" : () -> tensor<128x4096xf32>
  %b = top.Weight "linear.bias" : () -> tensor<128xf32>
  %y = top.MatMul %x, %w, %b {right_transpose = true} : (tensor<1x32x4096xf32>, tensor<128x4096xf32>, tensor<128xf32>) -> tensor<1x32x128xf32> loc("linear")
  return %y : tensor<1x32x128xf32>
})mlir",
       {normal()},
       {{"linear.weight", {128, 4096}, normal(0.02f)},
        {"linear.bias", {128}, normal(0.1f)}},
       /*minTiles=*/2},
      {"MLP", "top.MLP", R"mlir(
func.func @main(%arg0: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %g = top.Weight "mlp.gate_proj.weight" : () -> tensor<512x256xf32>
  %u = top.Weight "mlp.up_proj.weight" : () -> tensor<512x256xf32>
  %d = top.Weight "mlp.down_proj.weight" : () -> tensor<256x512xf32>
  %y = top.MLP %x, %g, %u, %d : (tensor<1x8x256xf32>, tensor<512x256xf32>, tensor<512x256xf32>, tensor<256x512xf32>) -> tensor<1x8x256xf32> loc("mlp")
  return %y : tensor<1x8x256xf32>
})mlir",
       {normal()},
       {{"mlp.gate_proj.weight", {512, 256}, normal(0.06f)},
        {"mlp.up_proj.weight", {512, 256}, normal(0.06f)},
        {"mlp.down_proj.weight", {256, 512}, normal(0.04f)}}},
      // Prefill shapes: enough rows for every lane, so the time model
      // splits rows rather than output channels or kv heads.
      {"PrefillMatMul", "top.MatMul", R"mlir(
func.func @main(%arg0: tensor<1x256x256xf32>) -> tensor<1x256x512xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x256x256xf32>) -> tensor<1x256x256xf32>
  %w = top.Weight "linear.weight" : () -> tensor<512x256xf32>
  %b = top.Weight "linear.bias" : () -> tensor<512xf32>
  %y = top.MatMul %x, %w, %b {right_transpose = true} : (tensor<1x256x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<1x256x512xf32> loc("linear")
  return %y : tensor<1x256x512xf32>
})mlir",
       {normal()},
       {{"linear.weight", {512, 256}, normal(0.06f)},
        {"linear.bias", {512}, normal(0.1f)}},
       /*minTiles=*/0, /*splitsRows=*/true},
      {"PrefillMLP", "top.MLP", R"mlir(
func.func @main(%arg0: tensor<1x128x128xf32>) -> tensor<1x128x128xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x128x128xf32>) -> tensor<1x128x128xf32>
  %g = top.Weight "mlp.gate_proj.weight" : () -> tensor<384x128xf32>
  %u = top.Weight "mlp.up_proj.weight" : () -> tensor<384x128xf32>
  %d = top.Weight "mlp.down_proj.weight" : () -> tensor<128x384xf32>
  %y = top.MLP %x, %g, %u, %d : (tensor<1x128x128xf32>, tensor<384x128xf32>, tensor<384x128xf32>, tensor<128x384xf32>) -> tensor<1x128x128xf32> loc("mlp")
  return %y : tensor<1x128x128xf32>
})mlir",
       {normal()},
       {{"mlp.gate_proj.weight", {384, 128}, normal(0.09f)},
        {"mlp.up_proj.weight", {384, 128}, normal(0.09f)},
        {"mlp.down_proj.weight", {128, 384}, normal(0.05f)}},
       /*minTiles=*/0, /*splitsRows=*/true, /*keepsIntermediate=*/true},
      // A prefill MLP and the residual add it absorbs, in the proportions
      // of a Qwen2.5 layer (I = 5.4 H): the time model keeps h in local
      // memory and adds the residual to the partial sums.
      {"PrefillMLPResidual", "top.MLP", R"mlir(
func.func @main(%arg0: tensor<1x256x128xf32>) -> tensor<1x256x128xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  %g = top.Weight "mlp.gate_proj.weight" : () -> tensor<704x128xf32>
  %u = top.Weight "mlp.up_proj.weight" : () -> tensor<704x128xf32>
  %d = top.Weight "mlp.down_proj.weight" : () -> tensor<128x704xf32>
  %m = top.MLP %x, %g, %u, %d : (tensor<1x256x128xf32>, tensor<704x128xf32>, tensor<704x128xf32>, tensor<128x704xf32>) -> tensor<1x256x128xf32> loc("mlp")
  %y = top.Add %m, %x : (tensor<1x256x128xf32>, tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  return %y : tensor<1x256x128xf32>
})mlir",
       {normal()},
       {{"mlp.gate_proj.weight", {704, 128}, normal(0.09f)},
        {"mlp.up_proj.weight", {704, 128}, normal(0.09f)},
        {"mlp.down_proj.weight", {128, 704}, normal(0.04f)}},
       /*minTiles=*/0, /*splitsRows=*/true, /*keepsIntermediate=*/true},
      // A prefill's MLP after its norm, as in a layer: the layer-group pass
      // holds the norm's rows over the lanes, and the MLP reads them there.
      {"PrefillNormMLP", "top.MLP", R"mlir(
func.func @main(%arg0: tensor<1x256x128xf32>) -> tensor<1x256x128xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  %nw = top.Weight "norm.weight" : () -> tensor<128xf32>
  %g = top.Weight "mlp.gate_proj.weight" : () -> tensor<704x128xf32>
  %u = top.Weight "mlp.up_proj.weight" : () -> tensor<704x128xf32>
  %d = top.Weight "mlp.down_proj.weight" : () -> tensor<128x704xf32>
  %n = top.RMSNorm %x, %nw {eps = 1.0e-06 : f64} : (tensor<1x256x128xf32>, tensor<128xf32>) -> tensor<1x256x128xf32>
  %m = top.MLP %n, %g, %u, %d : (tensor<1x256x128xf32>, tensor<704x128xf32>, tensor<704x128xf32>, tensor<128x704xf32>) -> tensor<1x256x128xf32> loc("mlp")
  %y = top.Add %m, %x : (tensor<1x256x128xf32>, tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  return %y : tensor<1x256x128xf32>
})mlir",
       {normal()},
       {{"norm.weight", {128}, {Fill::NormWeight}},
        {"mlp.gate_proj.weight", {704, 128}, normal(0.09f)},
        {"mlp.up_proj.weight", {704, 128}, normal(0.09f)},
        {"mlp.down_proj.weight", {128, 704}, normal(0.04f)}},
       /*minTiles=*/0, /*splitsRows=*/true, /*keepsIntermediate=*/true},
      // A prefill's norm, query projection and rope, as in a layer: the
      // layer-group pass holds the norm's rows and the projection's over
      // the lanes, and the rope reads q there.
      {"PrefillNormQueryRope", "top.MatMul", R"mlir(
func.func @main(%arg0: tensor<1x256x128xf32>, %arg1: tensor<1x256x64xf32>, %arg2: tensor<1x256x64xf32>) -> tensor<1x256x2x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  %c = top.Input %arg1 {role = "cos"} : (tensor<1x256x64xf32>) -> tensor<1x256x64xf32>
  %s = top.Input %arg2 {role = "sin"} : (tensor<1x256x64xf32>) -> tensor<1x256x64xf32>
  %nw = top.Weight "norm.weight" : () -> tensor<128xf32>
  %w = top.Weight "q_proj.weight" : () -> tensor<128x128xf32>
  %b = top.Weight "q_proj.bias" : () -> tensor<128xf32>
  %n = top.RMSNorm %x, %nw {eps = 1.0e-06 : f64} : (tensor<1x256x128xf32>, tensor<128xf32>) -> tensor<1x256x128xf32>
  %q = top.MatMul %n, %w, %b {right_transpose = true} : (tensor<1x256x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<1x256x128xf32> loc("q_proj")
  %h = top.Reshape %q : (tensor<1x256x128xf32>) -> tensor<1x256x2x64xf32>
  %y = top.Rope %h, %c, %s : (tensor<1x256x2x64xf32>, tensor<1x256x64xf32>, tensor<1x256x64xf32>) -> tensor<1x256x2x64xf32>
  return %y : tensor<1x256x2x64xf32>
})mlir",
       {normal(), {Fill::Cos}, {Fill::Sin}},
       {{"norm.weight", {128}, {Fill::NormWeight}},
        {"q_proj.weight", {128, 128}, normal(0.09f)},
        {"q_proj.bias", {128}, normal(0.1f)}},
       /*minTiles=*/0, /*splitsRows=*/true, /*keepsIntermediate=*/true},
      // A prefill's attention and the output projection reading it, with
      // its residual: the layer-group pass holds o's rows over the lanes,
      // where attention computes them and the projection reads them.
      {"PrefillAttentionOutput", "top.MatMul", R"mlir(
func.func @main(%arg0: tensor<1x128x4x64xf32>, %arg1: tensor<1x128x2x64xf32>, %arg2: tensor<1x128x2x64xf32>, %arg3: tensor<1x128x128xf32>, %arg4: tensor<1x128x256xf32>) -> tensor<1x128x256xf32> {
  %q = top.Input %arg0 {role = "q"} : (tensor<1x128x4x64xf32>) -> tensor<1x128x4x64xf32>
  %k = top.Input %arg1 {role = "k"} : (tensor<1x128x2x64xf32>) -> tensor<1x128x2x64xf32>
  %v = top.Input %arg2 {role = "v"} : (tensor<1x128x2x64xf32>) -> tensor<1x128x2x64xf32>
  %m = top.Input %arg3 {role = "mask"} : (tensor<1x128x128xf32>) -> tensor<1x128x128xf32>
  %h = top.Input %arg4 {role = "hidden"} : (tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %a = top.FAttention %q, %k, %v, %m {scale = 1.250000e-01 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 64 : i64} : (tensor<1x128x4x64xf32>, tensor<1x128x2x64xf32>, tensor<1x128x2x64xf32>, tensor<1x128x128xf32>) -> tensor<1x128x256xf32>
  %w = top.Weight "o_proj.weight" : () -> tensor<256x256xf32>
  %none = top.None : none
  %o = top.MatMul %a, %w, %none {right_transpose = true} : (tensor<1x128x256xf32>, tensor<256x256xf32>, none) -> tensor<1x128x256xf32> loc("o_proj")
  %y = top.Add %o, %h : (tensor<1x128x256xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  return %y : tensor<1x128x256xf32>
})mlir",
       {normal(2), normal(2), normal(), {Fill::Mask}, normal()},
       {{"o_proj.weight", {256, 256}, normal(0.06f)}},
       /*minTiles=*/0, /*splitsRows=*/true, /*keepsIntermediate=*/true},
      {"PrefillFAttention", "top.FAttention", R"mlir(
func.func @main(%arg0: tensor<1x128x4x64xf32>, %arg1: tensor<1x128x2x64xf32>, %arg2: tensor<1x128x2x64xf32>, %arg3: tensor<1x128x128xf32>) -> tensor<1x128x256xf32> {
  %q = top.Input %arg0 {role = "q"} : (tensor<1x128x4x64xf32>) -> tensor<1x128x4x64xf32>
  %k = top.Input %arg1 {role = "k"} : (tensor<1x128x2x64xf32>) -> tensor<1x128x2x64xf32>
  %v = top.Input %arg2 {role = "v"} : (tensor<1x128x2x64xf32>) -> tensor<1x128x2x64xf32>
  %m = top.Input %arg3 {role = "mask"} : (tensor<1x128x128xf32>) -> tensor<1x128x128xf32>
  %y = top.FAttention %q, %k, %v, %m {scale = 1.250000e-01 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 64 : i64} : (tensor<1x128x4x64xf32>, tensor<1x128x2x64xf32>, tensor<1x128x2x64xf32>, tensor<1x128x128xf32>) -> tensor<1x128x256xf32>
  return %y : tensor<1x128x256xf32>
})mlir",
       {normal(2), normal(2), normal(), {Fill::Mask}},
       {},
       /*minTiles=*/0, /*splitsRows=*/true},
      {"RMSNorm", "top.RMSNorm", R"mlir(
func.func @main(%arg0: tensor<1x16x512xf32>) -> tensor<1x16x512xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x512xf32>) -> tensor<1x16x512xf32>
  %w = top.Weight "norm.weight" : () -> tensor<512xf32>
  %y = top.RMSNorm %x, %w {eps = 1.0e-06 : f64} : (tensor<1x16x512xf32>, tensor<512xf32>) -> tensor<1x16x512xf32>
  return %y : tensor<1x16x512xf32>
})mlir",
       {normal(3)},
       {{"norm.weight", {512}, {Fill::NormWeight}}}},
      // A vision tower's pre-norm: 65 tokens of 64 channels.
      {"LayerNorm", "top.LayerNorm", R"mlir(
func.func @main(%arg0: tensor<1x65x64xf32>) -> tensor<1x65x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x65x64xf32>) -> tensor<1x65x64xf32>
  %w = top.Weight "norm.weight" : () -> tensor<64xf32>
  %b = top.Weight "norm.bias" : () -> tensor<64xf32>
  %y = top.LayerNorm %x, %w, %b {eps = 1.0e-06 : f64} : (tensor<1x65x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x65x64xf32>
  return %y : tensor<1x65x64xf32>
})mlir",
       {normal(3)},
       {{"norm.weight", {64}, {Fill::NormWeight}},
        {"norm.bias", {64}, normal(0.2f)}}},
      {"Rope", "top.Rope", R"mlir(
func.func @main(%arg0: tensor<1x16x4x64xf32>, %arg1: tensor<1x16x64xf32>, %arg2: tensor<1x16x64xf32>) -> tensor<1x16x4x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x4x64xf32>) -> tensor<1x16x4x64xf32>
  %c = top.Input %arg1 {role = "cos"} : (tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %s = top.Input %arg2 {role = "sin"} : (tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %y = top.Rope %x, %c, %s : (tensor<1x16x4x64xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>) -> tensor<1x16x4x64xf32>
  return %y : tensor<1x16x4x64xf32>
})mlir",
       {normal(), {Fill::Cos}, {Fill::Sin}}},
      // prefill_kv attention: 16 queries over 32 history slots and
      // themselves, grouped-query (4 query heads on 2 kv heads).
      {"FAttention", "top.FAttention", R"mlir(
func.func @main(%arg0: tensor<1x16x4x64xf32>, %arg1: tensor<1x48x2x64xf32>, %arg2: tensor<1x48x2x64xf32>, %arg3: tensor<1x16x48xf32>) -> tensor<1x16x256xf32> {
  %q = top.Input %arg0 {role = "q"} : (tensor<1x16x4x64xf32>) -> tensor<1x16x4x64xf32>
  %k = top.Input %arg1 {role = "k"} : (tensor<1x48x2x64xf32>) -> tensor<1x48x2x64xf32>
  %v = top.Input %arg2 {role = "v"} : (tensor<1x48x2x64xf32>) -> tensor<1x48x2x64xf32>
  %m = top.Input %arg3 {role = "mask"} : (tensor<1x16x48xf32>) -> tensor<1x16x48xf32>
  %y = top.FAttention %q, %k, %v, %m {scale = 1.250000e-01 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 64 : i64} : (tensor<1x16x4x64xf32>, tensor<1x48x2x64xf32>, tensor<1x48x2x64xf32>, tensor<1x16x48xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal(2), normal(2), normal(), {Fill::Mask}}},
      // Gemma 2's soft-capped scores: with scale 1/16 they spread about as
      // wide as the cap of 2, so the tanh bends them, most of all the
      // largest.
      {"SoftcapFAttention", "top.FAttention", R"mlir(
func.func @main(%arg0: tensor<1x16x4x64xf32>, %arg1: tensor<1x48x2x64xf32>, %arg2: tensor<1x48x2x64xf32>, %arg3: tensor<1x16x48xf32>) -> tensor<1x16x256xf32> {
  %q = top.Input %arg0 {role = "q"} : (tensor<1x16x4x64xf32>) -> tensor<1x16x4x64xf32>
  %k = top.Input %arg1 {role = "k"} : (tensor<1x48x2x64xf32>) -> tensor<1x48x2x64xf32>
  %v = top.Input %arg2 {role = "v"} : (tensor<1x48x2x64xf32>) -> tensor<1x48x2x64xf32>
  %m = top.Input %arg3 {role = "mask"} : (tensor<1x16x48xf32>) -> tensor<1x16x48xf32>
  %y = top.FAttention %q, %k, %v, %m {scale = 6.250000e-02 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 64 : i64, softcap = 2.000000e+00 : f64} : (tensor<1x16x4x64xf32>, tensor<1x48x2x64xf32>, tensor<1x48x2x64xf32>, tensor<1x16x48xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal(2), normal(2), normal(), {Fill::Mask}}},
      {"Add", "top.Add", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>, %arg1: tensor<1x16x256xf32>) -> tensor<1x16x256xf32> {
  %a = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %b = top.Input %arg1 {role = "residual"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.Add %a, %b : (tensor<1x16x256xf32>, tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal(), normal()}},
      {"Mul", "top.Mul", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>, %arg1: tensor<1x16x256xf32>) -> tensor<1x16x256xf32> {
  %a = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %b = top.Input %arg1 {role = "gate"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.Mul %a, %b : (tensor<1x16x256xf32>, tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal(), normal()}},
      // A row broadcast, as a temperature or penalty divides logits.
      {"Div", "top.Div", R"mlir(
func.func @main(%arg0: tensor<16x256xf32>, %arg1: tensor<1x256xf32>) -> tensor<16x256xf32> {
  %a = top.Input %arg0 {role = "hidden"} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %b = top.Input %arg1 {role = "divisor"} : (tensor<1x256xf32>) -> tensor<1x256xf32>
  %y = top.Div %a, %b : (tensor<16x256xf32>, tensor<1x256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
})mlir",
       {normal(3), {Fill::Positive}}},
      {"MulConst", "top.MulConst", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>) -> tensor<1x16x256xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.MulConst %x {const_val = 1.100000e-01 : f64} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal()}},
      {"SiLU", "top.SiLU", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>) -> tensor<1x16x256xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.SiLU %x : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal(3)}},
      {"GELU", "top.GELU", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>) -> tensor<1x16x256xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.GELU %x : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal(3)}},
      {"Tanh", "top.Tanh", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>) -> tensor<1x16x256xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.Tanh %x : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  return %y : tensor<1x16x256xf32>
})mlir",
       {normal(3)}},
      {"Softmax", "top.Softmax", R"mlir(
func.func @main(%arg0: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %x = top.Input %arg0 {role = "scores"} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %y = top.Softmax %x {axis = -1 : i64} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
})mlir",
       {normal(3)}},
      // Top-p's exclusive running sum of probabilities.
      {"CumSum", "top.CumSum", R"mlir(
func.func @main(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %x = top.Input %arg0 {role = "probs"} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = top.CumSum %x {axis = -1 : i64, exclusive = true} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
})mlir",
       {{Fill::Probabilities}}},
      // The larger of a and b: continuous, so a comparison that rounding
      // flips between nearly equal values moves the output by the rounding.
      {"Compare", "top.Compare", R"mlir(
func.func @main(%arg0: tensor<16x256xf32>, %arg1: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %a = top.Input %arg0 {role = "lhs"} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %b = top.Input %arg1 {role = "rhs"} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %c = top.Compare %a, %b {mode = #top<compare_mode gt>} : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xi1>
  %y = top.Where %c, %a, %b : (tensor<16x256xi1>, tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
})mlir",
       {normal(), normal()}},
      {"Where", "top.Where", R"mlir(
func.func @main(%arg0: tensor<16x256xi32>, %arg1: tensor<16x256xf32>, %arg2: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %c = top.Input %arg0 {role = "cond"} : (tensor<16x256xi32>) -> tensor<16x256xi32>
  %a = top.Input %arg1 {role = "x"} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %b = top.Input %arg2 {role = "y"} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %y = top.Where %c, %a, %b : (tensor<16x256xi32>, tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
})mlir",
       {{Fill::Bits}, normal(), normal()}},
      // The token embedding.
      {"Gather", "top.Gather", R"mlir(
func.func @main(%arg0: tensor<1x16xi32>) -> tensor<1x16x128xf32> {
  %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x16xi32>) -> tensor<1x16xi32>
  %t = top.Weight "embed_tokens.weight" : () -> tensor<512x128xf32>
  %y = top.Gather %t, %ids {axis = 0 : i64} : (tensor<512x128xf32>, tensor<1x16xi32>) -> tensor<1x16x128xf32>
  return %y : tensor<1x16x128xf32>
})mlir",
       {ids(512)},
       {{"embed_tokens.weight", {512, 128}, normal()}}},
      // A tied embedding: in the weight-only modes, rows of the LM head's
      // quantized form (tpu.A16Gather), dequantized on the chip; 40 ids
      // are more rows than lanes.
      {"TiedGather", "top.Gather", R"mlir(
func.func @main(%arg0: tensor<1x40xi32>) -> tensor<1x40x128xf32> attributes {llmc.quantized_tables = ["embed_tokens.weight"]} {
  %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x40xi32>) -> tensor<1x40xi32>
  %t = top.Weight "embed_tokens.weight" : () -> tensor<512x128xf32>
  %y = top.Gather %t, %ids {axis = 0 : i64} : (tensor<512x128xf32>, tensor<1x40xi32>) -> tensor<1x40x128xf32>
  return %y : tensor<1x40x128xf32>
})mlir",
       {ids(512)},
       {{"embed_tokens.weight", {512, 128}, normal()}}},
      // The repetition penalty writes back the penalized logits.
      {"ScatterElements", "top.ScatterElements", R"mlir(
func.func @main(%arg0: tensor<1x257xf32>, %arg1: tensor<1x16xi32>, %arg2: tensor<1x16xf32>) -> tensor<1x257xf32> {
  %d = top.Input %arg0 {role = "data"} : (tensor<1x257xf32>) -> tensor<1x257xf32>
  %i = top.Input %arg1 {role = "indices"} : (tensor<1x16xi32>) -> tensor<1x16xi32>
  %u = top.Input %arg2 {role = "updates"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %y = top.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x257xf32>, tensor<1x16xi32>, tensor<1x16xf32>) -> tensor<1x257xf32>
  return %y : tensor<1x257xf32>
})mlir",
       {normal(), {Fill::DistinctIds, 1, 257}, normal(5)}},
      {"Slice", "top.Slice", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>) -> tensor<1x8x128xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.Slice %x {starts = array<i64: 0, 4, 64>, ends = array<i64: 1, 12, 192>, steps = array<i64: 1, 1, 1>} : (tensor<1x16x256xf32>) -> tensor<1x8x128xf32>
  return %y : tensor<1x8x128xf32>
})mlir",
       {normal()}},
      // One of q, k, v from a fused projection [L, 3, heads, head_dim]:
      // 65 runs of rows.
      {"StridedSlice", "top.Slice", R"mlir(
func.func @main(%arg0: tensor<1x65x3x4x16xf32>) -> tensor<1x65x1x4x16xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x65x3x4x16xf32>) -> tensor<1x65x3x4x16xf32>
  %y = top.Slice %x {starts = array<i64: 0, 0, 1, 0, 0>, ends = array<i64: 1, 65, 2, 4, 16>, steps = array<i64: 1, 1, 1, 1, 1>} : (tensor<1x65x3x4x16xf32>) -> tensor<1x65x1x4x16xf32>
  return %y : tensor<1x65x1x4x16xf32>
})mlir",
       {normal()}},
      // Unfolding 14 x 14 patches of an image (a patch embedding's input).
      {"Permute", "top.Permute", R"mlir(
func.func @main(%arg0: tensor<1x3x4x14x4x14xf32>) -> tensor<1x4x4x3x14x14xf32> {
  %x = top.Input %arg0 {role = "pixel_values"} : (tensor<1x3x4x14x4x14xf32>) -> tensor<1x3x4x14x4x14xf32>
  %y = top.Permute %x {order = array<i64: 0, 2, 4, 1, 3, 5>} : (tensor<1x3x4x14x4x14xf32>) -> tensor<1x4x4x3x14x14xf32>
  return %y : tensor<1x4x4x3x14x14xf32>
})mlir",
       {normal()}},
      // History keys in front of the new tokens' (prefill_kv).
      {"Concat", "top.Concat", R"mlir(
func.func @main(%arg0: tensor<1x32x2x64xf32>, %arg1: tensor<1x16x2x64xf32>) -> tensor<1x48x2x64xf32> {
  %h = top.Input %arg0 {role = "history_k"} : (tensor<1x32x2x64xf32>) -> tensor<1x32x2x64xf32>
  %k = top.Input %arg1 {role = "k"} : (tensor<1x16x2x64xf32>) -> tensor<1x16x2x64xf32>
  %y = top.Concat %h, %k {axis = 1 : i64} : (tensor<1x32x2x64xf32>, tensor<1x16x2x64xf32>) -> tensor<1x48x2x64xf32>
  return %y : tensor<1x48x2x64xf32>
})mlir",
       {normal(), normal()}},
      {"Reshape", "top.Reshape", R"mlir(
func.func @main(%arg0: tensor<1x16x256xf32>) -> tensor<1x16x4x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %y = top.Reshape %x : (tensor<1x16x256xf32>) -> tensor<1x16x4x64xf32>
  return %y : tensor<1x16x4x64xf32>
})mlir",
       {normal()}},
      // A splat row added to every row, as the heads' thresholds are.
      {"Constant", "top.Constant", R"mlir(
func.func @main(%arg0: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %c = top.Constant dense<3.000000e-01> : tensor<1x256xf32>
  %y = top.Add %x, %c : (tensor<16x256xf32>, tensor<1x256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
})mlir",
       {normal()}},
      // The greedy head: logits stay f32 in every mode.
      {"Arg", "top.Arg", R"mlir(
func.func @main(%arg0: tensor<1x1000xf32>) -> tensor<1x1xi32> {
  %x = top.Input %arg0 {role = "logits"} : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %y = top.Arg %x {axis = 1 : i64} : (tensor<1x1000xf32>) -> tensor<1x1xi32>
  return %y : tensor<1x1xi32>
})mlir",
       {normal(3)}},
      {"TopK", "top.TopK", R"mlir(
func.func @main(%arg0: tensor<1x1000xf32>) -> (tensor<1x50xf32>, tensor<1x50xi32>) {
  %x = top.Input %arg0 {role = "logits"} : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %v, %i = top.TopK %x {k = 50 : i64, axis = 1 : i64} : (tensor<1x1000xf32>) -> (tensor<1x50xf32>, tensor<1x50xi32>)
  return %v, %i : tensor<1x50xf32>, tensor<1x50xi32>
})mlir",
       {normal(3)}},
  };
  // clang-format on
  return ops;
}

//===----------------------------------------------------------------------===//
// Inputs and weights
//===----------------------------------------------------------------------===//

/// `count` values filled as `spec` says, for a tensor of `shape`.
std::vector<float> fillValues(const FillSpec &spec,
                              llvm::ArrayRef<int64_t> shape,
                              std::mt19937 &random) {
  int64_t count = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  std::vector<float> values(count);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform;
  switch (spec.fill) {
  case Fill::Normal:
    for (float &value : values)
      value = normal(random) * spec.scale;
    break;
  case Fill::Positive:
    for (float &value : values)
      value = 0.5f + 1.5f * uniform(random);
    break;
  case Fill::Probabilities:
    for (float &value : values)
      value = uniform(random) / 64;
    break;
  case Fill::NormWeight:
    for (float &value : values)
      value = 1 + 0.1f * normal(random);
    break;
  case Fill::Ids:
    for (float &value : values)
      value = static_cast<float>(random() % spec.bound);
    break;
  case Fill::DistinctIds: {
    std::vector<int64_t> all(spec.bound);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), random);
    for (auto [value, id] : llvm::zip(values, all))
      value = static_cast<float>(id);
    break;
  }
  case Fill::Bits:
    for (float &value : values)
      value = static_cast<float>(random() % 2);
    break;
  case Fill::Mask: {
    int64_t length = shape[1], slots = shape[2] - length;
    values = pieces::buildPrefillKVMask(length, slots, slots / 2);
    break;
  }
  case Fill::Cos:
  case Fill::Sin: {
    int64_t length = shape[1], rotary = shape[2], half = rotary / 2;
    for (int64_t l = 0; l < length; ++l)
      for (int64_t i = 0; i < rotary; ++i) {
        double angle = (l + 1) * std::pow(10000.0, -2.0 * (i % half) / rotary);
        values[l * rotary + i] = static_cast<float>(
            spec.fill == Fill::Cos ? std::cos(angle) : std::sin(angle));
      }
    break;
  }
  }
  return values;
}

/// The inputs of `function`, filled as `golden` says, seeded by its name.
std::vector<top::Tensor> makeInputs(func::FuncOp function,
                                    const GoldenOp &golden) {
  std::seed_seq seed(golden.name.begin(), golden.name.end());
  std::mt19937 random(seed);
  std::vector<top::Tensor> inputs;
  for (auto [type, spec] :
       llvm::zip(function.getArgumentTypes(), golden.inputs)) {
    auto tensor = cast<RankedTensorType>(type);
    llvm::SmallVector<int64_t> shape(tensor.getShape());
    std::vector<float> values = fillValues(spec, shape, random);
    if (!tensor.getElementType().isInteger(32)) {
      inputs.push_back(top::Tensor::fromF32(shape, std::move(values)));
      continue;
    }
    std::vector<int32_t> ints(values.begin(), values.end());
    inputs.push_back(top::Tensor::fromI32(shape, std::move(ints)));
  }
  return inputs;
}

/// `golden`'s weights, in memory, seeded by its name.
std::unique_ptr<plugins::WeightSource> makeWeights(const GoldenOp &golden) {
  auto source = std::make_unique<plugins::OverlayWeightSource>(
      std::make_unique<plugins::EmptyWeightSource>("golden weights of " +
                                                   golden.name));
  std::string seedText = golden.name + ".weights";
  std::seed_seq seed(seedText.begin(), seedText.end());
  std::mt19937 random(seed);
  for (const WeightSpec &weight : golden.weights)
    llvm::cantFail(
        source->addTensor(weight.name, weight.shape,
                          fillValues(weight.fill, weight.shape, random)));
  return source;
}

//===----------------------------------------------------------------------===//
// Measures
//===----------------------------------------------------------------------===//

/// The largest |got - want|, relative to the largest |want|.
double maxRelativeError(llvm::ArrayRef<float> got, llvm::ArrayRef<float> want) {
  double error = 0, scale = 0;
  for (auto [g, w] : llvm::zip(got, want)) {
    // NaN compares false: count it as an unbounded error.
    double difference = std::fabs(double(g) - w);
    error = std::isnan(difference) ? INFINITY : std::max(error, difference);
    scale = std::max(scale, std::fabs(double(w)));
  }
  return scale == 0 ? error : error / scale;
}

/// The fewest projection tiles (matrix-product commands) a core that
/// computes one runs in `stream`.
int64_t countFewestTiles(const cmd::CommandStream &stream) {
  int64_t fewest = 0;
  auto count = [&](const auto &queue) {
    int64_t tiles = llvm::count_if(queue, [](const cmd::Command &command) {
      if (!command.has_compute())
        return false;
      cmd::Opcode opcode = command.compute().opcode();
      return opcode == cmd::MATMUL || opcode == cmd::A16MATMUL ||
             opcode == cmd::I8MATMUL;
    });
    if (tiles > 0)
      fewest = fewest ? std::min(fewest, tiles) : tiles;
  };
  count(stream.compute_queue());
  for (const cmd::Section &section : stream.sections())
    for (const cmd::CoreCommands &core : section.cores())
      count(core.compute_queue());
  return fewest;
}

/// Whether some matrix product or attention in `stream` reads its first
/// input split by rows over several lanes.
bool splitsRows(const cmd::CommandStream &stream) {
  auto splits = [](const auto &queue) {
    return llvm::any_of(queue, [](const cmd::Command &command) {
      if (!command.has_compute() || command.compute().inputs_size() == 0)
        return false;
      cmd::Opcode opcode = command.compute().opcode();
      const cmd::LocalTensor &input = command.compute().inputs(0);
      return (opcode == cmd::MATMUL || opcode == cmd::A16MATMUL ||
              opcode == cmd::I8MATMUL || opcode == cmd::ATTENTION) &&
             input.layout() == cmd::LAYOUT_ROWS && input.lane_count() > 1;
    });
  };
  if (splits(stream.compute_queue()))
    return true;
  for (const cmd::Section &section : stream.sections())
    for (const cmd::CoreCommands &core : section.cores())
      if (splits(core.compute_queue()))
        return true;
  return false;
}

/// Whether some command of `stream` stores to the activation region.
bool storesActivations(const cmd::CommandStream &stream) {
  auto stores = [](const auto &queue) {
    return llvm::any_of(queue, [](const cmd::Command &command) {
      return command.has_dma() && command.dma().kind() == cmd::Dma::STORE &&
             command.dma().global().region() == cmd::REGION_ACTIVATION;
    });
  };
  if (stores(stream.dma_queue()))
    return true;
  for (const cmd::Section &section : stream.sections())
    for (const cmd::CoreCommands &core : section.cores())
      if (stores(core.dma_queue()))
        return true;
  return false;
}

//===----------------------------------------------------------------------===//
// On the chip
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// The suite
//===----------------------------------------------------------------------===//

struct Case {
  std::string chip;
  /// An index into getGoldenOps().
  size_t op = 0;
  std::string mode;
};

void PrintTo(const Case &param, std::ostream *os) {
  *os << param.chip << " " << getGoldenOps()[param.op].op << " " << param.mode;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string name = info.param.chip + "_" +
                     getGoldenOps()[info.param.op].name + "_" + info.param.mode;
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

/// Every golden op on every chip registerChips registers, in every mode the
/// chip lists.
std::vector<Case> allCases() {
  plugins::Registry registry;
  registerChips(registry);
  std::vector<Case> cases;
  for (const std::unique_ptr<plugins::BackendPlugin> &backend :
       registry.getBackends())
    for (size_t op = 0; op < getGoldenOps().size(); ++op)
      for (const std::string &mode : backend->getDescriptor().quantModes)
        cases.push_back({backend->getDescriptor().id, op, mode});
  return cases;
}

class OpConformanceTest : public ::testing::TestWithParam<Case> {
protected:
  /// One registry and context for the suite: hundreds of cases each
  /// compile a single op.
  static void SetUpTestSuite() {
    registry = std::make_unique<plugins::Registry>();
    registerChips(*registry);
    registrationErrors = toString(registry->takeRegistrationErrors());
    context = std::make_unique<MLIRContext>();
    DialectRegistry dialects;
    registerAllDialects(dialects);
    context->appendDialectRegistry(dialects);
    context->loadAllAvailableDialects();
  }
  static void TearDownTestSuite() {
    context.reset();
    registry.reset();
  }

  void SetUp() override { ASSERT_EQ(registrationErrors, ""); }

  /// INT8's calibration: minmax ranges of the activations `module` quantizes
  /// on `inputs`.
  static llvm::Expected<std::shared_ptr<quant::CalibrationTable>>
  calibrate(ModuleOp module, const plugins::WeightSource &weights,
            llvm::ArrayRef<top::Tensor> inputs) {
    OwningOpRef<ModuleOp> decomposed = module.clone();
    if (llvm::Error error = lowering::decomposeMLPs(*decomposed))
      return std::move(error);
    llvm::StringMap<quant::ActivationStatistics> stats;
    top::InterpreterOptions options;
    options.observeOperands = [&](Operation &op,
                                  llvm::ArrayRef<const top::Tensor *> args) {
      std::string name = lowering::getQuantizedInputName(&op);
      if (!name.empty())
        stats[name].observeRange(args[0]->getF32());
    };
    top::Interpreter interpreter(weights, options);
    llvm::Expected<std::vector<top::Tensor>> outputs =
        interpreter.run(compile::getPieceFunction(*decomposed), inputs);
    if (!outputs)
      return outputs.takeError();
    auto table = std::make_shared<quant::CalibrationTable>();
    for (auto &[name, tensor] : stats)
      table->set(name, tensor.getRange(quant::CalibrationMethod::MinMax, 0));
    return table;
  }

  static std::unique_ptr<plugins::Registry> registry;
  static std::string registrationErrors;
  static std::unique_ptr<MLIRContext> context;
};

std::unique_ptr<plugins::Registry> OpConformanceTest::registry;
std::string OpConformanceTest::registrationErrors;
std::unique_ptr<MLIRContext> OpConformanceTest::context;

TEST_P(OpConformanceTest, MatchesInterpreter) {
  const Case &param = GetParam();
  const GoldenOp &golden = getGoldenOps()[param.op];
  lowering::LoweringOptions options;
  options.mode = llvm::cantFail(lowering::parseQuantMode(param.mode));
  const plugins::BackendPlugin &backend =
      llvm::cantFail(registry->findBackend(param.chip));
  std::optional<lowering::OpTolerance> tolerance = lowering::getOpTolerance(
      golden.op, options.mode,
      backend.getDescriptor().eightBitXWith4BitWeights);
  ASSERT_TRUE(tolerance) << "lowering/Tolerance.cpp declares no bound for "
                         << golden.op << " in " << param.mode;

  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(golden.source, context.get());
  ASSERT_TRUE(module) << golden.source;
  std::unique_ptr<plugins::WeightSource> checkpoint = makeWeights(golden);
  quant::DerivedWeightSource weights(*checkpoint);
  std::vector<top::Tensor> inputs =
      makeInputs(compile::getPieceFunction(*module), golden);
  if (lowering::quantizesActivations(options.mode)) {
    llvm::Expected<std::shared_ptr<quant::CalibrationTable>> table =
        calibrate(*module, *checkpoint, inputs);
    ASSERT_TRUE(static_cast<bool>(table)) << toString(table.takeError());
    options.calibration = *table;
  }

  // The reference: the same function on the weights the binary holds.
  OwningOpRef<ModuleOp> reference = module->clone();
  llvm::Error retargeted =
      lowering::quantizesActivations(options.mode)
          ? lowering::buildInt8Reference(*reference, options)
          : lowering::retargetToLoweredWeights(*reference, options);
  ASSERT_FALSE(static_cast<bool>(retargeted))
      << toString(std::move(retargeted));
  top::InterpreterOptions interpreterOptions;
  interpreterOptions.cacheWeights = false;
  top::Interpreter interpreter(weights, interpreterOptions);
  llvm::Expected<std::vector<top::Tensor>> expected =
      interpreter.run(compile::getPieceFunction(*reference), inputs);
  ASSERT_TRUE(static_cast<bool>(expected)) << toString(expected.takeError());

  // The chip: lowered, placed, its weights packed into the coeff region.
  llvm::Error lowered = compile::lowerAndPlace(*module, backend, options);
  ASSERT_FALSE(static_cast<bool>(lowered)) << toString(std::move(lowered));
  codegen::WeightOffsets offsets;
  llvm::Expected<std::vector<uint8_t>> coeff =
      compile::packCoeff(*module, weights, offsets);
  ASSERT_TRUE(static_cast<bool>(coeff)) << toString(coeff.takeError());
  func::FuncOp function = compile::getPieceFunction(*module);
  cmd::CommandStream stream;
  llvm::Error generated = backend.generateStream(function, offsets, stream);
  ASSERT_FALSE(static_cast<bool>(generated)) << toString(std::move(generated));
  if (golden.minTiles && !backend.getDescriptor().computesInGlobalMemory) {
    EXPECT_GE(countFewestTiles(stream), golden.minTiles)
        << "the golden " << golden.name << " is too small to tile on "
        << param.chip;
  }
  bool floatMode = options.mode == lowering::QuantMode::F32 ||
                   options.mode == lowering::QuantMode::F16 ||
                   options.mode == lowering::QuantMode::BF16;
  if (golden.splitsRows && floatMode &&
      !backend.getDescriptor().computesInGlobalMemory) {
    EXPECT_TRUE(splitsRows(stream))
        << "the time model kept " << golden.name
        << "'s rows on few lanes on " << param.chip;
  }
  if (golden.keepsIntermediate && floatMode &&
      !backend.getDescriptor().computesInGlobalMemory &&
      backend.getDescriptor().cores == 1) {
    EXPECT_FALSE(storesActivations(stream))
        << "the time model sent " << golden.name
        << "'s intermediate through global memory on " << param.chip;
  }
  std::unique_ptr<cmodel::StreamDevice> device = backend.createDevice({});
  ASSERT_TRUE(device) << param.chip << " has no device";
  llvm::Expected<std::vector<std::vector<uint8_t>>> outputs =
      compile::runOnDevice(*device, function, stream, *coeff, inputs);
  ASSERT_TRUE(static_cast<bool>(outputs)) << toString(outputs.takeError());

  double worstCosine = 1, worstError = 0;
  for (auto [index, want] : llvm::enumerate(*expected)) {
    llvm::ArrayRef<uint8_t> got = (*outputs)[index];
    if (want.isI32()) {
      std::vector<int32_t> ids(want.getNumElements());
      std::memcpy(ids.data(), got.data(), got.size());
      EXPECT_EQ(
          ids, std::vector<int32_t>(want.getI32().begin(), want.getI32().end()))
          << "output #" << index;
      continue;
    }
    std::vector<float> values =
        compile::decode(got, function.getResultTypes()[index]);
    double similarity = compile::cosine(values, want.getF32());
    double error = maxRelativeError(values, want.getF32());
    worstCosine = std::min(worstCosine, similarity);
    worstError = std::max(worstError, error);
    // Deficits rather than cosines, which print as 1.
    EXPECT_LE(1 - similarity, 1 - tolerance->minCosine)
        << "1 - cosine of " << golden.op << " output #" << index << " in "
        << param.mode << " (" << tolerance->reason.str() << ")";
    EXPECT_LE(error, tolerance->maxRelativeError)
        << "relative error of " << golden.op << " output #" << index << " in "
        << param.mode << " (" << tolerance->reason.str() << ")";
  }
  RecordProperty("one_minus_cosine",
                 llvm::formatv("{0:e3}", 1 - worstCosine).str());
  RecordProperty("max_relative_error",
                 llvm::formatv("{0:e3}", worstError).str());
}

INSTANTIATE_TEST_SUITE_P(Chips, OpConformanceTest,
                         ::testing::ValuesIn(allCases()), caseName);

} // namespace
