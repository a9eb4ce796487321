//===- StreamTest.cpp - building and serializing command streams ----------===//

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

namespace llmc::cmodel {
namespace {

/// A stream touching every kind of field: loads, a gather, computes with
/// attributes and absent operands, stores, waits on both queues.
cmd::CommandStream makeStream() {
  StreamBuilder b("block.0.decode");
  cmd::GlobalTensor table =
      globalTensor(cmd::REGION_COEFF, 0, 8, 16, cmd::DTYPE_F16);
  cmd::GlobalTensor ids = globalTensor(cmd::REGION_IO, 0, 1, 2, cmd::DTYPE_I32);
  cmd::LocalTensor rows =
      localTensor(0, 2, 0, 2, 16, cmd::DTYPE_F16, cmd::LAYOUT_REPLICATED);
  cmd::LocalTensor weight =
      localTensor(0, 2, 128, 1, 16, cmd::DTYPE_F16, cmd::LAYOUT_REPLICATED);
  cmd::LocalTensor normed =
      localTensor(0, 2, 256, 2, 16, cmd::DTYPE_F16, cmd::LAYOUT_REPLICATED);
  uint32_t gathered = b.gather(table, ids, rows);
  uint32_t loaded = b.load(
      globalTensor(cmd::REGION_COEFF, 256, 1, 16, cmd::DTYPE_F16), weight);
  cmd::Compute norm = makeCompute(cmd::RMSNORM, {rows, weight}, {normed});
  norm.set_eps(1e-6);
  uint32_t normId = b.compute(norm, {gathered, loaded});
  cmd::LocalTensor scaled =
      localTensor(0, 2, 384, 2, 16, cmd::DTYPE_F16, cmd::LAYOUT_REPLICATED);
  cmd::Compute mul = makeCompute(cmd::MUL_CONST, {normed}, {scaled});
  mul.set_scalar(0.5);
  uint32_t mulId = b.compute(mul);
  b.store(scaled, globalTensor(cmd::REGION_IO, 64, 2, 16, cmd::DTYPE_F16),
          {mulId});
  (void)normId;
  return b.take();
}

void fill(CModel &model) {
  model.global().allocate(cmd::REGION_COEFF, 512);
  model.global().allocate(cmd::REGION_IO, 256);
  std::vector<float> table = test::randomValues(8 * 16 + 16, 1, 0.5, 2);
  EXPECT_TRUE(model.global()
                  .write(cmd::REGION_COEFF, 0,
                         encodeFloats(cmd::DTYPE_F16,
                                      absl::MakeConstSpan(table).first(128)))
                  .ok());
  EXPECT_TRUE(model.global()
                  .write(cmd::REGION_COEFF, 256,
                         encodeFloats(cmd::DTYPE_F16,
                                      absl::MakeConstSpan(table).last(16)))
                  .ok());
  EXPECT_TRUE(model.global()
                  .write(cmd::REGION_IO, 0, encodeInts(cmd::DTYPE_I32, {5, 2}))
                  .ok());
}

TEST(StreamTest, BuilderAllocatesIdsAcrossQueues) {
  cmd::CommandStream stream = makeStream();
  EXPECT_EQ(stream.version(), 1u);
  EXPECT_EQ(stream.name(), "block.0.decode");
  ASSERT_EQ(stream.dma_queue_size(), 3);
  ASSERT_EQ(stream.compute_queue_size(), 2);
  EXPECT_EQ(stream.dma_queue(0).id(), 1u);
  EXPECT_EQ(stream.dma_queue(1).id(), 2u);
  EXPECT_EQ(stream.compute_queue(0).id(), 3u);
  EXPECT_EQ(stream.compute_queue(1).id(), 4u);
  EXPECT_EQ(stream.dma_queue(2).id(), 5u);
  EXPECT_EQ(stream.dma_queue(2).waits(0), 4u);
}

TEST(StreamTest, SerializationRoundTripsDeterministically) {
  cmd::CommandStream stream = makeStream();
  std::string bytes = serializeStream(stream);
  EXPECT_EQ(bytes, serializeStream(makeStream()));
  absl::StatusOr<cmd::CommandStream> parsed = parseStream(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(serializeStream(*parsed), bytes);
  EXPECT_EQ(printStream(*parsed), printStream(stream));

  // Both run to the same bytes.
  std::vector<std::vector<uint8_t>> outputs;
  for (const cmd::CommandStream *run : {&stream, &*parsed}) {
    CModel model(test::getSmallChip());
    fill(model);
    absl::StatusOr<RunStats> stats = model.run(*run);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    auto out = model.global().read(cmd::REGION_IO, 64, 64).value();
    outputs.emplace_back(out.begin(), out.end());
  }
  EXPECT_EQ(outputs[0], outputs[1]);
}

TEST(StreamTest, TextFormatIsReadable) {
  std::string text = printStream(makeStream());
  for (const char *fragment :
       {"name: \"block.0.decode\"", "opcode: RMSNORM", "kind: GATHER",
        "layout: LAYOUT_REPLICATED", "region: REGION_COEFF", "eps: 1e-06"})
    EXPECT_NE(text.find(fragment), std::string::npos) << fragment << "\n"
                                                      << text;
}

TEST(StreamTest, GarbageDoesNotParse) {
  EXPECT_FALSE(parseStream("\xff\xff\xff not a stream").ok());
}

} // namespace
} // namespace llmc::cmodel
