//===- Registration.h - every llmc dialect and pass -----------*- C++ -*-===//
//
// One place that knows the full set of llmc dialects and their passes, for
// tools (llmc-opt, the llmc driver) that must accept any llmc IR. The
// lowering from top to tpu is a backend's (backends/common/lowering/Passes.h).
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

/// Registers the passes of the top and tpu dialects with the global registry.
void registerAllPasses();

} // namespace llmc

#endif // LLMC_DIALECTS_REGISTRATION_H
