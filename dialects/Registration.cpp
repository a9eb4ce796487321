//===- Registration.cpp - every llmc dialect and pass ---------------------===//

#include "dialects/Registration.h"

#include "dialects/top/IR/TopDialect.h"
#include "dialects/top/Transforms/Passes.h"
#include "dialects/tpu/IR/TpuDialect.h"
#include "dialects/tpu/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void llmc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::func::FuncDialect, mlir::quant::QuantDialect,
                  top::TopDialect, tpu::TpuDialect>();
}

void llmc::registerAllPasses() {
  top::registerTopPasses();
  tpu::registerTpuPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
}
