//===- HostDeviceTest.cpp - host programs on the host device --------------===//
//
// Each opcode family on small tensors against values worked out here, the
// broadcasting and quantized-weight forms the compiler emits, and the
// errors of bad programs: a stream of another version, an operand outside
// its region, a store into the weights.
//
//===----------------------------------------------------------------------===//

#include "backends/host/device/HostDevice.h"

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/Kernels.h"
#include "backends/common/cmodel/StreamBuilder.h"
#include "backends/host/HostDescriptor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace llmc;
using cmodel::globalTensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pointwise;

namespace {

class HostDeviceTest : public ::testing::Test {
protected:
  HostDeviceTest() : device(host::getDescriptor(), {2}), builder("test") {
    device.global().allocate(cmd::REGION_ACTIVATION, 4096);
  }

  /// Places `values` of `dtype` at `offset` of the activation region.
  cmd::GlobalTensor put(uint64_t offset, int64_t rows, int64_t cols,
                        std::vector<float> values,
                        cmd::DType dtype = cmd::DTYPE_F32) {
    EXPECT_TRUE(device.global()
                    .write(cmd::REGION_ACTIVATION, offset,
                           cmodel::encodeFloats(dtype, values))
                    .ok());
    return globalTensor(cmd::REGION_ACTIVATION, offset, rows, cols, dtype);
  }
  cmd::GlobalTensor putInts(uint64_t offset, int64_t rows, int64_t cols,
                            std::vector<int32_t> values, cmd::DType dtype) {
    EXPECT_TRUE(device.global()
                    .write(cmd::REGION_ACTIVATION, offset,
                           cmodel::encodeInts(dtype, values))
                    .ok());
    return globalTensor(cmd::REGION_ACTIVATION, offset, rows, cols, dtype);
  }
  std::vector<float> get(const cmd::GlobalTensor &tensor) {
    uint64_t bytes =
        cmodel::getDTypeBytes(tensor.dtype(), tensor.rows() * tensor.cols());
    return cmodel::decodeFloats(
        tensor.dtype(),
        device.global().read(tensor.region(), tensor.offset(), bytes).value(),
        tensor.rows() * tensor.cols());
  }
  std::vector<int32_t> getInts(const cmd::GlobalTensor &tensor) {
    return cmodel::decodeInts(
        tensor.dtype(),
        device.global()
            .read(tensor.region(), tensor.offset(),
                  cmodel::getDTypeBytes(tensor.dtype(),
                                        tensor.rows() * tensor.cols()))
            .value(),
        tensor.rows() * tensor.cols());
  }
  void add(cmd::Opcode opcode, std::vector<cmd::GlobalTensor> inputs,
           std::vector<cmd::GlobalTensor> outputs,
           cmd::Compute attributes = {}) {
    attributes.set_opcode(opcode);
    builder.hostCompute(attributes, inputs, outputs);
  }
  std::string run() {
    absl::StatusOr<cmodel::RunStats> stats = device.run(builder.take());
    return stats.ok() ? "" : std::string(stats.status().message());
  }

  host::HostDevice device;
  cmodel::StreamBuilder builder;
};

MATCHER(Near, "") {
  return std::fabs(std::get<0>(arg) - std::get<1>(arg)) <=
         1e-5f * (1 + std::fabs(std::get<1>(arg)));
}

TEST_F(HostDeviceTest, MatMulWithBiasAndResidual) {
  cmd::GlobalTensor x = put(0, 2, 3, {1, 2, 3, 4, 5, 6});
  cmd::GlobalTensor w = put(64, 2, 3, {1, 0, -1, 0.5, 0.5, 0.5});
  cmd::GlobalTensor bias = put(128, 1, 2, {10, 20});
  cmd::GlobalTensor y = put(192, 2, 2, {100, 200, 300, 400});
  cmd::Compute accumulate;
  accumulate.set_accumulate(true);
  add(cmd::MATMUL, {x, w, bias}, {y}, accumulate);
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(y),
              Pointwise(Near(), std::vector<float>{108, 223, 308, 427.5f}));
}

