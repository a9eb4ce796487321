//===- Passes.h - passes on the top dialect -------------------*- C++ -*-===//

#ifndef LLMC_DIALECTS_TOP_TRANSFORMS_PASSES_H
#define LLMC_DIALECTS_TOP_TRANSFORMS_PASSES_H

#include "dialects/top/IR/TopDialect.h"
#include "mlir/Pass/Pass.h"

namespace llmc::top {

#define GEN_PASS_DECL
#include "dialects/top/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/top/Transforms/Passes.h.inc"

} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_TRANSFORMS_PASSES_H
