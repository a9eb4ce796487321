//===- TpuAttrs.h - enums and attributes of the tpu dialect ---*- C++ -*-===//

#ifndef LLMC_DIALECTS_TPU_IR_TPUATTRS_H
#define LLMC_DIALECTS_TPU_IR_TPUATTRS_H

#include "dialects/tpu/IR/TpuDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/tpu/IR/TpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tpu/IR/TpuAttrs.h.inc"

#endif // LLMC_DIALECTS_TPU_IR_TPUATTRS_H
