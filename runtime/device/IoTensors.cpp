//===- IoTensors.cpp - host tensors in a piece's IO region ----------------===//

#include "runtime/device/IoTensors.h"

#include "backends/common/cmodel/Convert.h"
#include "support/Strings.h"

#include "absl/base/config.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace llmc::device {

// f32 and i32 elements are copied as they are.
#ifndef ABSL_IS_LITTLE_ENDIAN
#error "the IO layout is little-endian, as the host must be"
#endif

namespace {
enum class IoType { F32, I32, F16, BF16 };
} // namespace

static std::optional<IoType> parseIoType(std::string_view dtype) {
  if (dtype == "f32")
    return IoType::F32;
  if (dtype == "i32")
    return IoType::I32;
  if (dtype == "f16")
    return IoType::F16;
  if (dtype == "bf16")
    return IoType::BF16;
  return std::nullopt;
}

static uint64_t getElementBytes(IoType type) {
  return type == IoType::F16 || type == IoType::BF16 ? 2 : 4;
}

static std::string describeSlot(const binary::Tensor &slot) {
  return slot.dtype() + top::formatShape(absl::MakeConstSpan(
                            slot.shape().data(), slot.shape().size()));
}

static absl::Status ioError(const binary::Tensor &slot,
                            std::string_view problem) {
  return absl::InvalidArgumentError(support::strCat(
      "tensor '", slot.name(), "' (", describeSlot(slot), "): ", problem));
}

absl::Status checkIoTensor(const binary::Tensor &slot, uint64_t ioBytes) {
  std::optional<IoType> type = parseIoType(slot.dtype());
  if (!type)
    return ioError(slot, support::strCat("element type '", slot.dtype(),
                                         "' is not one the runtime moves "
                                         "(f32, i32, f16, bf16)"));
  uint64_t elements = 1;
  for (int64_t dim : slot.shape()) {
    if (dim < 0 || (dim && elements > UINT64_MAX / 8 / uint64_t(dim)))
      return ioError(slot, "invalid shape");
    elements *= uint64_t(dim);
  }
  if (slot.bytes() != elements * getElementBytes(*type))
    return ioError(slot, support::strCat(slot.bytes(), " bytes, not the ",
                                         elements * getElementBytes(*type),
                                         " its shape takes"));
  if (slot.io_offset() > ioBytes || slot.bytes() > ioBytes - slot.io_offset())
    return ioError(slot, support::strCat("bytes [", slot.io_offset(), ", ",
                                         slot.io_offset() + slot.bytes(),
                                         ") lie outside the ", ioBytes,
                                         "-byte IO region"));
  return absl::OkStatus();
}

/// Stores `value`'s elements at `out` in `type`.
static void storeElements(IoType type, const top::Tensor &value, uint8_t *out) {
  if (type == IoType::F32 || type == IoType::I32) {
    std::memcpy(out, value.getRawData(),
                value.getNumElements() * getElementBytes(type));
    return;
  }
  absl::Span<const float> values = value.getF32();
  cmodel::narrowElements(type == IoType::F16 ? cmd::DTYPE_F16 : cmd::DTYPE_BF16,
                         values.data(), values.size(), out);
}

absl::Status writeIoTensor(const binary::Tensor &slot, const top::Tensor &value,
                           absl::Span<uint8_t> io) {
  IoType type = *parseIoType(slot.dtype());
  absl::Span<const int64_t> shape = value.getShape();
  if (!std::equal(shape.begin(), shape.end(), slot.shape().begin(),
                  slot.shape().end()) ||
      value.isI32() != (type == IoType::I32))
    return ioError(slot, "given " + value.describe());
  storeElements(type, value, io.data() + slot.io_offset());
  return absl::OkStatus();
}

absl::Status writeIoTensorRows(const binary::Tensor &slot,
                               const top::Tensor &rows, int64_t firstRow,
                               absl::Span<uint8_t> io) {
  IoType type = *parseIoType(slot.dtype());
  absl::Span<const int64_t> shape = rows.getShape();
  bool fits = slot.shape_size() >= 2 &&
              shape.size() == size_t(slot.shape_size()) && !rows.isI32() &&
              type != IoType::I32 && firstRow >= 0 &&
              firstRow + shape[1] <= slot.shape(1);
  for (int i = 0; fits && i < slot.shape_size(); ++i)
    fits = i == 1 || shape[i] == slot.shape(i);
  if (!fits)
    return ioError(slot, support::strCat("given rows [", firstRow, ", ...) as ",
                                         rows.describe()));
  int64_t rowElements = shape[1] ? rows.getNumElements() / shape[1] : 0;
  storeElements(type, rows,
                io.data() + slot.io_offset() +
                    firstRow * rowElements * getElementBytes(type));
  return absl::OkStatus();
}

top::Tensor readIoTensor(const binary::Tensor &slot,
                         absl::Span<const uint8_t> io) {
  IoType type = *parseIoType(slot.dtype());
  absl::Span<const int64_t> shape(slot.shape().data(), slot.shape().size());
  top::Tensor value(type == IoType::I32 ? top::ElementKind::I32
                                        : top::ElementKind::F32,
                    shape);
  const uint8_t *in = io.data() + slot.io_offset();
  if (type == IoType::F32 || type == IoType::I32) {
    std::memcpy(value.getRawData(), in, slot.bytes());
    return value;
  }
  absl::Span<float> values = value.getF32();
  cmodel::widenElements(type == IoType::F16 ? cmd::DTYPE_F16 : cmd::DTYPE_BF16,
                        in, 0, values.size(), values.data());
  return value;
}

} // namespace llmc::device
