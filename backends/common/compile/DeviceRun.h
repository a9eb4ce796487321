//===- DeviceRun.h - a compiled piece on its chip's device ------*- C++ -*-===//
//
// Running one lowered piece outside a binary, as the chip conformance suites
// and `llmc compare` do: the coeff region of the piece, one run of its
// stream on a device with inputs written at their tpu.addr, the encodings of
// device tensors, and the cosine they are compared with.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_COMPILE_DEVICERUN_H
#define LLMC_BACKENDS_COMMON_COMPILE_DEVICERUN_H

#include "backends/common/cmodel/StreamDevice.h"
#include "backends/common/codegen/GlobalViews.h"
#include "dialects/top/Interpreter/Tensor.h"
#include "plugins/WeightSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <vector>

namespace llmc::compile {

/// `tensor`'s values as a piece input of `type` (f32, f16, bf16 or i32).
std::vector<uint8_t> encode(const top::Tensor &tensor, mlir::Type type);

/// A float piece output of `type` widened to f32.
std::vector<float> decode(llvm::ArrayRef<uint8_t> bytes, mlir::Type type);

/// The values of a device tensor of `type`: floats widened to f32, an 8-bit
/// per-tensor quantized type dequantized, i32 as it is; std::nullopt for
/// any other element type.
std::optional<top::Tensor> decodeTensor(llvm::ArrayRef<uint8_t> bytes,
                                        mlir::Type type);

/// The cosine similarity of `a` and `b` (1 when both are zero).
double cosine(llvm::ArrayRef<float> a, llvm::ArrayRef<float> b);

/// The coeff region of lowered `module`: every weight and constant it
/// reads, 64-byte aligned, at the offsets it records in `offsets`.
llvm::Expected<std::vector<uint8_t>>
packCoeff(mlir::ModuleOp module, const plugins::WeightSource &weights,
          codegen::WeightOffsets &offsets);

/// Runs `stream` of placed piece `function` on `device` with `coeff` (which
/// the device reads in place) and `inputs` written at their tpu.addr; the
/// outputs' bytes, in order.
llvm::Expected<std::vector<std::vector<uint8_t>>>
runOnDevice(cmodel::StreamDevice &device, mlir::func::FuncOp function,
            const cmd::CommandStream &stream, llvm::ArrayRef<uint8_t> coeff,
            llvm::ArrayRef<top::Tensor> inputs);

} // namespace llmc::compile

#endif // LLMC_BACKENDS_COMMON_COMPILE_DEVICERUN_H