TEST_F(HostDeviceTest, MatMulReadsAttachedWeights) {
  // The weights go through attachWeights, as a binary's do: the device
  // reads them from its huge-page copy, and the caller's bytes may go.
  {
    std::vector<uint8_t> coeff =
        cmodel::encodeFloats(cmd::DTYPE_F16, {1, 0, -1, 0.5, 0.5, 0.5});
    device.attachWeights(coeff);
  }
  cmd::GlobalTensor x = put(0, 2, 3, {1, 2, 3, 4, 5, 6});
  cmd::GlobalTensor w =
      globalTensor(cmd::REGION_COEFF, 0, 2, 3, cmd::DTYPE_F16);
  cmd::GlobalTensor y = put(192, 2, 2, {0, 0, 0, 0});
  add(cmd::MATMUL, {x, w}, {y});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(y), Pointwise(Near(), std::vector<float>{-2, 3, -2, 7.5f}));
}

TEST_F(HostDeviceTest, HalfOutputsNarrowOnEveryThread) {
  // A long f16 row (decode logits) is narrowed by column ranges, many rows
  // by rows, on the threads, and the row cast back to f32: every element
  // must land where it belongs.
  device.global().allocate(cmd::REGION_ACTIVATION, 1 << 20);
  const int64_t n = 40000;
  std::vector<float> weights, expected;
  for (int64_t j = 0; j < n; ++j) {
    weights.push_back(float(j % 64 - 32));
    weights.push_back(float(j % 5));
    expected.push_back(float(j % 64 - 32) + 0.5f * float(j % 5));
  }
  std::vector<uint8_t> coeff = cmodel::encodeFloats(cmd::DTYPE_F16, weights);
  device.attachWeights(coeff);
  cmd::GlobalTensor w =
      globalTensor(cmd::REGION_COEFF, 0, n, 2, cmd::DTYPE_F16);
  cmd::GlobalTensor x = put(0, 3, 2, {1, 0.5f, 1, 0.5f, 1, 0.5f});
  cmd::GlobalTensor row = put(64, 1, n, std::vector<float>(n), cmd::DTYPE_F16);
  cmd::GlobalTensor rows =
      globalTensor(cmd::REGION_ACTIVATION, 64 + 2 * n, 3, n, cmd::DTYPE_F16);
  add(cmd::MATMUL,
      {globalTensor(cmd::REGION_ACTIVATION, 0, 1, 2, cmd::DTYPE_F32), w},
      {row});
  add(cmd::MATMUL, {x, w}, {rows});
  // And back to f32, as the LM head's logits are cast.
  cmd::GlobalTensor widened =
      globalTensor(cmd::REGION_ACTIVATION, 64 + 8 * n, 1, n, cmd::DTYPE_F32);
  add(cmd::CAST, {row}, {widened});
  ASSERT_EQ(run(), "");
  EXPECT_EQ(get(row), expected);
  EXPECT_EQ(get(widened), expected);
  std::vector<float> three = expected;
  three.insert(three.end(), expected.begin(), expected.end());
  three.insert(three.end(), expected.begin(), expected.end());
  EXPECT_EQ(get(rows), three);
}

