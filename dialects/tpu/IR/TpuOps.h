//===- TpuOps.h - operations and attributes of the tpu dialect -*- C++ -*-===//

#ifndef LLMC_DIALECTS_TPU_IR_TPUOPS_H
#define LLMC_DIALECTS_TPU_IR_TPUOPS_H

#include "dialects/common/IR/ShapeInferenceInterface.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuAttrs.h"
#include "dialects/tpu/IR/TpuDialect.h"
#include "dialects/tpu/IR/TpuTraits.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/tpu/IR/TpuOps.h.inc"

#endif // LLMC_DIALECTS_TPU_IR_TPUOPS_H
