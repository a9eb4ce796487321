//===- LoweringSupport.h - what the top -> tpu patterns share --*- C++ -*-===//
//
// The per-op precision decision (mode, qtable), element-type casts at the
// boundaries of reduced-precision regions, and the derived weights of
// weight-only quantization, for the common patterns and for any chip's own.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_LOWERINGSUPPORT_H
#define LLMC_BACKENDS_COMMON_LOWERING_LOWERINGSUPPORT_H

#include "backends/common/lowering/LoweringOptions.h"
#include "backends/common/quant/GroupQuantizer.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/GlobPattern.h"

namespace mlir::quant {
class UniformQuantizedType;
} // namespace mlir::quant

namespace llmc::top {
class WeightOp;
class MatMulOp;
class MLPOp;
} // namespace llmc::top

namespace llmc::lowering {

/// Decides the quantization mode of each op from the options and qtable.
class ModeSelector {
public:
  /// `options` must have passed validate().
  explicit ModeSelector(LoweringOptions options);

  /// The mode of `op`: the mode its piece pins (getPinnedMode), else the
  /// last qtable rule matching one of its names (its location names and the
  /// names of the weights it reads), else the options' mode; but for an op
  /// of a piece marked kKeepsFloatWeightsAttr whose Linear weights the
  /// checkpoint all stores in float, a weight-only mode's float mode
  /// (W4F16: F16), as the checkpoint's author left them; and for every op
  /// of a piece marked kFloatByDefaultAttr, the options' float mode.
  QuantMode getMode(mlir::Operation *op) const;
  /// The element type `op` computes in.
  mlir::FloatType getActivationType(mlir::Operation *op) const;
  /// The weight-only scheme of [N, K] `weight` read by `op`, or std::nullopt
  /// when `op`'s mode keeps weights float. A weight the checkpoint stores
  /// quantized keeps its stored scheme (unless `requantize`), whatever bits
  /// and group size the mode and options give the others. The group size is
  /// canonical: 0 for per-channel (a group of K included). A group size
  /// that does not divide K falls back to getFallbackGroupSize's, with a
  /// warning on `op` naming the weight; `groupSize`, when given, replaces
  /// the options' for the weights llmc quantizes itself.
  llvm::Expected<std::optional<quant::QuantScheme>>
  getWeightScheme(mlir::Operation *op, top::WeightOp weight,
                  bool requantize = false,
                  std::optional<int64_t> groupSize = std::nullopt) const;

  /// INT8: the 8-bit type of activation tensor `name` quantized for `op`,
  /// expressing `expressed`, from the calibration table (asymmetric: u8 with
  /// a zero point). Reports on `op`, naming the tensor, when the table has
  /// no entry for it.
  mlir::FailureOr<mlir::quant::UniformQuantizedType>
  getActivationQuantType(mlir::Operation *op, llvm::StringRef name,
                         mlir::FloatType expressed) const;

  const LoweringOptions &getOptions() const { return options; }

private:
  /// The mode a pin or a qtable rule gives `op`, std::nullopt when neither
  /// names it.
  std::optional<QuantMode> getChosenMode(mlir::Operation *op) const;

