//===- TopDialect.cpp - the top dialect -----------------------------------===//

#include "dialects/top/IR/TopDialect.h"

#include "dialects/top/IR/TopOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace llmc::top;

#include "dialects/top/IR/TopDialect.cpp.inc"
#include "dialects/top/IR/TopEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/top/IR/TopAttrs.cpp.inc"

void TopDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/top/IR/TopOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/top/IR/TopAttrs.cpp.inc"
      >();
}