TEST_F(HostDeviceTest, MatMulsOfOneInputRunTogether) {
  // q, k and v of a layer: one f16 x, f16 outputs, biases on two of them.
  // They run as one product call; each output must be its own product.
  cmd::GlobalTensor x = put(0, 1, 3, {1, 2, 3}, cmd::DTYPE_F16);
  cmd::GlobalTensor wq = put(64, 2, 3, {1, 0, -1, 0.5, 0.5, 0.5});
  cmd::GlobalTensor wk = put(128, 1, 3, {2, 2, 2});
  cmd::GlobalTensor wv = put(192, 3, 3, {0, 1, 0, 0, 0, 1, 1, 1, 1});
  cmd::GlobalTensor bq = put(256, 1, 2, {10, 20});
  cmd::GlobalTensor bv = put(320, 1, 3, {-1, -2, -3});
  cmd::GlobalTensor q = put(384, 1, 2, {0, 0}, cmd::DTYPE_F16);
  cmd::GlobalTensor k = put(448, 1, 1, {0}, cmd::DTYPE_F16);
  cmd::GlobalTensor v = put(512, 1, 3, {0, 0, 0}, cmd::DTYPE_F16);
  add(cmd::MATMUL, {x, wq, bq}, {q});
  add(cmd::MATMUL, {x, wk}, {k});
  add(cmd::MATMUL, {x, wv, bv}, {v});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(q), ElementsAre(8, 23));
  EXPECT_THAT(get(k), ElementsAre(12));
  EXPECT_THAT(get(v), ElementsAre(1, 1, 3));
}

TEST(HostDeviceProfileTest, AddsEachRunsCommandsByKind) {
  // A product group counts as one kind, named by x's width and each
  // output's; runs add up over streams.
  cmodel::CommandProfile profile;
  cmodel::DeviceOptions options;
  options.threads = 2;
  options.profile = &profile;
  host::HostDevice device(host::getDescriptor(), options);
  device.global().allocate(cmd::REGION_ACTIVATION, 1024);
  auto tensor = [](uint64_t offset, int64_t rows, int64_t cols) {
    return globalTensor(cmd::REGION_ACTIVATION, offset, rows, cols,
                        cmd::DTYPE_F32);
  };
  for (int run = 0; run < 2; ++run) {
    cmodel::StreamBuilder builder("profiled");
    cmd::Compute compute;
    compute.set_opcode(cmd::MATMUL);
    builder.hostCompute(compute, {tensor(0, 1, 3), tensor(64, 2, 3)},
                        {tensor(128, 1, 2)});
    builder.hostCompute(compute, {tensor(0, 1, 3), tensor(192, 1, 3)},
                        {tensor(256, 1, 1)});
    compute.set_opcode(cmd::ADD);
    builder.hostCompute(compute, {tensor(128, 1, 2), tensor(128, 1, 2)},
                        {tensor(320, 1, 2)});
    ASSERT_TRUE(device.run(builder.take()).ok());
  }
  ASSERT_EQ(profile.kinds.size(), 2u);
  EXPECT_EQ(profile.kinds["MATMUL 3->2+1"].runs, 4u);
  EXPECT_EQ(profile.kinds["ADD 2->2"].runs, 2u);
  EXPECT_GT(profile.kinds["MATMUL 3->2+1"].seconds, 0.0);
}

TEST_F(HostDeviceTest, MatMulReadingAnEarlierOutputRunsAfterIt) {
  // The second product reads what the first writes (as its bias): run in
  // turn, it sees the new values.
  cmd::GlobalTensor x = put(0, 1, 2, {1, 2});
  cmd::GlobalTensor w = put(64, 2, 2, {1, 0, 0, 1});
  cmd::GlobalTensor y = put(128, 1, 2, {0, 0});
  cmd::GlobalTensor z = put(192, 1, 2, {0, 0});
  add(cmd::MATMUL, {x, w}, {y});
  add(cmd::MATMUL, {x, w, y}, {z});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(z), ElementsAre(2, 4));
}

TEST_F(HostDeviceTest, MatMulsAccumulatingIntoOneOutputRunInTurn) {
  // Both add onto y (f16, so each product works on a widened copy): run
  // together, the second would start from y's old values.
  cmd::GlobalTensor x = put(0, 1, 2, {1, 2});
  cmd::GlobalTensor w = put(64, 2, 2, {1, 0, 0, 1});
  cmd::GlobalTensor twice = put(128, 2, 2, {2, 0, 0, 2});
  cmd::GlobalTensor y = put(192, 1, 2, {10, 20}, cmd::DTYPE_F16);
  cmd::Compute accumulate;
  accumulate.set_accumulate(true);
  add(cmd::MATMUL, {x, w}, {y}, accumulate);
  add(cmd::MATMUL, {x, twice}, {y}, accumulate);
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(y), ElementsAre(13, 26));
}

