//===- TopDialect.h - the top dialect -------------------------*- C++ -*-===//

#ifndef LLMC_DIALECTS_TOP_IR_TOPDIALECT_H
#define LLMC_DIALECTS_TOP_IR_TOPDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/top/IR/TopDialect.h.inc"

#endif // LLMC_DIALECTS_TOP_IR_TOPDIALECT_H
