//===- llmc-opt.cpp - the llmc pass driver --------------------------------===//
//
// mlir-opt with every llmc dialect and pass, and the common backend's
// top -> tpu lowering: parses IR, runs the passes named on the command line
// and prints the result. The lit tests drive it.
//
//===----------------------------------------------------------------------===//

#include "backends/common/layergroup/Passes.h"
#include "backends/common/lowering/Passes.h"
#include "dialects/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  llmc::registerAllDialects(registry);
  llmc::registerAllPasses();
  llmc::lowering::registerLoweringPasses();
  llmc::lowering::registerTopToTpuPipeline();
  llmc::layergroup::registerLayerGroupPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "llmc pass driver\n", registry));
}
