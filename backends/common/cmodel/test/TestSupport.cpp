//===- TestSupport.cpp - helpers for cmodel tests -------------------------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "backends/common/cmodel/Convert.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>

namespace llmc::cmodel::test {

plugins::ChipDescriptor getBm1684xLikeChip() {
  plugins::ChipDescriptor chip;
  chip.id = "bm1684x_like";
  chip.npuLanes = 64;
  chip.localMemoryBytesPerLane = 256 * 1024;
  chip.localMemoryBanks = 16;
  chip.euBytesPerLane = 64;
  chip.l2SramBytes = 2 * 1024 * 1024;
  chip.cores = 1;
  chip.clockMHz = 1000;
  chip.int8Tops = 32;
  chip.f16Tflops = 16;
  chip.bf16Tflops = 16;
  chip.f32Tflops = 2;
  chip.ddrBandwidthGBps = 64;
  chip.quantModes = {"F16"};
  return chip;
}

plugins::ChipDescriptor getSmallChip() {
  plugins::ChipDescriptor chip = getBm1684xLikeChip();
  chip.id = "small";
  chip.npuLanes = 4;
  chip.localMemoryBytesPerLane = 16 * 1024;
  chip.localMemoryBanks = 4;
  return chip;
}

double roundToFormat(double x, int precision, int minExponent,
                     double maxFinite) {
  if (std::isnan(x) || std::isinf(x) || x == 0)
    return x;
  int exponent;
  std::frexp(x, &exponent); // x = m * 2^exponent, 0.5 <= |m| < 1
  int lead = std::max(exponent - 1, minExponent);
  double quantum = std::ldexp(1.0, lead - (precision - 1));
  // The default rounding mode rounds halfway cases to even.
  double rounded = std::nearbyint(x / quantum) * quantum;
  if (std::fabs(rounded) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  if (rounded == 0)
    return std::copysign(0.0, x);
  return rounded;
}

double roundF16(double x) { return roundToFormat(x, 11, -14, 65504.0); }

double roundBF16(double x) {
  return roundToFormat(x, 8, -126, 3.3895313892515355e38);
}

double roundTo(cmd::DType type, double x) {
  switch (type) {
  case cmd::DTYPE_F16:
    return roundF16(x);
  case cmd::DTYPE_BF16:
    return roundBF16(x);
  default:
    return double(float(x));
  }
}

std::vector<float> randomValues(size_t count, uint32_t seed, float low,
                                float high) {
  std::mt19937 engine(seed);
  std::vector<float> values(count);
  for (float &value : values) {
    // From the raw engine output, so the values do not depend on the
    // standard library's distribution implementation.
    double unit = double(engine()) / 4294967296.0;
    value = float(low + (high - low) * unit);
  }
  return values;
}

TrapKind getTrapKind(const absl::Status &status, std::string *message) {
  if (status.ok()) {
    ADD_FAILURE() << "expected a trap, got success";
    return TrapKind::BadStream;
  }
  std::optional<TrapKind> kind = cmodel::getTrapKind(status);
  if (!kind) {
    ADD_FAILURE() << "not a trap: " << status.message();
    return TrapKind::BadStream;
  }
  if (message)
    *message = std::string(getTrapMessage(status));
  return *kind;
}

Harness::Harness(const plugins::ChipDescriptor &chip, unsigned threads,
                 uint64_t ioBytes)
    : model(chip, CModelOptions{{threads}, {}}), builder("test") {
  model.global().allocate(cmd::REGION_IO, ioBytes);
}

uint64_t Harness::allocateGlobal(uint64_t bytes) {
  uint64_t offset = nextGlobal;
  nextGlobal = (nextGlobal + bytes + 63) / 64 * 64;
  EXPECT_LE(nextGlobal, model.global().getSize(cmd::REGION_IO));
  return offset;
}

cmd::GlobalTensor Harness::put(cmd::DType type, int64_t rows, int64_t cols,
                               const std::vector<float> &values) {
  EXPECT_EQ(int64_t(values.size()), rows * cols);
  if (!isFloatDType(type))
    return putInts(type, rows, cols,
                   std::vector<int32_t>(values.begin(), values.end()));
  cmd::GlobalTensor tensor = reserve(type, rows, cols);
  std::vector<uint8_t> bytes;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<uint8_t> row =
        encodeFloats(type, absl::MakeConstSpan(values).subspan(r * cols, cols));
    bytes.insert(bytes.end(), row.begin(), row.end());
  }
  EXPECT_TRUE(
      model.global().write(cmd::REGION_IO, tensor.offset(), bytes).ok());
  return tensor;
}

cmd::GlobalTensor Harness::putInts(cmd::DType type, int64_t rows, int64_t cols,
                                   const std::vector<int32_t> &values) {
  EXPECT_EQ(int64_t(values.size()), rows * cols);
  cmd::GlobalTensor tensor = reserve(type, rows, cols);
  std::vector<uint8_t> bytes;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<uint8_t> row =
        encodeInts(type, absl::MakeConstSpan(values).subspan(r * cols, cols));
    bytes.insert(bytes.end(), row.begin(), row.end());
  }
  EXPECT_TRUE(
      model.global().write(cmd::REGION_IO, tensor.offset(), bytes).ok());
  return tensor;
}

