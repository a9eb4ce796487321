//===- TopOps.h - operations and attributes of the top dialect -*- C++ -*-===//

#ifndef LLMC_DIALECTS_TOP_IR_TOPOPS_H
#define LLMC_DIALECTS_TOP_IR_TOPOPS_H

#include "dialects/common/IR/ShapeInferenceInterface.h"
#include "dialects/top/IR/TopDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/top/IR/TopEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/top/IR/TopAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/top/IR/TopOps.h.inc"

#endif // LLMC_DIALECTS_TOP_IR_TOPOPS_H