TEST_F(HostDeviceTest, BadMatMulInAGroupNamesItsCommand) {
  cmd::GlobalTensor x = put(0, 1, 2, {1, 2});
  cmd::GlobalTensor w = put(64, 2, 2, {1, 0, 0, 1});
  cmd::GlobalTensor y = put(128, 1, 2, {0, 0});
  cmd::GlobalTensor wrong = put(192, 1, 3, {0, 0, 0});
  add(cmd::MATMUL, {x, w}, {y});
  add(cmd::MATMUL, {x, w}, {wrong});
  EXPECT_THAT(run(), HasSubstr("command 1 (MATMUL)"));
}

TEST_F(HostDeviceTest, GroupQuantizedFourBitWeights) {
  // w [2, 4] u4, groups of 2 along K: (q - zp) * scale.
  cmd::GlobalTensor x = put(0, 1, 4, {1, 2, 3, 4}, cmd::DTYPE_F16);
  cmd::GlobalTensor w =
      putInts(64, 2, 4, {8, 9, 10, 6, 0, 15, 7, 8}, cmd::DTYPE_U4);
  cmd::GlobalTensor scale = put(128, 2, 2, {0.5, 2, 1, 0.25}, cmd::DTYPE_F16);
  cmd::GlobalTensor zp = putInts(192, 2, 2, {8, 8, 8, 8}, cmd::DTYPE_U4);
  cmd::GlobalTensor y = put(256, 1, 2, {0, 0}, cmd::DTYPE_F16);
  add(cmd::A16MATMUL, {x, w, scale, zp, {}}, {y});
  ASSERT_EQ(run(), "");
  // Row 0: (0, 1) * 0.5 and (2, -2) * 2: 1 + 12 - 16 = -3.
  // Row 1: (-8, 7) * 1 and (-1, 0) * 0.25: -8 + 14 - 0.75 = 5.25.
  EXPECT_THAT(get(y), ElementsAre(-3, 5.25f));
}

TEST_F(HostDeviceTest, GatedMatMul) {
  cmd::GlobalTensor x = put(0, 1, 2, {1, 2});
  cmd::GlobalTensor gate = put(64, 2, 2, {1, 0, 0, -1});
  cmd::GlobalTensor up = put(128, 2, 2, {2, 0, 1, 1});
  cmd::GlobalTensor h = put(192, 1, 2, {0, 0});
  cmd::Compute silu;
  silu.set_activation(cmd::SILU);
  add(cmd::GATED_MATMUL, {x, gate, {}, {}, up, {}, {}}, {h}, silu);
  ASSERT_EQ(run(), "");
  auto siluOf = [](float v) { return v / (1 + std::exp(-v)); };
  EXPECT_THAT(get(h), Pointwise(Near(), std::vector<float>{siluOf(1) * 2,
                                                           siluOf(-2) * 3}));
}

TEST_F(HostDeviceTest, RowwiseOpsBroadcast) {
  cmd::GlobalTensor a = put(0, 2, 2, {1, 2, 3, 4});
  cmd::GlobalTensor row = put(64, 1, 2, {10, 20});
  cmd::GlobalTensor scalar = put(128, 1, 1, {0.5});
  cmd::GlobalTensor sum = put(192, 2, 2, {0, 0, 0, 0});
  cmd::GlobalTensor product = put(256, 2, 2, {0, 0, 0, 0}, cmd::DTYPE_BF16);
  add(cmd::ADD, {a, row}, {sum});
  add(cmd::MUL, {a, scalar}, {product});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(sum), ElementsAre(11, 22, 13, 24));
  EXPECT_THAT(get(product), ElementsAre(0.5, 1, 1.5, 2));
}

