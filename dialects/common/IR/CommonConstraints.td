//===- CommonConstraints.td - constraints shared by top and tpu -*- tablegen -*-===//

#ifndef LLMC_DIALECTS_COMMON_COMMONCONSTRAINTS_TD
#define LLMC_DIALECTS_COMMON_COMMONCONSTRAINTS_TD

include "mlir/IR/CommonAttrConstraints.td"

/// A float attribute that must be strictly positive (NaN is rejected): norm
/// epsilons and attention scales.
def PositiveF64Attr : ConfinedAttr<F64Attr, [AttrConstraint<
    CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getValueAsDouble() > 0.0">,
    "whose value is positive">]>;

/// A float attribute that must be zero or positive (NaN is rejected): caps
/// where 0 means none.
def NonNegativeF64Attr : ConfinedAttr<F64Attr, [AttrConstraint<
    CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getValueAsDouble() >= 0.0">,
    "whose value is zero or positive">]>;

#endif // LLMC_DIALECTS_COMMON_COMMONCONSTRAINTS_TD
