//===- StreamBuilder.h - writing command streams ----------------*- C++ -*-===//
//
// Builds a CommandStream a command at a time: ids are allocated in order,
// each method appends to the right queue and returns the new command's id
// for later `waits`. Also the stream's (deterministic) serialization.
//
//   StreamBuilder b("demo");
//   uint32_t x = b.load(globalTensor(cmd::REGION_IO, 0, 4, 64, cmd::DTYPE_F16),
//                       localX);
//   uint32_t y = b.unary(cmd::SILU, localX, localY, {x});
//   b.store(localY, globalTensor(cmd::REGION_IO, 512, 4, 64, cmd::DTYPE_F16),
//           {y});
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_STREAMBUILDER_H
#define LLMC_BACKENDS_COMMON_CMODEL_STREAMBUILDER_H

#include "backends/common/cmodel/command_stream.pb.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llmc::cmodel {

/// A global tensor; `rowStride` 0 means packed rows.
cmd::GlobalTensor globalTensor(cmd::Region region, uint64_t offset,
                               int64_t rows, int64_t cols, cmd::DType dtype,
                               uint64_t rowStride = 0);

/// A local tensor over lanes [laneBegin, laneBegin + laneCount); `perLane`
/// 0 spreads the split dimension evenly, `rowStride` 0 packs rows to the EU.
cmd::LocalTensor localTensor(uint32_t laneBegin, uint32_t laneCount,
                             uint64_t address, int64_t rows, int64_t cols,
                             cmd::DType dtype,
                             cmd::Layout layout = cmd::LAYOUT_ROWS,
                             int64_t perLane = 0, uint64_t rowStride = 0);

/// The placeholder of an absent optional operand.
inline cmd::LocalTensor absent() { return cmd::LocalTensor(); }

/// A compute command's body; set attributes on the result before adding it.
cmd::Compute makeCompute(cmd::Opcode opcode,
                         absl::Span<const cmd::LocalTensor> inputs,
                         absl::Span<const cmd::LocalTensor> outputs);

class StreamBuilder {
public:
  explicit StreamBuilder(std::string_view name = "");

  //===--------------------------------------------------------------------===//
  // DMA queue
  //===--------------------------------------------------------------------===//

  uint32_t load(const cmd::GlobalTensor &from, const cmd::LocalTensor &to,
                absl::Span<const uint32_t> waits = {});
  uint32_t store(const cmd::LocalTensor &from, const cmd::GlobalTensor &to,
                 absl::Span<const uint32_t> waits = {});
  /// Local row i = row index[i] of `table`.
  uint32_t gather(const cmd::GlobalTensor &table,
                  const cmd::GlobalTensor &index, const cmd::LocalTensor &to,
                  absl::Span<const uint32_t> waits = {});
  /// Row index[i] of `table` = local row i (the last of repeats wins).
  uint32_t scatter(const cmd::LocalTensor &from, const cmd::GlobalTensor &index,
                   const cmd::GlobalTensor &table,
                   absl::Span<const uint32_t> waits = {});

  //===--------------------------------------------------------------------===//
  // Compute queue
  //===--------------------------------------------------------------------===//

  uint32_t compute(const cmd::Compute &compute,
                   absl::Span<const uint32_t> waits = {});

  uint32_t matMul(const cmd::LocalTensor &x, const cmd::LocalTensor &w,
                  const cmd::LocalTensor &y,
                  absl::Span<const uint32_t> waits = {});
  /// `zp` may be absent().
  uint32_t a16MatMul(const cmd::LocalTensor &x, const cmd::LocalTensor &w,
                     const cmd::LocalTensor &scale, const cmd::LocalTensor &zp,
                     const cmd::LocalTensor &y,
                     absl::Span<const uint32_t> waits = {});
  /// ADD or MUL.
  uint32_t binary(cmd::Opcode opcode, const cmd::LocalTensor &a,
                  const cmd::LocalTensor &b, const cmd::LocalTensor &y,
                  absl::Span<const uint32_t> waits = {});
  /// SILU, GELU, RELU, CAST, COPY, SOFTMAX (attribute-free one-input ops).
  uint32_t unary(cmd::Opcode opcode, const cmd::LocalTensor &x,
                 const cmd::LocalTensor &y,
                 absl::Span<const uint32_t> waits = {});

  //===--------------------------------------------------------------------===//
  // Host programs
  //===--------------------------------------------------------------------===//

  /// Appends a host command: `attributes`' opcode and attributes on global
  /// `inputs` and `outputs` (rows = 0: absent). The stream becomes a
  /// version 3 host program, which has no queues.
  void hostCompute(const cmd::Compute &attributes,
                   absl::Span<const cmd::GlobalTensor> inputs,
                   absl::Span<const cmd::GlobalTensor> outputs);

  /// The id the next command will get.
  uint32_t peekNextId() const { return nextId; }
  const cmd::CommandStream &getStream() const { return stream; }
  /// The stream built so far; the builder is left empty.
  cmd::CommandStream take();

private:
  cmd::Command &append(bool dma, absl::Span<const uint32_t> waits);

  cmd::CommandStream stream;
  uint32_t nextId = 1;
};

//===----------------------------------------------------------------------===//
// Serialization
//===----------------------------------------------------------------------===//

/// The stream's protobuf bytes, deterministic: the same stream always gives
/// the same bytes (so binaries are reproducible and can be hashed).
std::string serializeStream(const cmd::CommandStream &stream);
/// Parses bytes from serializeStream.
absl::StatusOr<cmd::CommandStream> parseStream(std::string_view bytes);
/// The protobuf text format, for reading and debugging.
std::string printStream(const cmd::CommandStream &stream);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_STREAMBUILDER_H
