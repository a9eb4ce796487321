//===- QuantizedTables.h - tables stored once, in the Linear's form -*- C++ -*-===//
//
// A model that ties its embedding to its LM head reads one weight twice: as
// a table of rows (the embedding pieces) and as a Linear weight (lm_head).
// The pieces compile apart, so the driver tells the embedding pieces which
// of their tables a Linear layer reads; in a weight-only mode their lowering
// then gathers rows from the Linear's quantized form (tpu.A16Gather), and
// the binary stores the weight once.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DRIVER_QUANTIZEDTABLES_H
#define LLMC_DRIVER_QUANTIZEDTABLES_H

#include "frontends/llm/GraphBuilder.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace llmc::driver {

/// The weights the model's LM head reads as Linear weights; none when the
/// model has no lm_head piece.
llvm::Expected<std::vector<std::string>>
getHeadLinearWeights(const llm::GraphBuilder &builder);

/// Lists on `piece`'s function (lowering::kQuantizedTablesAttr) those of
/// `tables` it gathers rows from; a piece gathering from none is left as it
/// is.
void markQuantizedTables(mlir::ModuleOp piece,
                         llvm::ArrayRef<std::string> tables);

} // namespace llmc::driver

#endif // LLMC_DRIVER_QUANTIZEDTABLES_H
