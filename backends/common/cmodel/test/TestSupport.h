//===- TestSupport.h - helpers for cmodel tests -----------------*- C++ -*-===//
//
// Chips to test on, a harness that places tensors in global and local
// memory and runs a stream, references independent of the cmodel (double
// arithmetic, rounding by std::nearbyint) and trap inspection.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_TEST_TESTSUPPORT_H
#define LLMC_BACKENDS_COMMON_CMODEL_TEST_TESTSUPPORT_H

#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/StreamBuilder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llmc::cmodel::test {

/// The BM1684X's figures (64 lanes x 256 KiB, EU 64 B, 1 GHz, 16 TFLOPS
/// F16/BF16, 2 TFLOPS F32, 32 TOPS INT8, 64 GB/s), restated so that the
/// common cmodel's tests do not depend on a backend.
plugins::ChipDescriptor getBm1684xLikeChip();
/// The same rates with 4 lanes of 16 KiB, to make traps easy to provoke.
plugins::ChipDescriptor getSmallChip();

/// The value of `x` rounded to nearest even in a binary format with
/// `precision` significand bits and minimum normal exponent `minExponent`
/// (subnormals kept), overflowing to infinity past `maxFinite`. Computed
/// with double arithmetic and std::nearbyint: independent of Float16.h.
double roundToFormat(double x, int precision, int minExponent,
                     double maxFinite);
double roundF16(double x);
double roundBF16(double x);
/// Rounds as storing in `type` does (identity for F32 beyond float rounding).
double roundTo(cmd::DType type, double x);

/// Deterministic pseudo-random values uniform in [low, high).
std::vector<float> randomValues(size_t count, uint32_t seed, float low = -1,
                                float high = 1);

/// The kind of a Trap error (or fails the test and returns BadStream);
/// `message`, when given, receives the text.
TrapKind getTrapKind(const absl::Status &status,
                     std::string *message = nullptr);

/// Places tensors, runs streams and reads results on one CModel.
class Harness {
public:
  explicit Harness(const plugins::ChipDescriptor &chip, unsigned threads = 2,
                   uint64_t ioBytes = 8 << 20);

  CModel &getModel() { return model; }
  StreamBuilder &getBuilder() { return builder; }

  /// A tensor of the io region holding `values` stored as `type`.
  cmd::GlobalTensor put(cmd::DType type, int64_t rows, int64_t cols,
                        const std::vector<float> &values);
  cmd::GlobalTensor putInts(cmd::DType type, int64_t rows, int64_t cols,
                            const std::vector<int32_t> &values);
  /// A fresh zeroed tensor of the io region.
  cmd::GlobalTensor reserve(cmd::DType type, int64_t rows, int64_t cols);
  std::vector<float> get(const cmd::GlobalTensor &tensor);
  std::vector<int32_t> getInts(const cmd::GlobalTensor &tensor);

  /// A local tensor at the next free per-lane address.
  cmd::LocalTensor local(cmd::DType type, int64_t rows, int64_t cols,
                         cmd::Layout layout, uint32_t laneBegin,
                         uint32_t laneCount, int64_t perLane = 0);

  /// Loads `tensor` into `into` and returns the load's id.
  uint32_t load(const cmd::GlobalTensor &tensor, const cmd::LocalTensor &into);
  /// Stores `from` into a fresh global tensor after command `after`.
  cmd::GlobalTensor store(const cmd::LocalTensor &from, uint32_t after);

  /// Runs the builder's stream (which it takes).
  absl::StatusOr<RunStats> run();

  /// Loads every (global, local) pair of `loads`, runs `compute` after all
  /// the loads, stores each present output into a fresh global tensor and
  /// runs the stream: the stored tensors, in output order.
  absl::StatusOr<std::vector<cmd::GlobalTensor>> runOp(
      const cmd::Compute &compute,
      const std::vector<std::pair<cmd::GlobalTensor, cmd::LocalTensor>> &loads);
  /// The statistics of the last run.
  const RunStats &getStats() const { return stats; }

private:
  uint64_t allocateGlobal(uint64_t bytes);

  CModel model;
  StreamBuilder builder;
  uint64_t nextGlobal = 0;
  uint64_t nextLocal = 0;
  RunStats stats;
};

/// Expects |got[i] - want[i]| <= tolerance * max(1, |want[i]|) for all i.
void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 double tolerance);
/// The values as float32 stores them in `type` would read back (the inputs a
/// reference computes with).
std::vector<double> asStored(cmd::DType type, const std::vector<float> &values);

} // namespace llmc::cmodel::test

/// Runs `harness`'s stream into a new `RunStats stats`; on a trap, fails
/// the test with the trap's message and returns from it.
#define LLMC_ASSERT_RUN(harness, stats)                                        \
  [[maybe_unused]] ::llmc::cmodel::RunStats stats;                             \
  {                                                                            \
    auto result_ = (harness).run();                                            \
    ASSERT_TRUE(result_.ok()) << result_.status().message();                   \
    stats = *result_;                                                          \
  }

#endif // LLMC_BACKENDS_COMMON_CMODEL_TEST_TESTSUPPORT_H
