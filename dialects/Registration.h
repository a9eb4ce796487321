//===- Registration.h - every llmc dialect and pass -----------*- C++ -*-===//
//
// One place that knows the full set of llmc dialects and passes, for tools
// (llmc-opt, the llmc driver) that must accept any llmc IR.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_REGISTRATION_H
#define LLMC_DIALECTS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace llmc {

/// Adds top, tpu and the upstream dialects llmc IR uses (func, quant).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every llmc pass and pass pipeline with the global registry.
void registerAllPasses();

} // namespace llmc

#endif // LLMC_DIALECTS_REGISTRATION_H