TEST_F(HostDeviceTest, NormRopeAndSoftmax) {
  cmd::GlobalTensor x = put(0, 1, 4, {1, 1, 2, 2});
  cmd::GlobalTensor weight = put(64, 1, 2, {1, 2});
  cmd::GlobalTensor norm = put(128, 1, 4, {0, 0, 0, 0});
  cmd::Compute rms;
  rms.set_group(2);
  add(cmd::RMSNORM, {x, weight}, {norm}, rms);
  // One head of 4, all rotated: pairs (0, 2) and (1, 3).
  cmd::GlobalTensor cosines = put(192, 1, 4, {0, 1, 0, 1});
  cmd::GlobalTensor sines = put(256, 1, 4, {1, 0, 1, 0});
  cmd::GlobalTensor rotated = put(320, 1, 4, {0, 0, 0, 0});
  cmd::Compute rope;
  rope.set_group(4);
  add(cmd::ROPE, {x, cosines, sines}, {rotated}, rope);
  cmd::GlobalTensor soft = put(384, 1, 4, {0, 0, 0, 0});
  add(cmd::SOFTMAX, {x}, {soft});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(norm), Pointwise(Near(), std::vector<float>{1, 2, 1, 2}));
  // y0 = x0 cos0 - x2 sin0 = -2; y2 = x2 cos2 + x0 sin2 = 1.
  EXPECT_THAT(get(rotated), ElementsAre(-2, 1, 1, 2));
  float e = std::exp(1.0f);
  EXPECT_THAT(
      get(soft),
      Pointwise(Near(), std::vector<float>{1 / (2 + 2 * e), 1 / (2 + 2 * e),
                                           e / (2 + 2 * e), e / (2 + 2 * e)}));
}

TEST_F(HostDeviceTest, RmsNormSumsSquaresInTheDocumentedOrder) {
  // docs/command-stream.md: ms = dot16(x, x) / G, then y = (x / sqrt(ms +
  // eps)) * w, bit for bit the cmodel's. Each row starts with 16 values
  // near 1000, one in each partial sum, whose squares' half ulp is above
  // the squares of the small ones that follow: float32 partial sums lose
  // those, a sum in double keeps them.
  const int64_t rows = 2, cols = 256;
  std::vector<float> values(rows * cols);
  uint32_t state = 12345;
  for (int64_t i = 0; i < rows * cols; ++i) {
    state = state * 1664525u + 1013904223u;
    float unit = float(state >> 8) / float(1 << 24);
    values[i] = i % cols < 16 ? 1000 + 20 * unit
                              : (state & 1 ? 1 : -1) * (0.15f + 0.02f * unit);
  }
  cmd::GlobalTensor x = put(0, rows, cols, values);
  cmd::GlobalTensor y =
      put(rows * cols * 4, rows, cols, std::vector<float>(rows * cols, 0));
  cmd::Compute rms;
  rms.set_eps(1e-6f);
  add(cmd::RMSNORM, {x}, {y}, rms);
  ASSERT_EQ(run(), "");
  std::vector<float> expected(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = values.data() + r * cols;
    float ms = cmodel::kernels::dot16(row, row, cols) / cols;
    float inverse = 1.0f / std::sqrt(ms + 1e-6f);
    for (int64_t c = 0; c < cols; ++c)
      expected[r * cols + c] = row[c] * inverse * 1.0f;
  }
  EXPECT_EQ(get(y), expected);
}

