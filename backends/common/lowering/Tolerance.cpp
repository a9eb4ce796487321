//===- Tolerance.cpp - how close a lowering must compute ------------------===//

#include "backends/common/lowering/Tolerance.h"

#include "llvm/ADT/StringRef.h"

namespace llmc::lowering {

//===----------------------------------------------------------------------===//
// Per op
//===----------------------------------------------------------------------===//
//
// Errors of an op lowered to f16 or bf16 scale with the type's rounding
// unit u, the largest relative error of rounding a value to it (f16 2^-11,
// bf16 2^-8): the maximum error with u, the cosine deficit 1 - cosine with
// u^2. So one figure per op serves F16, BF16 and the weight-only modes
// (whose reference holds the dequantized weights: the quantization error
// itself is not compared, only the arithmetic around it), and INT8 for the
// ops it leaves in f16. F32 and INT8's 8-bit Linear layers have absolute
// figures.
//
// Measured by op_conformance_test (its one golden function per op, on the
// bm1684x, bm1688 and cv186x cmodels and the host CPU with AVX-512, in
// every mode each lists; the figures are the worst over chips and modes,
// `one_minus_cosine` and `max_relative_error` in its test.xml) and noted
// on each row as "f32 deficit / error; f16-bf16 deficit / error in units
// of u^2 / u". The bounds are about 4-10 times the cosine deficit and 2-3
// times the error measured, rounded up, and in F32 at least 1e-12 / 1e-6
// (some 16 f32 ulps of the largest value) where a kernel may compute
// otherwise than the reference (in f32 rather than double, sums in another
// order); the error of ops that only move rounded values is bounded by the
// rounding itself. A chip may compute more closely than this, never less.
//
// A chip whose products with 4-bit weights take x in 8 bits per block of
// 64 (ChipDescriptor::eightBitXWith4BitWeights, the host's integer-dot
// prefill) adds, in W4F16 and W4BF16, that rounding's figures to the
// Linear layers' bounds: each x moves by up to 1/254 of its block's largest
// |x|, which is some 1e-5 of cosine deficit and 0.7 % of the largest output
// on a product of random x, about 13 f16 rounding units. It is the error of
// llama.cpp's Q4_0 products, and far below the 4-bit weights' own.
//
// getMinPieceCosine is looser than any op's bound: a piece chains ten to
// twenty of these ops, each reading its predecessor's rounded output, so
// the deficits of independent roundings add up, and residual adds and
// softmax can amplify an input's error relative to their output. The per-op
// bounds localise a regression the piece bound sees only as a small drop.

namespace {

/// A cosine deficit (1 - cosine) and a maximum relative error.
struct Bound {
  double cosineDeficit;
  double relativeError;
};

struct OpToleranceRow {
  llvm::StringLiteral op;
  /// In F32.
  Bound f32;
  /// With f16 or bf16 activations, in units of u^2 and u.
  Bound half;
  /// INT8's 8-bit Linear layers; the other ops compute in f16 (`half`).
  std::optional<Bound> int8;
  llvm::StringLiteral reason;
  /// Added with 4-bit weights on a chip that takes x in 8 bits for them.
  std::optional<Bound> eightBitX = std::nullopt;
};

constexpr Bound kExact = {0, 0};
/// The rounding of the inputs alone moves every value by at most u of it,
/// so the error is at most u and the deficit at most u^2 / 2 (bounded by u^2).
constexpr Bound kRoundedInputs = {1, 1};

// clang-format off
const OpToleranceRow kOpTolerances[] = {
    // Linear layers and MLPs.
    // f32 7.3e-13 / 2.3e-6; 0.28 / 0.98; INT8 2.6e-6 / 2.7e-3; 8-bit x
    // 2.1e-5 / 8.6e-3.
    {"top.MatMul", {1e-11, 1e-5}, {2, 3}, Bound{2e-5, 6e-3},
     "f32: K products (4096 here) summed in another order; f16/bf16: "
     "activations and bias rounded, sums in f32; INT8: an activation on a "
     "step boundary of its 8-bit grid may round one step away; 8-bit x: "
     "each x within 1/254 of its block's largest",
     Bound{1e-4, 2e-2}},
    // f32 2.0e-13 / 7.8e-7; 0.89 / 1.81; INT8 2.6e-5 / 9.6e-3; 8-bit x
    // 1.0e-4 / 1.8e-2.
    {"top.MLP", {1e-11, 5e-6}, {4, 4}, Bound{2e-4, 2e-2},
     "f32: sums in another order; f16/bf16: input, gate, up and their "
     "product rounded before the down projection; INT8: input and "
     "intermediate may round one 8-bit step away; 8-bit x: input and "
     "intermediate each within 1/254 of its block's largest",
     Bound{5e-4, 4e-2}},
    // Row-wise and fused.
    // f32 7.6e-15 / 1.6e-7; 0.18 / 1.00.
    {"top.RMSNorm", {1e-12, 1e-6}, {2, 3}, std::nullopt,
     "f32: the mean of squares in f32 (the reference: double); f16/bf16: "
     "input, weight and result rounded"},
    // f32 2.6e-15 / 1.1e-7; 0.17 / 0.95.
    {"top.LayerNorm", {1e-12, 1e-6}, {2, 3}, std::nullopt,
     "f32: mean and variance in f32 (the reference: double); f16/bf16: "
     "input, weight, bias and result rounded"},
    // f32 exact; 0.21 / 1.09.
    {"top.Rope", {1e-12, 1e-6}, {2, 3}, std::nullopt,
     "f32: each pair's multiply-adds in the kernel's order; f16/bf16: "
     "input, cos, sin and result rounded"},
    // f32 8.7e-14 / 8.0e-7; 0.59 / 1.89 (soft-capped: 3.4e-14 / 4.0e-7;
    // 0.31 / 1.10).
    {"top.FAttention", {1e-11, 5e-6}, {4, 4}, std::nullopt,
     "f32: sums in another order; f16/bf16: q, k, v, mask and result "
     "rounded, scores and softmax in f32"},
    // f32 3.1e-15 / 1.4e-7; 2.75 / 2.33.
    {"top.Softmax", {1e-12, 1e-6}, {12, 5}, std::nullopt,
     "f32: exp in f32 (the reference: double); f16/bf16: scores rounded "
     "before exp, which turns their absolute error into a relative one, "
     "and the result rounded"},
    // f32 exact; 0.09 / 0.81.
    {"top.CumSum", kExact, {2, 3}, std::nullopt,
     "f32: exact, as the op sums in higher precision and rounds once; "
     "f16/bf16: inputs rounded"},
    // Elementwise.
    // f32 exact; 0.19 / 1.44.
    {"top.Add", kExact, {2, 3}, std::nullopt,
     "f16/bf16: both inputs and the sum rounded"},
    // f32 exact; 0.27 / 0.96.
    {"top.Mul", kExact, {2, 3}, std::nullopt,
     "f16/bf16: both inputs and the product rounded"},
    // f32 exact; 0.27 / 1.41.
    {"top.Div", kExact, {2, 3}, std::nullopt,
     "f16/bf16: both inputs and the quotient rounded"},
    // f32 0 / 6.6e-8; 0.19 / 1.19.
    {"top.MulConst", {1e-12, 1e-6}, {2, 3}, std::nullopt,
     "f32: times the f32 constant (the reference: f64); f16/bf16: input, "
     "constant and product rounded"},
    // f32 3.3e-15 / 9.0e-8; 0.18 / 1.09.
    {"top.SiLU", {1e-12, 1e-6}, {2, 3}, std::nullopt,
     "f32: exp in f32 (the reference: double); f16/bf16: input and result "
     "rounded"},
    // f32 1.9e-15 / 4.2e-8; 0.12 / 0.64.
    {"top.GELU", {1e-12, 1e-6}, {2, 3}, std::nullopt,
     "f32: erf in f32 (the reference: double); f16/bf16: input and result "
     "rounded"},
    // f32 8.9e-16 / 6.0e-8; 0.05 / 0.82.
    {"top.Tanh", {1e-12, 1e-6}, {0.5, 2}, std::nullopt,
     "f32: tanh in f32 (the reference: double); f16/bf16: input and result "
     "rounded"},
    // f32 exact; 0.22 / 1.04.
    {"top.Constant", kExact, {2, 3}, std::nullopt,
     "f16/bf16: the constant rounded (then added here)"},
    // Selection and data movement: the values are only moved, so only the
    // rounding of the inputs shows, or nothing.
    // f32 exact; 0.09 / 0.56 (the larger of two inputs).
    {"top.Compare", kExact, kRoundedInputs, std::nullopt,
     "compares the rounded inputs"},
    // f32 exact; 0.09 / 0.54.
    {"top.Where", kExact, kRoundedInputs, std::nullopt,
     "selects among the rounded inputs"},
    // f32 exact; 0.09 / 0.53.
    {"top.Concat", kExact, kRoundedInputs, std::nullopt,
     "joins the rounded inputs"},
    // f32 exact; 0.08 / 0.50.
    {"top.ScatterElements", kExact, kRoundedInputs, std::nullopt,
     "writes the rounded updates into the rounded data"},
    // f32 exact; a float table exact, a tied table (weight-only modes)
    // 0.09 / 0.60.
    {"top.Gather", kExact, kRoundedInputs, std::nullopt,
     "copies rows of the table the reference reads rounded too; a tied "
     "table's rows are dequantized and rounded to the activation type, "
     "which the reference does not round"},
    // Exact in every mode.
    {"top.Slice", kExact, kExact, std::nullopt,
     "copies its input in its input's type"},
    {"top.Reshape", kExact, kExact, std::nullopt,
     "a view of its input"},
    {"top.Arg", kExact, kExact, std::nullopt,
     "indices of the f32 logits, kept f32 in every mode"},
    {"top.TopK", kExact, kExact, std::nullopt,
     "values and indices of the f32 logits, kept f32 in every mode"},
    {"top.Permute", kExact, kExact, std::nullopt,
     "moves its input's elements"},
};
// clang-format on

/// The rounding unit of `mode`'s activation type.
double getRoundingUnit(QuantMode mode) {
  return getActivationType(mode) == quant::FloatType::BF16 ? 0x1p-8 : 0x1p-11;
}

} // namespace

std::optional<OpTolerance> getOpTolerance(llvm::StringRef topOpName,
                                          QuantMode mode,
                                          bool eightBitXWith4BitWeights) {
  for (const OpToleranceRow &row : kOpTolerances) {
    if (topOpName != row.op)
      continue;
    Bound bound = row.f32;
    if (mode == QuantMode::INT8 && row.int8) {
      bound = *row.int8;
    } else if (mode != QuantMode::F32) {
      double unit = getRoundingUnit(mode);
      bound = {row.half.cosineDeficit * unit * unit,
               row.half.relativeError * unit};
    }
    bool fourBitWeights = mode == QuantMode::W4F16 || mode == QuantMode::W4BF16;
    if (eightBitXWith4BitWeights && fourBitWeights && row.eightBitX) {
      bound.cosineDeficit += row.eightBitX->cosineDeficit;
      bound.relativeError += row.eightBitX->relativeError;
    }
    return OpTolerance{1 - bound.cosineDeficit, bound.relativeError,
                       row.reason};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Per piece
//===----------------------------------------------------------------------===//

double getMinPieceCosine(QuantMode mode) {
  switch (mode) {
  case QuantMode::F32:
    // The same f32 operations in another order (dot products in blocks of
    // 16, softmax in key chunks).
    return 0.99999;
  case QuantMode::F16:
  case QuantMode::BF16:
  case QuantMode::W8F16:
  case QuantMode::W8BF16:
  case QuantMode::W4F16:
  case QuantMode::W4BF16:
  case QuantMode::INT8:
    // Activations rounded to f16 or bf16 (INT8: their 8-bit grid, as the
    // reference rounds them too) between the ops the reference computes
    // in f32.
    return 0.999;
  }
  return 0;
}

} // namespace llmc::lowering
