//===- HostCommands.h - one host command on global memory -------*- C++ -*-===//
//
// The operands of a host command resolved to host pointers (after their
// bounds were checked), and one function per family of opcodes that
// computes them. Float math widens to f32, computes in f32 and narrows once
// to the output type, as docs/command-stream.md states per opcode.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_DEVICE_HOSTCOMMANDS_H
#define LLMC_BACKENDS_HOST_DEVICE_HOSTCOMMANDS_H

#include "backends/common/cmodel/Geometry.h"
#include "backends/common/cmodel/command_stream.pb.h"
#include "backends/host/kernels/Kernels.h"

#include "support/Status.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace llmc::host {

class WorkerPool;

/// A global tensor of a command, in host memory; absent when `data` is
/// null (an optional operand the command leaves out).
struct TensorRef {
  uint8_t *data = nullptr;
  cmodel::GlobalGeometry geometry;

  bool present() const { return data != nullptr; }
  int64_t rows() const { return geometry.rows; }
  int64_t cols() const { return geometry.cols; }
  cmd::DType dtype() const { return geometry.dtype; }
  uint8_t *row(int64_t r) const { return data + r * geometry.stride; }
  /// Row `r`, or row 0 of a one-row tensor broadcast over rows.
  uint8_t *broadcastRow(int64_t r) const { return row(rows() == 1 ? 0 : r); }
  /// Widens elements [0, count) of row `r` to f32, broadcasting a [1, 1]
  /// tensor over the row and a [1, cols] one over rows.
  void widenRow(int64_t r, int64_t count, float *out) const;
  /// Narrows `values` into row `r` (a float type).
  void narrowRow(int64_t r, const float *values) const;
  /// Narrows `count` values into row `r` from column `first` on.
  void narrowElements(int64_t r, int64_t first, int64_t count,
                      const float *values) const;
};

/// Held inline: a decode step resolves a few hundred commands' operands.
struct HostOperands {
  std::vector<TensorRef> inputs;
  std::vector<TensorRef> outputs;

  const TensorRef &in(size_t i) const;
  const TensorRef &out(size_t i) const;
};

/// The f32 temporaries of a command, kept from one command to the next so a
/// decode step's hundreds of commands do not allocate (and fault in) them
/// again: per thread, `count` floats in slot `buffer`, valid until the
/// thread asks for that slot again.
enum class Buffer {
  Input,
  Output,
  Keys,
  Values,
  Mask,
  Bias,
  RowA,
  RowB,
  RowOut,
  Count
};
float *getBuffer(Buffer buffer, int64_t count);

/// The fewest elements a thread takes when a command's work spreads over
/// the pool: smaller pieces are not worth waking the threads.
inline constexpr int64_t kElementsPerThread = 16384;

/// The fewest rows of `cols` elements a thread takes (kElementsPerThread).
inline int64_t getRowGrain(int64_t cols) {
  return std::max<int64_t>(1, kElementsPerThread / std::max<int64_t>(cols, 1));
}

/// An error naming the failing operation of a command.
absl::Status commandError(std::string_view message);

/// MATMUL or A16MATMUL commands in a row that read one x with weights of
/// one layout (a layer's q, k and v), run as one product call: x is laid
/// out once and the threads share out the rows of all the weights, so the
/// small ones pay one start of the weight stream and one wait for the
/// threads, not one each. Each output is computed as it would be alone.
class MatMulGroup {
public:
  /// Checks the operands of a MATMUL or A16MATMUL and adds it to the group,
  /// taking `operands`; false, leaving the group and `operands` as they
  /// are, when it does not fit: another opcode, x or weight layout, or an
  /// output that one of the commands would read were they run in turn.
  absl::StatusOr<bool> tryAdd(const cmd::Compute &compute,
                              HostOperands &&operands);
  /// Runs the commands added so far and empties the group.
  void run(WorkerPool &pool);

private:
  struct Member {
    const cmd::Compute *compute;
    HostOperands operands;
    Weights weights;
  };
  std::vector<Member> members;
};

/// GATED_MATMUL and ATTENTION (MATMUL and A16MATMUL run as a MatMulGroup).
absl::Status runLinear(const cmd::Compute &compute,
                       const HostOperands &operands, WorkerPool &pool);
/// Elementwise ops, norms, rope, softmax, casts, comparisons, selections and
/// running sums.
absl::Status runRowwise(const cmd::Compute &compute,
                        const HostOperands &operands, WorkerPool &pool);
/// COPY, GATHER, SCATTER, ARGMAX and TOPK.
absl::Status runDataMovement(const cmd::Compute &compute,
                             const HostOperands &operands);

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_DEVICE_HOSTCOMMANDS_H
