//===- PieceInputs.h - plausible inputs for one piece -----------*- C++ -*-===//
//
// Inputs for running a piece outside a session, as the chip conformance
// suites and `llmc compare` do: each input filled by its role so that the
// piece computes what it would in a real turn.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DRIVER_PIECEINPUTS_H
#define LLMC_DRIVER_PIECEINPUTS_H

#include "dialects/top/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace llmc::driver {

/// One input per top.Input of `function`, a piece built with `seqLength`
/// and `maxInputLength` (or the prefill length its name ends in), by role:
/// token ids below `vocab`, positions of a prompt (prefill), of a prompt
/// behind half the cache (prefill_kv) or of the middle of the cache
/// (decode) with their masks, recent ids with empty slots (-1) and repeats,
/// fixed sampling parameters, and normal values for the rest (logits three
/// times wider). The same call gives the
/// same inputs.
std::vector<top::Tensor> makePieceInputs(mlir::func::FuncOp function,
                                         int64_t seqLength,
                                         int64_t maxInputLength,
                                         int64_t vocab);

} // namespace llmc::driver

#endif // LLMC_DRIVER_PIECEINPUTS_H
