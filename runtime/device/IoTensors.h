//===- IoTensors.h - host tensors in a piece's IO region --------*- C++ -*-===//
//
// A compiled piece reads its inputs from, and writes its outputs to, its IO
// region, each tensor at the offset the manifest gives (`Tensor.io_offset`),
// little-endian, in the manifest's element type. These functions move host
// tensors (float32 or int32) in and out of that layout: f32 and i32 as they
// are, f16 and bf16 rounded to nearest even on the way in and widened
// exactly on the way out.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_DEVICE_IOTENSORS_H
#define LLMC_RUNTIME_DEVICE_IOTENSORS_H

#include "dialects/top/Interpreter/Tensor.h"
#include "runtime/format/llmc_binary.pb.h"

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace llmc::device {

/// Checks that `slot` has an element type the runtime moves (f32, i32, f16,
/// bf16), that its bytes match its shape, and that it lies within an IO
/// region of `ioBytes`.
absl::Status checkIoTensor(const binary::Tensor &slot, uint64_t ioBytes);

/// Writes `value` at `slot` of `io`. Its shape must equal the slot's and its
/// kind fit the element type (int32 for i32, float32 otherwise). `slot` must
/// have passed checkIoTensor for `io`'s size.
absl::Status writeIoTensor(const binary::Tensor &slot, const top::Tensor &value,
                           absl::Span<uint8_t> io);

/// Writes `rows` as the rows [firstRow, firstRow + n) of dimension 1 of
/// `slot` (a history [1, slots, ...]), leaving its other rows as they are.
/// `rows` must have the slot's shape but for that dimension.
absl::Status writeIoTensorRows(const binary::Tensor &slot,
                               const top::Tensor &rows, int64_t firstRow,
                               absl::Span<uint8_t> io);

/// The tensor at `slot` of `io`, which must have passed checkIoTensor.
top::Tensor readIoTensor(const binary::Tensor &slot,
                         absl::Span<const uint8_t> io);

} // namespace llmc::device

#endif // LLMC_RUNTIME_DEVICE_IOTENSORS_H
