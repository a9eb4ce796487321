//===- TpuTraits.h - op traits shared by the tpu ops ----------*- C++ -*-===//
//
// Checks that every tpu op shares: quantized element types agree with the
// shapes that carry them, chip annotations (`lg`, `addr`, `core_split`)
// agree with the op and its layer group, and elementwise ops keep their
// element type up to quantization parameters.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TPU_IR_TPUTRAITS_H
#define LLMC_DIALECTS_TPU_IR_TPUTRAITS_H

#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace llmc::tpu {

/// Checks a per-axis or sub-channel quantized element type of the ranked
/// tensor `type` against its shape: the quantized dimensions exist, and there
/// is one scale per channel or per block. Other types always pass.
llvm::LogicalResult
verifyQuantizedShape(mlir::Type type,
                     llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The bytes a statically shaped tensor of ints, floats or quantized
/// storage occupies packed (4-bit elements share bytes; an i1 mask takes a
/// byte per element); std::nullopt for anything else.
std::optional<int64_t> getTensorBytes(mlir::Type type);

/// Checks `addr`, the global-memory ranges of `op`'s results: one
/// `#tpu.mem` per result, each at least as large as its result.
llvm::LogicalResult verifyResultAddresses(mlir::Operation *op,
                                          mlir::Attribute addr,
                                          llvm::StringRef name);

llvm::LogicalResult verifyQuantizedTypesMatchShapes(mlir::Operation *op);
llvm::LogicalResult verifyChipAnnotations(mlir::Operation *op);
llvm::LogicalResult verifySameElementTypeUpToQuantParams(mlir::Operation *op);

/// Every quantized operand and result type fits its shape.
template <typename ConcreteType>
class QuantizedTypesMatchShapes
    : public mlir::OpTrait::TraitBase<ConcreteType, QuantizedTypesMatchShapes> {
public:
  static llvm::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyQuantizedTypesMatchShapes(op);
  }
};

/// The optional `lg`, `addr` and `core_split` attributes are consistent.
template <typename ConcreteType>
class ChipAnnotations
    : public mlir::OpTrait::TraitBase<ConcreteType, ChipAnnotations> {
public:
  static llvm::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyChipAnnotations(op);
  }
};

/// Tensor operands and results share one element type, except that
/// quantized types may differ in scales and zero points.
template <typename ConcreteType>
class SameElementTypeUpToQuantParams
    : public mlir::OpTrait::TraitBase<ConcreteType,
                                      SameElementTypeUpToQuantParams> {
public:
  static llvm::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifySameElementTypeUpToQuantParams(op);
  }
};

} // namespace llmc::tpu

#endif // LLMC_DIALECTS_TPU_IR_TPUTRAITS_H