TEST_F(HostDeviceTest, AttentionWithMaskAndSharedKvHead) {
  // Two query heads of D = 2 sharing one kv head; two keys, the second
  // masked for the first query row.
  cmd::GlobalTensor q = put(0, 2, 4, {1, 0, 0, 1, 1, 0, 0, 1});
  cmd::GlobalTensor k = put(64, 2, 2, {1, 0, 0, 1});
  cmd::GlobalTensor v = put(128, 2, 2, {1, 2, 3, 4});
  cmd::GlobalTensor mask = put(192, 2, 2, {0, -INFINITY, 0, 0});
  cmd::GlobalTensor o = put(256, 2, 4, std::vector<float>(8, 0));
  cmd::Compute attention;
  attention.set_group(2);
  attention.set_scalar(1);
  add(cmd::ATTENTION, {q, k, v, mask}, {o}, attention);
  ASSERT_EQ(run(), "");
  float p = 1 / (1 + std::exp(-1.0f)); // softmax weight of the better key
  EXPECT_THAT(get(o),
              Pointwise(Near(), std::vector<float>{
                                    1, 2, 1, 2, p * 1 + (1 - p) * 3,
                                    p * 2 + (1 - p) * 4, (1 - p) * 1 + p * 3,
                                    (1 - p) * 2 + p * 4}));
}

TEST_F(HostDeviceTest, GatherRankAndCopy) {
  cmd::GlobalTensor table = put(0, 3, 2, {1, 2, 3, 4, 5, 6});
  cmd::GlobalTensor index = putInts(64, 1, 2, {2, 0}, cmd::DTYPE_I32);
  cmd::GlobalTensor rows = put(128, 2, 2, {0, 0, 0, 0});
  add(cmd::GATHER, {table, index}, {rows});
  cmd::GlobalTensor scores = put(192, 1, 4, {3, 7, 7, 1});
  cmd::GlobalTensor best = put(256, 1, 2, {0, 0});
  cmd::GlobalTensor bestIds = putInts(320, 1, 2, {0, 0}, cmd::DTYPE_I32);
  cmd::Compute topK;
  topK.set_group(2);
  add(cmd::TOPK, {scores}, {best, bestIds}, topK);
  cmd::GlobalTensor argmax = putInts(384, 1, 1, {0}, cmd::DTYPE_I32);
  add(cmd::ARGMAX, {scores}, {{}, argmax});
  // Column 1 of the table, a strided view.
  cmd::GlobalTensor column =
      globalTensor(cmd::REGION_ACTIVATION, 4, 3, 1, cmd::DTYPE_F32, 8);
  cmd::GlobalTensor copied = put(448, 3, 1, {0, 0, 0});
  add(cmd::COPY, {column}, {copied});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(rows), ElementsAre(5, 6, 1, 2));
  EXPECT_THAT(get(best), ElementsAre(7, 7));
  EXPECT_THAT(getInts(bestIds), ElementsAre(1, 2));
  EXPECT_THAT(getInts(argmax), ElementsAre(1));
  EXPECT_THAT(get(copied), ElementsAre(2, 4, 6));
}

TEST_F(HostDeviceTest, ArgmaxRanksWholeVocabularies) {
  // Rows longer than the ranking's blocks: a tie across blocks goes to the
  // lower column, a NaN ranks above every number (the first NaN wins), and
  // a row of -inf ranks its first column.
  const int64_t cols = 1500;
  device.global().allocate(cmd::REGION_ACTIVATION, 6 * 3 * cols + 256);
  std::vector<float> values(3 * cols, -INFINITY);
  for (int64_t c = 0; c < cols; ++c)
    values[c] = values[cols + c] = float(c % 300);
  values[700] = values[1200] = 1000;
  values[cols + 1300] = values[cols + 1400] = NAN;
  values[cols + 100] = INFINITY;
  cmd::GlobalTensor scores = put(0, 3, cols, values);
  cmd::GlobalTensor best = put(3 * cols * 4, 3, 1, {0, 0, 0});
  cmd::GlobalTensor ids =
      putInts(3 * cols * 4 + 64, 3, 1, {0, 0, 0}, cmd::DTYPE_I32);
  add(cmd::ARGMAX, {scores}, {best, ids});
  // Half-precision rows are widened first.
  cmd::GlobalTensor halfScores =
      put(3 * cols * 4 + 128, 1, cols,
          std::vector<float>(values.begin(), values.begin() + cols),
          cmd::DTYPE_F16);
  cmd::GlobalTensor halfId =
      putInts(3 * cols * 4 + 128 + 2 * cols, 1, 1, {0}, cmd::DTYPE_I32);
  add(cmd::ARGMAX, {halfScores}, {{}, halfId});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(getInts(ids), ElementsAre(700, 1300, 0));
  EXPECT_THAT(getInts(halfId), ElementsAre(700));
  std::vector<float> bestValues = get(best);
  EXPECT_EQ(bestValues[0], 1000);
  EXPECT_TRUE(std::isnan(bestValues[1]));
  EXPECT_EQ(bestValues[2], -INFINITY);
}

