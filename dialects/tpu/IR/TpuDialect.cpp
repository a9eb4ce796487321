//===- TpuDialect.cpp - the tpu dialect -----------------------------------===//

#include "dialects/tpu/IR/TpuDialect.h"

#include "dialects/top/IR/TopDialect.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"

using namespace mlir;
using namespace llmc::tpu;

#include "dialects/tpu/IR/TpuDialect.cpp.inc"

void TpuDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tpu/IR/TpuOps.cpp.inc"
      >();
  registerAttributes();
}

/// `tpu.addr` gives the results of ops outside the dialect (`top.Weight`,
/// `top.Input`) their global-memory ranges; tpu ops have the inherent `addr`
/// instead, so one value never has two addresses.
LogicalResult TpuDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == "tpu.io_bytes" || name == "tpu.activation_bytes") {
    auto bytes = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!bytes || bytes.getInt() < 0)
      return op->emitError("'") << name << "' must be a byte count";
    return success();
  }
  if (name != "tpu.addr")
    return op->emitError("unknown tpu attribute '")
           << attribute.getName().getValue() << "'";
  if (op->getDialect() == this)
    return op->emitOpError("carries its addresses in 'addr', not 'tpu.addr'");
  return verifyResultAddresses(op, attribute.getValue(), "tpu.addr");
}