cmd::GlobalTensor Harness::reserve(cmd::DType type, int64_t rows,
                                   int64_t cols) {
  uint64_t bytes = rows * getDTypeBytes(type, cols);
  return globalTensor(cmd::REGION_IO, allocateGlobal(bytes), rows, cols, type);
}

std::vector<float> Harness::get(const cmd::GlobalTensor &tensor) {
  int64_t rowBytes = getDTypeBytes(tensor.dtype(), tensor.cols());
  std::vector<float> values;
  for (int64_t r = 0; r < tensor.rows(); ++r) {
    auto bytes =
        model.global()
            .read(tensor.region(), tensor.offset() + r * rowBytes, rowBytes)
            .value();
    std::vector<float> row = decodeFloats(tensor.dtype(), bytes, tensor.cols());
    values.insert(values.end(), row.begin(), row.end());
  }
  return values;
}

std::vector<int32_t> Harness::getInts(const cmd::GlobalTensor &tensor) {
  int64_t rowBytes = getDTypeBytes(tensor.dtype(), tensor.cols());
  std::vector<int32_t> values;
  for (int64_t r = 0; r < tensor.rows(); ++r) {
    auto bytes =
        model.global()
            .read(tensor.region(), tensor.offset() + r * rowBytes, rowBytes)
            .value();
    std::vector<int32_t> row = decodeInts(tensor.dtype(), bytes, tensor.cols());
    values.insert(values.end(), row.begin(), row.end());
  }
  return values;
}

cmd::LocalTensor Harness::local(cmd::DType type, int64_t rows, int64_t cols,
                                cmd::Layout layout, uint32_t laneBegin,
                                uint32_t laneCount, int64_t perLane) {
  int64_t eu = model.getChip().euBytesPerLane;
  int64_t split = layout == cmd::LAYOUT_COLS ? cols : rows;
  int64_t per = perLane ? perLane : (split + laneCount - 1) / laneCount;
  int64_t laneRows = layout == cmd::LAYOUT_ROWS ? std::min(per, rows) : rows;
  int64_t laneCols = layout == cmd::LAYOUT_COLS ? std::min(per, cols) : cols;
  uint64_t stride = (getDTypeBytes(type, laneCols) + eu - 1) / eu * eu;
  cmd::LocalTensor tensor = localTensor(laneBegin, laneCount, nextLocal, rows,
                                        cols, type, layout, perLane);
  nextLocal += laneRows * stride;
  return tensor;
}

uint32_t Harness::load(const cmd::GlobalTensor &tensor,
                       const cmd::LocalTensor &into) {
  return builder.load(tensor, into);
}

cmd::GlobalTensor Harness::store(const cmd::LocalTensor &from, uint32_t after) {
  cmd::GlobalTensor tensor = reserve(from.dtype(), from.rows(), from.cols());
  builder.store(from, tensor, {after});
  return tensor;
}

absl::StatusOr<RunStats> Harness::run() {
  cmd::CommandStream stream = builder.take();
  absl::StatusOr<RunStats> result = model.run(stream);
  if (result.ok())
    stats = *result;
  return result;
}

absl::StatusOr<std::vector<cmd::GlobalTensor>> Harness::runOp(
    const cmd::Compute &compute,
    const std::vector<std::pair<cmd::GlobalTensor, cmd::LocalTensor>> &loads) {
  std::vector<uint32_t> ids;
  for (const auto &[global, local] : loads)
    ids.push_back(builder.load(global, local));
  uint32_t id = builder.compute(compute, ids);
  std::vector<cmd::GlobalTensor> stored;
  for (const cmd::LocalTensor &output : compute.outputs())
    if (output.rows())
      stored.push_back(store(output, id));
  if (absl::StatusOr<RunStats> result = run(); !result.ok())
    return result.status();
  return stored;
}

void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double bound = tolerance * std::max(1.0, std::fabs(want[i]));
    bool same =
        got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]));
    if (!same && !(std::fabs(got[i] - want[i]) <= bound) && reported++ < 8)
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want "
                    << want[i] << " (tolerance " << bound << ")";
  }
}

std::vector<double> asStored(cmd::DType type,
                             const std::vector<float> &values) {
  std::vector<double> result;
  for (float value : values)
    result.push_back(roundTo(type, value));
  return result;
}

} // namespace llmc::cmodel::test
