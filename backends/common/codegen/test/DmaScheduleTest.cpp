//===- DmaScheduleTest.cpp - weight loads moved ahead of other DMAs -------===//
//
// Two projections in a row, emitted as codegen emits them: the first's
// store waits for its computation, and the second's weights queue behind
// that store and the load of its x. The pass must move the weights ahead,
// give the second computation the wait queue order used to give it, and
// leave the results bit for bit as they were.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/DmaSchedule.h"

#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/test/TestSupport.h"
#include "backends/common/codegen/Emitter.h"
#include "plugins/Float16.h"

#include "absl/algorithm/container.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace llmc::codegen {
namespace {

constexpr int64_t kK = 256, kN = 1024, kN2 = 256;

cmd::GlobalTensor global(cmd::Region region, uint64_t offset, int64_t rows,
                         int64_t cols) {
  cmd::GlobalTensor tensor;
  tensor.set_region(region);
  tensor.set_offset(offset);
  tensor.set_rows(rows);
  tensor.set_cols(cols);
  tensor.set_dtype(cmd::DTYPE_F16);
  return tensor;
}

/// x [1, K] -> y1 = x w1^T [1, N] -> y2 = y1 w2^T [1, N2], each result
/// stored to the io region: x at 0, y1 after it, y2 after that.
struct TwoProjections {
  cmd::GlobalTensor x = global(cmd::REGION_IO, 0, 1, kK);
  cmd::GlobalTensor y1 = global(cmd::REGION_IO, 2 * kK, 1, kN);
  cmd::GlobalTensor y2 = global(cmd::REGION_IO, 2 * (kK + kN), 1, kN2);
  cmd::GlobalTensor w1 = global(cmd::REGION_COEFF, 0, kN, kK);
  cmd::GlobalTensor w2 = global(cmd::REGION_COEFF, 2 * kN * kK, kN2, kN);
  uint32_t y1Load = 0, w2Load = 0, y1Store = 0;

