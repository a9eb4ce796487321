//===- Passes.h - passes and pipelines on the tpu dialect ------*- C++ -*-===//

#ifndef LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_H
#define LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_H

#include "dialects/top/IR/TopDialect.h"
#include "dialects/tpu/IR/TpuDialect.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Pass/Pass.h"

namespace llmc::tpu {

#define GEN_PASS_DECL
#include "dialects/tpu/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/tpu/Transforms/Passes.h.inc"

} // namespace llmc::tpu

#endif // LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_H
