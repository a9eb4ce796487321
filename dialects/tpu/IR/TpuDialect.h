//===- TpuDialect.h - the tpu dialect -------------------------*- C++ -*-===//

#ifndef LLMC_DIALECTS_TPU_IR_TPUDIALECT_H
#define LLMC_DIALECTS_TPU_IR_TPUDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/tpu/IR/TpuDialect.h.inc"

#endif // LLMC_DIALECTS_TPU_IR_TPUDIALECT_H
