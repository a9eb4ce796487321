//===- TpuAttrs.cpp - attributes of the tpu dialect -----------------------===//

#include "dialects/tpu/IR/TpuAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace llmc::tpu;

#include "dialects/tpu/IR/TpuEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tpu/IR/TpuAttrs.cpp.inc"

void TpuDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/tpu/IR/TpuAttrs.cpp.inc"
      >();
}

using EmitErrorFn = function_ref<InFlightDiagnostic()>;

/// Fails with a diagnostic naming `field` unless `value` >= `minimum`.
static LogicalResult checkAtLeast(EmitErrorFn emitError, StringRef attr,
                                  StringRef field, int64_t value,
                                  int64_t minimum) {
  if (value >= minimum)
    return success();
  return emitError() << "#tpu." << attr << " " << field
                     << " must be >= " << minimum << ", got " << value;
}

LogicalResult LayerGroupAttr::verify(EmitErrorFn emitError, int64_t id,
                                     int64_t stage, int64_t timestep,
                                     int64_t localAddr, int64_t localSize,
                                     int64_t bank, int64_t rowsPerLane) {
  return success(
      succeeded(checkAtLeast(emitError, "lg", "id", id, 0)) &&
      succeeded(checkAtLeast(emitError, "lg", "stage", stage, 0)) &&
      succeeded(checkAtLeast(emitError, "lg", "timestep", timestep, 0)) &&
      succeeded(checkAtLeast(emitError, "lg", "local_addr", localAddr, 0)) &&
      succeeded(checkAtLeast(emitError, "lg", "local_size", localSize, 1)) &&
      succeeded(checkAtLeast(emitError, "lg", "bank", bank, 0)) &&
      succeeded(
          checkAtLeast(emitError, "lg", "rows_per_lane", rowsPerLane, 0)));
}

LogicalResult MemAttr::verify(EmitErrorFn emitError, MemRegion region,
                              int64_t offset, int64_t size) {
  return success(
      succeeded(checkAtLeast(emitError, "mem", "offset", offset, 0)) &&
      succeeded(checkAtLeast(emitError, "mem", "size", size, 1)));
}

LogicalResult CoreSplitAttr::verify(EmitErrorFn emitError, int64_t cores,
                                    int64_t axis) {
  return success(
      succeeded(checkAtLeast(emitError, "core_split", "cores", cores, 1)) &&
      succeeded(checkAtLeast(emitError, "core_split", "axis", axis, 0)));
}