  LoweringOptions options;
  std::vector<llvm::GlobPattern> globs;
};

/// The group size a weight of `k` input channels is quantized with when
/// `requested` (positive) does not divide `k`: the largest divisor of `k`
/// from `requested` / 2 up, so that scales cost at most twice as much, else
/// 0, per channel. (SigLIP-400M's MLP has K = 4304 = 16 x 269.)
int64_t getFallbackGroupSize(int64_t k, int64_t requested);

/// True when `value` is a [N, K] top.Weight, the weight of a Linear layer
/// that weight-only and INT8 modes quantize.
bool isLinearWeight(mlir::Value value);
/// A MatMul that weight-only modes turn into tpu.A16MatMul and INT8 into
/// tpu.A8MatMul: a Linear layer reading its weight [N, K] transposed.
bool isQuantizableMatMul(top::MatMulOp op);
/// A gated MLP whose three weights are Linear weights.
bool isQuantizableMLP(top::MLPOp op);

/// The location name of `op` (its first NameLoc), "" without one.
std::string getLocationName(mlir::Operation *op);
/// The calibration-table name of the intermediate of a gated MLP whose
/// down projection reads `down`: the Linear's name, its weight's without
/// `.weight` (`model.layers.3.mlp.down_proj`).
std::string getIntermediateName(top::WeightOp down);

/// Adds the INT8 patterns: Linear layers to tpu.A8MatMul and gated MLPs to
/// tpu.A8MLP for ops whose mode is INT8 (Int8Patterns.cpp).
void populateInt8Patterns(mlir::RewritePatternSet &patterns,
                          std::shared_ptr<const ModeSelector> selector);

/// The function attribute with which a piece pins its mode whatever the
/// options and qtable say: `llmc.mode = "F32"` on sample_head, whose
/// sampling must not lose precision.
inline constexpr llvm::StringLiteral kPinnedModeAttr = "llmc.mode";

/// The function attribute (a unit) of a piece whose checkpoint its author
/// quantized and whose float weights were left float on purpose
/// (ModelSpec::floatWeightsByChoice), so weight-only modes do not quantize
/// them.
inline constexpr llvm::StringLiteral kKeepsFloatWeightsAttr =
    "llmc.keeps_float_weights";

/// The function attribute listing (as strings) the weights a piece gathers
/// rows from that a Linear layer of the model also reads: a tied embedding,
/// which the LM head multiplies by. In a weight-only mode such a table is
/// gathered from the Linear's quantized form (tpu.A16Gather), so the binary
/// stores it once.
inline constexpr llvm::StringLiteral kQuantizedTablesAttr =
    "llmc.quantized_tables";

/// Whether `op`'s function lists `table` in kQuantizedTablesAttr.
bool isListedQuantizedTable(mlir::Operation *op, top::WeightOp table);

/// The function attribute (a unit) of a piece that computes in the
/// binary's float type unless a pin or the qtable choose otherwise: a
/// vision tower, which no text calibrates and whose few weights cost
/// little.
inline constexpr llvm::StringLiteral kFloatByDefaultAttr =
    "llmc.float_by_default";

/// The mode the function holding `op` (or `op` itself, a function) pins,
/// std::nullopt when it pins none; an error names a value that is no mode.
llvm::Expected<std::optional<QuantMode>> getPinnedMode(mlir::Operation *op);

/// The MLIR float type of `type`.
mlir::FloatType getFloatType(mlir::MLIRContext *context, quant::FloatType type);

/// `value` with float element type `elementType`. A top.Weight is read in
/// that type (a new top.Weight of the same name: the binary stores it so);
/// any other value gets a tpu.Cast placed right after its definition, shared
/// by every user. Non-float values are returned unchanged.
/// `user` is the op the value is for: a cast or weight read before it is
/// reused.
mlir::Value castElements(mlir::PatternRewriter &rewriter, mlir::Operation *user,
                         mlir::Value value, mlir::Type elementType);

/// The top.None value of the function holding `op`, created at its entry
/// when there is none.
mlir::Value getNone(mlir::OpBuilder &builder, mlir::Operation *op);

/// The derived weights of a weight-only quantized [N, K] `source`.
struct QuantizedWeight {
  /// [N, K] of `!quant.any<storage:expressed>`.
  mlir::Value weight;
  /// [N, K / G] of the activation type.
  mlir::Value scale;
  /// [N, K / G] of ui4 or ui8 when asymmetric; top.None otherwise.
  mlir::Value zeroPoint;
};

/// Creates the derived top.Weight ops of `source` under `scheme` (see
/// quant/DerivedWeightName.h for their names), right after `source` and
/// located at its name; ones already before `user` are reused.
QuantizedWeight createQuantizedWeight(mlir::PatternRewriter &rewriter,
                                      mlir::Operation *user,
                                      top::WeightOp source,
                                      const quant::QuantScheme &scheme);

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_LOWERINGSUPPORT_H