TEST_F(HostDeviceTest, RejectsOtherStreamVersions) {
  cmd::CommandStream stream;
  stream.set_version(1);
  stream.set_name("tiled");
  absl::StatusOr<cmodel::RunStats> stats = device.run(stream);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(std::string(stats.status().message()),
              HasSubstr("stream 'tiled' has version 1; the host device runs "
                        "host programs (version 3)"));
}

TEST_F(HostDeviceTest, OperandOutsideItsRegionIsAnError) {
  cmd::GlobalTensor x = put(0, 1, 4, {1, 2, 3, 4});
  cmd::GlobalTensor far =
      globalTensor(cmd::REGION_ACTIVATION, 4090, 1, 4, cmd::DTYPE_F32);
  add(cmd::SILU, {x}, {far});
  EXPECT_THAT(run(), HasSubstr("stream 'test', command 0 (SILU)"));
}

TEST_F(HostDeviceTest, StoringIntoTheWeightsIsAnError) {
  std::vector<uint8_t> coeff(64);
  device.attachWeights(coeff);
  cmd::GlobalTensor x = put(0, 1, 4, {1, 2, 3, 4});
  add(cmd::SILU, {x},
      {globalTensor(cmd::REGION_COEFF, 0, 1, 4, cmd::DTYPE_F32)});
  EXPECT_THAT(run(), HasSubstr("read-only"));
}

TEST_F(HostDeviceTest, GatherDequantizesAQuantizedTable) {
  // A U4 table [3, 4] in groups of 2, with zero points: row 2 then row 0,
  // each (q - zp) * scale, narrowed to bf16.
  cmd::GlobalTensor table = putInts(0, 3, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15},
                                    cmd::DTYPE_U4);
  cmd::GlobalTensor scale =
      put(64, 3, 2, {0.5f, 0.25f, 1, 2, 0.125f, 4}, cmd::DTYPE_BF16);
  cmd::GlobalTensor zp = putInts(128, 3, 2, {1, 2, 3, 4, 8, 8}, cmd::DTYPE_U4);
  cmd::GlobalTensor index = putInts(192, 1, 2, {2, 0}, cmd::DTYPE_I32);
  cmd::GlobalTensor rows =
      put(256, 2, 4, std::vector<float>(8, 0), cmd::DTYPE_BF16);
  add(cmd::GATHER, {table, index, scale, zp}, {rows});
  ASSERT_EQ(run(), "");
  EXPECT_THAT(get(rows),
              ElementsAre(0.125f, 0.25f, 12, 28, 0, 0.5f, 0.25f, 0.5f));
}

TEST_F(HostDeviceTest, GatherIndexOutsideTheTableIsAnError) {
  cmd::GlobalTensor table = put(0, 3, 2, {1, 2, 3, 4, 5, 6});
  cmd::GlobalTensor index = putInts(64, 1, 1, {3}, cmd::DTYPE_I32);
  cmd::GlobalTensor row = put(128, 1, 2, {0, 0});
  add(cmd::GATHER, {table, index}, {row});
  EXPECT_THAT(run(), HasSubstr("index 3 is outside the table's 3 rows"));
}

} // namespace