  cmd::CommandStream emit(const plugins::ChipDescriptor &chip) {
    Emitter emitter(chip, "two-projections");
    int64_t lanes = chip.npuLanes;
    auto projection = [&](const cmd::GlobalTensor &in,
                          const cmd::GlobalTensor &weights,
                          const cmd::GlobalTensor &out) {
      cmd::LocalTensor x =
          emitter.replicated(1, in.cols(), cmd::DTYPE_F16, lanes);
      cmd::LocalTensor w =
          emitter.rowsLayout(weights.rows(), weights.cols(), cmd::DTYPE_F16,
                             weights.rows() / lanes);
      cmd::LocalTensor y = emitter.colsLayout(1, weights.rows(), cmd::DTYPE_F16,
                                              weights.rows() / lanes);
      for (cmd::LocalTensor *tensor : {&x, &w, &y})
        EXPECT_FALSE(static_cast<bool>(emitter.ring(*tensor)));
      emitter.load(in, x);
      emitter.load(weights, w);
      emitter.compute(cmodel::makeCompute(cmd::MATMUL, {x, w}, {y}));
      emitter.store(y, out);
    };
    projection(x, w1, y1);
    projection(y1, w2, y2);
    cmd::CommandStream stream = emitter.finish();
    // Issue order: x, w1, y1's store, y1's load, w2, y2's store.
    y1Store = stream.dma_queue(2).id();
    y1Load = stream.dma_queue(3).id();
    w2Load = stream.dma_queue(4).id();
    return stream;
  }
};

int positionOf(const cmd::CommandStream &stream, uint32_t id) {
  for (int i = 0; i < stream.dma_queue_size(); ++i)
    if (stream.dma_queue(i).id() == id)
      return i;
  return -1;
}

const cmd::Command *findReader(const cmd::CommandStream &stream,
                               uint32_t dmaId) {
  for (const cmd::Command &command : stream.compute_queue())
    if (absl::c_linear_search(command.waits(), dmaId))
      return &command;
  return nullptr;
}

/// Runs `stream` on weights and x of fixed random values: y2's bytes.
absl::StatusOr<std::vector<uint8_t>> run(const plugins::ChipDescriptor &chip,
                                         const cmd::CommandStream &stream,
                                         cmodel::RunStats *stats = nullptr) {
  cmodel::CModel model(chip);
  std::vector<uint8_t> coeff(2 * (kN * kK + kN2 * kN));
  std::vector<float> weights =
      cmodel::test::randomValues(coeff.size() / 2, /*seed=*/7, -0.1f, 0.1f);
  for (size_t i = 0; i < weights.size(); ++i) {
    uint16_t half = floatToHalf(weights[i]);
    std::memcpy(&coeff[2 * i], &half, 2);
  }
  model.global().attachReadOnly(cmd::REGION_COEFF, coeff);
  model.global().allocate(cmd::REGION_IO, 2 * (kK + kN + kN2));
  std::vector<uint8_t> x(2 * kK);
  std::vector<float> values = cmodel::test::randomValues(kK, /*seed=*/3);
  for (int64_t i = 0; i < kK; ++i) {
    uint16_t half = floatToHalf(values[i]);
    std::memcpy(&x[2 * i], &half, 2);
  }
  LLMC_RETURN_IF_ERROR(model.global().write(cmd::REGION_IO, 0, x));
  absl::StatusOr<cmodel::RunStats> ran = model.run(stream);
  if (!ran.ok())
    return ran.status();
  if (stats)
    *stats = *ran;
  absl::StatusOr<absl::Span<const uint8_t>> y2 =
      model.global().read(cmd::REGION_IO, 2 * (kK + kN), 2 * kN2);
  if (!y2.ok())
    return y2.status();
  return std::vector<uint8_t>(y2->begin(), y2->end());
}

TEST(DmaScheduleTest, WeightsPassTheStoreWaitingForComputation) {
  plugins::ChipDescriptor chip = cmodel::test::getBm1684xLikeChip();
  TwoProjections piece;
  cmd::CommandStream emitted = piece.emit(chip);
  ASSERT_FALSE(emitted.dma_queue(2).waits().empty())
      << "y1's store should wait for its computation";
  cmd::CommandStream scheduled = emitted;
  ASSERT_TRUE(hoistWeightLoads(scheduled, chip).ok());

  EXPECT_LT(positionOf(scheduled, piece.w2Load),
            positionOf(scheduled, piece.y1Store));
  // The second computation read y1 by queue order alone; now it waits.
  const cmd::Command *reader = findReader(scheduled, piece.w2Load);
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(absl::c_linear_search(reader->waits(), piece.y1Load));

  cmodel::RunStats before, after;
  absl::StatusOr<std::vector<uint8_t>> want = run(chip, emitted, &before);
  absl::StatusOr<std::vector<uint8_t>> got = run(chip, scheduled, &after);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, *want);
  EXPECT_LT(after.totalCycles, before.totalCycles);
}

TEST(DmaScheduleTest, TheAddedWaitIsWhatKeepsTheStreamRaceFree) {
  plugins::ChipDescriptor chip = cmodel::test::getBm1684xLikeChip();
  TwoProjections piece;
  cmd::CommandStream scheduled = piece.emit(chip);
  ASSERT_TRUE(hoistWeightLoads(scheduled, chip).ok());
  for (cmd::Command &command : *scheduled.mutable_compute_queue()) {
    auto *waits = command.mutable_waits();
    waits->erase(std::remove(waits->begin(), waits->end(), piece.y1Load),
                 waits->end());
  }
  absl::StatusOr<std::vector<uint8_t>> ran = run(chip, scheduled);
  ASSERT_FALSE(ran.ok());
  cmodel::TrapKind kind = cmodel::test::getTrapKind(ran.status());
  EXPECT_TRUE(kind == cmodel::TrapKind::MissingSync ||
              kind == cmodel::TrapKind::UninitializedRead)
      << ran.status().message();
}

TEST(DmaScheduleTest, ALoadNeverPassesADmaTouchingItsBytes) {
  plugins::ChipDescriptor chip = cmodel::test::getBm1684xLikeChip();
  TwoProjections piece;
  cmd::CommandStream stream = piece.emit(chip);
  // y1's load now writes where w2 lands: w2 must stay behind it.
  cmd::Command &y1Load = *stream.mutable_dma_queue(3);
  cmd::Command &w2Load = *stream.mutable_dma_queue(4);
  y1Load.mutable_dma()->mutable_local()->set_address(
      w2Load.dma().local().address());
  ASSERT_TRUE(hoistWeightLoads(stream, chip).ok());
  EXPECT_EQ(positionOf(stream, piece.w2Load),
            positionOf(stream, piece.y1Load) + 1);
}

} // namespace
} // namespace llmc::codegen
