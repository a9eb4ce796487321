//===- StreamBuilder.cpp - writing command streams ------------------------===//

#include "backends/common/cmodel/StreamBuilder.h"

#include "support/Strings.h"

#include "absl/types/span.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <climits>

namespace llmc::cmodel {

cmd::GlobalTensor globalTensor(cmd::Region region, uint64_t offset,
                               int64_t rows, int64_t cols, cmd::DType dtype,
                               uint64_t rowStride) {
  cmd::GlobalTensor tensor;
  tensor.set_region(region);
  tensor.set_offset(offset);
  tensor.set_rows(rows);
  tensor.set_cols(cols);
  tensor.set_row_stride_bytes(rowStride);
  tensor.set_dtype(dtype);
  return tensor;
}

cmd::LocalTensor localTensor(uint32_t laneBegin, uint32_t laneCount,
                             uint64_t address, int64_t rows, int64_t cols,
                             cmd::DType dtype, cmd::Layout layout,
                             int64_t perLane, uint64_t rowStride) {
  cmd::LocalTensor tensor;
  tensor.set_lane_begin(laneBegin);
  tensor.set_lane_count(laneCount);
  tensor.set_address(address);
  tensor.set_rows(rows);
  tensor.set_cols(cols);
  tensor.set_layout(layout);
  tensor.set_per_lane(perLane);
  tensor.set_row_stride_bytes(rowStride);
  tensor.set_dtype(dtype);
  return tensor;
}

cmd::Compute makeCompute(cmd::Opcode opcode,
                         absl::Span<const cmd::LocalTensor> inputs,
                         absl::Span<const cmd::LocalTensor> outputs) {
  cmd::Compute compute;
  compute.set_opcode(opcode);
  for (const cmd::LocalTensor &input : inputs)
    *compute.add_inputs() = input;
  for (const cmd::LocalTensor &output : outputs)
    *compute.add_outputs() = output;
  return compute;
}

StreamBuilder::StreamBuilder(std::string_view name) {
  stream.set_version(1);
  stream.set_name(std::string(name));
}

cmd::Command &StreamBuilder::append(bool dma,
                                    absl::Span<const uint32_t> waits) {
  cmd::Command *command =
      dma ? stream.add_dma_queue() : stream.add_compute_queue();
  command->set_id(nextId++);
  for (uint32_t wait : waits)
    command->add_waits(wait);
  return *command;
}

uint32_t StreamBuilder::load(const cmd::GlobalTensor &from,
                             const cmd::LocalTensor &to,
                             absl::Span<const uint32_t> waits) {
  cmd::Command &command = append(true, waits);
  cmd::Dma *dma = command.mutable_dma();
  dma->set_kind(cmd::Dma::LOAD);
  *dma->mutable_global() = from;
  *dma->mutable_local() = to;
  return command.id();
}

uint32_t StreamBuilder::store(const cmd::LocalTensor &from,
                              const cmd::GlobalTensor &to,
                              absl::Span<const uint32_t> waits) {
  cmd::Command &command = append(true, waits);
  cmd::Dma *dma = command.mutable_dma();
  dma->set_kind(cmd::Dma::STORE);
  *dma->mutable_global() = to;
  *dma->mutable_local() = from;
  return command.id();
}

uint32_t StreamBuilder::gather(const cmd::GlobalTensor &table,
                               const cmd::GlobalTensor &index,
                               const cmd::LocalTensor &to,
                               absl::Span<const uint32_t> waits) {
  cmd::Command &command = append(true, waits);
  cmd::Dma *dma = command.mutable_dma();
  dma->set_kind(cmd::Dma::GATHER);
  *dma->mutable_global() = table;
  *dma->mutable_index() = index;
  *dma->mutable_local() = to;
  return command.id();
}

uint32_t StreamBuilder::scatter(const cmd::LocalTensor &from,
                                const cmd::GlobalTensor &index,
                                const cmd::GlobalTensor &table,
                                absl::Span<const uint32_t> waits) {
  cmd::Command &command = append(true, waits);
  cmd::Dma *dma = command.mutable_dma();
  dma->set_kind(cmd::Dma::SCATTER);
  *dma->mutable_global() = table;
  *dma->mutable_index() = index;
  *dma->mutable_local() = from;
  return command.id();
}

uint32_t StreamBuilder::compute(const cmd::Compute &compute,
                                absl::Span<const uint32_t> waits) {
  cmd::Command &command = append(false, waits);
  *command.mutable_compute() = compute;
  return command.id();
}

uint32_t StreamBuilder::matMul(const cmd::LocalTensor &x,
                               const cmd::LocalTensor &w,
                               const cmd::LocalTensor &y,
                               absl::Span<const uint32_t> waits) {
  return compute(makeCompute(cmd::MATMUL, {x, w}, {y}), waits);
}

uint32_t StreamBuilder::a16MatMul(const cmd::LocalTensor &x,
                                  const cmd::LocalTensor &w,
                                  const cmd::LocalTensor &scale,
                                  const cmd::LocalTensor &zp,
                                  const cmd::LocalTensor &y,
                                  absl::Span<const uint32_t> waits) {
  return compute(makeCompute(cmd::A16MATMUL, {x, w, scale, zp}, {y}), waits);
}

uint32_t StreamBuilder::binary(cmd::Opcode opcode, const cmd::LocalTensor &a,
                               const cmd::LocalTensor &b,
                               const cmd::LocalTensor &y,
                               absl::Span<const uint32_t> waits) {
  return compute(makeCompute(opcode, {a, b}, {y}), waits);
}

uint32_t StreamBuilder::unary(cmd::Opcode opcode, const cmd::LocalTensor &x,
                              const cmd::LocalTensor &y,
                              absl::Span<const uint32_t> waits) {
  return compute(makeCompute(opcode, {x}, {y}), waits);
}

void StreamBuilder::hostCompute(const cmd::Compute &attributes,
                                absl::Span<const cmd::GlobalTensor> inputs,
                                absl::Span<const cmd::GlobalTensor> outputs) {
  stream.set_version(3);
  cmd::HostCommand &command = *stream.add_host_commands();
  *command.mutable_compute() = attributes;
  command.mutable_compute()->clear_inputs();
  command.mutable_compute()->clear_outputs();
  for (const cmd::GlobalTensor &input : inputs)
    *command.add_inputs() = input;
  for (const cmd::GlobalTensor &output : outputs)
    *command.add_outputs() = output;
}

cmd::CommandStream StreamBuilder::take() {
  cmd::CommandStream result = std::move(stream);
  stream = cmd::CommandStream();
  stream.set_version(1);
  stream.set_name(result.name());
  nextId = 1;
  return result;
}

//===----------------------------------------------------------------------===//
// Serialization
//===----------------------------------------------------------------------===//

std::string serializeStream(const cmd::CommandStream &stream) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream output(&bytes);
    google::protobuf::io::CodedOutputStream coded(&output);
    // Deterministic: map fields (none today, but a later version may add
    // some) are written in key order, so equal streams give equal bytes.
    coded.SetSerializationDeterministic(true);
    stream.SerializeToCodedStream(&coded);
  }
  return bytes;
}

absl::StatusOr<cmd::CommandStream> parseStream(std::string_view bytes) {
  cmd::CommandStream stream;
  // protobuf takes sizes as int: a larger section would be read truncated.
  if (bytes.size() > size_t(INT_MAX))
    return absl::InvalidArgumentError(
        support::strCat("a command stream of ", bytes.size(),
                        " bytes exceeds protobuf's limit of ", INT_MAX));
  if (!stream.ParseFromArray(bytes.data(), int(bytes.size())))
    return absl::InvalidArgumentError(support::strCat(
        "not a serialized llmc command stream (", bytes.size(), " bytes)"));
  return stream;
}

std::string printStream(const cmd::CommandStream &stream) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(stream, &text);
  return text;
}

} // namespace llmc::cmodel
