//===- LoweredWeights.h - top pieces on a lowering's weights -*- C++ -*-===//
//
// The reference for a quantized binary is the top interpreter computing in
// f32 on exactly the weights the binary holds: quantized weights
// dequantized with their stored scales, float weights rounded to f16 or
// bf16. retargetToLoweredWeights lowers a copy of a top piece, sees how
// each weight is read there, and renames the piece's top.Weight ops to the
// derived names of those values (quant/DerivedWeightName.h):
//
//   W  quantized by the lowering  ->  W#w4_g64_sym_f16  (dequantized)
//   W  read as f16 / bf16         ->  W#f16, W#bf16     (rounded)
//   W  read as f32                ->  W                 (unchanged)
//
// A DerivedWeightSource over the checkpoint then serves those names. The
// ops are otherwise unchanged. Renaming rather than serving the original
// names is what lets one tensor differ between pieces: a tied embedding is
// read in f16 by the embedding's Gather and quantized by the LM head.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_LOWEREDWEIGHTS_H
#define LLMC_BACKENDS_COMMON_LOWERING_LOWEREDWEIGHTS_H

#include "backends/common/lowering/LoweringOptions.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace llmc::lowering {

/// Renames the weights of top piece `module` as above, after lowering a
/// copy with the common top -> tpu pipeline under `options`. Fails when the
/// lowering fails (its diagnostics are the error) or reads one weight in two
/// ways within the piece. The lowering's warnings are added to `warnings`
/// when given.
llvm::Error retargetToLoweredWeights(mlir::ModuleOp module,
                                     const LoweringOptions &options,
                                     std::vector<std::string> *warnings =
                                         nullptr);

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_LOWEREDWEIGHTS_H
