//===- BinaryRunnerTest.cpp - a hand-built binary on the cmodel -----------===//

#include "runtime/device/BinaryRunner.h"

#include "backends/bm1684x/Bm1684xDescriptor.h"
#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/StreamBuilder.h"
#include "runtime/format/BinaryWriter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>
#include <sstream>

namespace llmc::device {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using top::Tensor;

void addTensor(google::protobuf::RepeatedPtrField<binary::Tensor> *tensors,
               const std::string &name, std::vector<int64_t> shape,
               const std::string &dtype, uint64_t offset, uint64_t bytes) {
  binary::Tensor &tensor = *tensors->Add();
  tensor.set_name(name);
  tensor.set_role(name);
  for (int64_t dim : shape)
    tensor.add_shape(dim);
  tensor.set_dtype(dtype);
  tensor.set_io_offset(offset);
  tensor.set_bytes(bytes);
}

cmd::LocalTensor local(uint64_t address, int64_t cols, cmd::DType dtype) {
  return cmodel::localTensor(0, 1, address, 1, cols, dtype);
}

cmd::GlobalTensor io(uint64_t offset, int64_t cols, cmd::DType dtype) {
  return cmodel::globalTensor(cmd::REGION_IO, offset, 1, cols, dtype);
}

/// A binary of three one-row pieces: `scale` multiplies x f32[1, 4] by the
/// weight [1, 2, 3, 4]; `ids` copies i32[1, 2]; `narrow` rounds f32[1, 4] to
/// bf16. Inputs sit at IO offset 0, outputs at 64.
binary::BinaryWriter makeWriter() {
  binary::BinaryWriter writer;
  binary::Manifest &manifest = writer.manifest();
  manifest.set_chip("bm1684x");
  manifest.set_precision("F32");
  binary::ModelInfo &model = *manifest.mutable_model();
  model.set_num_layers(1);
  model.set_hidden_size(4);
  model.set_vocab_size(8);
  model.set_num_heads(1);
  model.set_num_kv_heads(1);
  model.set_head_dim(4);
  model.set_seq_length(8);
  model.set_max_input_length(4);

  float weight[4] = {1, 2, 3, 4};
  absl::Span<const uint8_t> weightBytes(reinterpret_cast<uint8_t *>(weight),
                                        sizeof(weight));
  uint64_t weightOffset =
      writer.addWeight("w", weightBytes, "f32", {1, 4}).value();

  auto addPiece = [&](const std::string &name, cmodel::StreamBuilder &stream) {
    binary::Piece &piece = *manifest.add_pieces();
    piece.set_name(name);
    piece.set_layer(-1);
    piece.set_io_bytes(128);
    piece.set_activation_bytes(256);
    piece.set_stream_section(
        writer.addStream(cmodel::serializeStream(stream.take())));
    return &piece;
  };

  cmodel::StreamBuilder scale("scale");
  uint32_t x =
      scale.load(io(0, 4, cmd::DTYPE_F32), local(0, 4, cmd::DTYPE_F32));
  uint32_t w = scale.load(cmodel::globalTensor(cmd::REGION_COEFF, weightOffset,
                                               1, 4, cmd::DTYPE_F32),
                          local(64, 4, cmd::DTYPE_F32));
  uint32_t y = scale.binary(cmd::MUL, local(0, 4, cmd::DTYPE_F32),
                            local(64, 4, cmd::DTYPE_F32),
                            local(128, 4, cmd::DTYPE_F32), {x, w});
  scale.store(local(128, 4, cmd::DTYPE_F32), io(64, 4, cmd::DTYPE_F32), {y});
  binary::Piece *piece = addPiece("scale", scale);
  addTensor(piece->mutable_inputs(), "x", {1, 4}, "f32", 0, 16);
  addTensor(piece->mutable_outputs(), "y", {1, 4}, "f32", 64, 16);
  piece->add_weights("w");

  cmodel::StreamBuilder ids("ids");
  ids.load(io(0, 2, cmd::DTYPE_I32), local(0, 2, cmd::DTYPE_I32));
  ids.store(local(0, 2, cmd::DTYPE_I32), io(64, 2, cmd::DTYPE_I32));
  piece = addPiece("ids", ids);
  addTensor(piece->mutable_inputs(), "input_ids", {1, 2}, "i32", 0, 8);
  addTensor(piece->mutable_outputs(), "copy", {1, 2}, "i32", 64, 8);

  cmodel::StreamBuilder narrow("narrow");
  uint32_t in =
      narrow.load(io(0, 4, cmd::DTYPE_F32), local(0, 4, cmd::DTYPE_F32));
  uint32_t cast = narrow.unary(cmd::CAST, local(0, 4, cmd::DTYPE_F32),
                               local(64, 4, cmd::DTYPE_BF16), {in});
  narrow.store(local(64, 4, cmd::DTYPE_BF16), io(64, 4, cmd::DTYPE_BF16),
               {cast});
  piece = addPiece("narrow", narrow);
  addTensor(piece->mutable_inputs(), "x", {1, 4}, "f32", 0, 16);
  addTensor(piece->mutable_outputs(), "y", {1, 4}, "bf16", 64, 8);
  return writer;
}

std::unique_ptr<binary::LoadedBinary> load(const binary::BinaryWriter &writer) {
  std::ostringstream os;
  EXPECT_TRUE(writer.writeTo(os).ok());
  return binary::LoadedBinary::fromBytes(os.str(), "test.llmc").value();
}

std::string createError(const binary::BinaryWriter &writer) {
  std::unique_ptr<binary::LoadedBinary> binary = load(writer);
  absl::StatusOr<std::unique_ptr<BinaryRunner>> runner = BinaryRunner::create(
      *binary, std::make_unique<cmodel::CModel>(bm1684x::getDescriptor()));
  return runner.ok() ? "" : std::string(runner.status().message());
}

class BinaryRunnerTest : public ::testing::Test {
protected:
  void SetUp() override {
    binary = load(makeWriter());
    cmodel::CModelOptions options;
    options.threads = 1;
    absl::StatusOr<std::unique_ptr<BinaryRunner>> created =
        BinaryRunner::create(*binary, std::make_unique<cmodel::CModel>(
                                          bm1684x::getDescriptor(), options));
    ASSERT_TRUE(created.ok()) << created.status().message();
    runner = std::move(*created);
  }

  std::unique_ptr<binary::LoadedBinary> binary;
  std::unique_ptr<BinaryRunner> runner;
};

TEST_F(BinaryRunnerTest, RunsPiecesThroughTheirIoRegions) {
  absl::StatusOr<std::vector<Tensor>> scaled =
      runner->run("scale", {Tensor::fromF32({1, 4}, {1, 1, 0.5f, -2})});
  ASSERT_TRUE(scaled.ok()) << scaled.status().message();
  ASSERT_EQ(scaled->size(), 1u);
  EXPECT_THAT((*scaled)[0].getShape(), ElementsAre(1, 4));
  EXPECT_THAT((*scaled)[0].getF32(), ElementsAre(1, 2, 1.5f, -8));

  absl::StatusOr<std::vector<Tensor>> copied =
      runner->run("ids", {Tensor::fromI32({1, 2}, {7, 123456})});
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_THAT((*copied)[0].getI32(), ElementsAre(7, 123456));

  // bf16 outputs come back widened; 1 + 2^-9 rounds to 1.
  absl::StatusOr<std::vector<Tensor>> narrowed = runner->run(
      "narrow",
      {Tensor::fromF32({1, 4}, {1.0f + 1.0f / 512, 3, -0.25f, 1e6f})});
  ASSERT_TRUE(narrowed.ok()) << narrowed.status().message();
  EXPECT_THAT((*narrowed)[0].getF32(), ElementsAre(1, 3, -0.25f, 999424.0f));

  EXPECT_EQ(runner->getTotals().runs, 3u);
  EXPECT_GT(runner->getTotals().cycles, 0u);
  EXPECT_GT(runner->getTotals().seconds, 0.0);
}

TEST_F(BinaryRunnerTest, RerunsWithNewInputs) {
  for (float value : {1.0f, 2.0f}) {
    absl::StatusOr<std::vector<Tensor>> scaled =
        runner->run("scale", {Tensor::fromF32({1, 4}, {value, 0, 0, 0})});
    ASSERT_TRUE(scaled.ok());
    EXPECT_EQ((*scaled)[0].getF32()[0], value);
  }
}

TEST_F(BinaryRunnerTest, ReportsMissingPiecesAndBadInputs) {
  EXPECT_TRUE(runner->hasPiece("scale"));
  EXPECT_FALSE(runner->hasPiece("sample_head"));
  absl::StatusOr<std::vector<Tensor>> missing = runner->run("sample_head", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(std::string(missing.status().message()),
            "piece sample_head is not in test.llmc (bm1684x F32: the "
            "compiler left it out)");

  absl::StatusOr<std::vector<Tensor>> shape =
      runner->run("scale", {Tensor::fromF32({1, 3}, {1, 2, 3})});
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(std::string(shape.status().message()),
            "piece scale: tensor 'x' (f32[1, 4]): given f32[1, 3]");

  absl::StatusOr<std::vector<Tensor>> kind =
      runner->run("ids", {Tensor::fromF32({1, 2}, {1, 2})});
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(std::string(kind.status().message()),
            "piece ids: tensor 'input_ids' (i32[1, 2]): given f32[1, 2]");

  absl::StatusOr<std::vector<Tensor>> count = runner->run("ids", {});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(std::string(count.status().message()),
            "piece ids: takes 1 inputs, not 0");
  EXPECT_EQ(runner->getTotals().runs, 0u);
}

TEST_F(BinaryRunnerTest, ModelDimsComeFromTheManifest) {
  session::ModelDims dims = runner->getModelDims();
  EXPECT_EQ(dims.numLayers, 1);
  EXPECT_EQ(dims.hiddenSize, 4);
  EXPECT_EQ(dims.vocabSize, 8);
  EXPECT_EQ(dims.seqLength, 8);
  EXPECT_EQ(dims.maxInputLength, 4);
}

TEST(BinaryRunnerCreateTest, RejectsAnotherChip) {
  binary::BinaryWriter writer = makeWriter();
  writer.manifest().set_chip("bm1688");
  EXPECT_EQ(createError(writer),
            "test.llmc: compiled for chip 'bm1688', not for 'bm1684x'");
}

TEST(BinaryRunnerCreateTest, RejectsBadIoLayouts) {
  binary::BinaryWriter writer = makeWriter();
  writer.manifest().mutable_pieces(0)->mutable_outputs(0)->set_io_offset(120);
  EXPECT_EQ(createError(writer),
            "test.llmc: piece scale: tensor 'y' (f32[1, 4]): bytes [120, 136) "
            "lie outside the 128-byte IO region");

  writer = makeWriter();
  writer.manifest().mutable_pieces(1)->mutable_inputs(0)->set_dtype("i8");
  EXPECT_THAT(createError(writer),
              HasSubstr("piece ids: tensor 'input_ids' (i8[1, 2]): element "
                        "type 'i8' is not one the runtime moves"));

  writer = makeWriter();
  writer.manifest().mutable_pieces(1)->mutable_inputs(0)->set_bytes(4);
  EXPECT_EQ(createError(writer),
            "test.llmc: piece ids: tensor 'input_ids' (i32[1, 2]): 4 bytes, "
            "not the 8 its shape takes");
}

TEST(BinaryRunnerCreateTest, RejectsRegionsBeyondTheLimits) {
  // An io_bytes whose 64-byte round-up wraps to 0 would have sliced an IO
  // region larger than the mapping behind it.
  binary::BinaryWriter writer = makeWriter();
  writer.manifest().mutable_pieces(0)->set_io_bytes(UINT64_MAX - 10);
  EXPECT_EQ(createError(writer),
            "test.llmc: piece scale: io_bytes (18446744073709551605) exceeds "
            "llmc's limit of 68719476736");

  writer = makeWriter();
  writer.manifest().mutable_pieces(2)->set_activation_bytes(uint64_t(1) << 50);
  EXPECT_EQ(createError(writer),
            "test.llmc: piece narrow: activation_bytes (1125899906842624) "
            "exceeds llmc's limit of 68719476736");

  // Within the limit, but more than any machine this runs on.
  writer = makeWriter();
  writer.manifest().mutable_pieces(1)->set_activation_bytes(uint64_t(1) << 36);
  for (binary::Piece &piece : *writer.manifest().mutable_pieces())
    piece.set_io_bytes(uint64_t(1) << 36);
  EXPECT_THAT(
      createError(writer),
      HasSubstr("test.llmc: the pieces' IO and activation regions "
                "would take 274877906944 bytes, more than this machine's "
                "memory"));
}

TEST(BinaryRunnerCreateTest, RejectsAHugeSequenceLength) {
  binary::BinaryWriter writer = makeWriter();
  writer.manifest().mutable_model()->set_seq_length(int64_t(1) << 40);
  EXPECT_EQ(createError(writer),
            "test.llmc: model size seq_length (1099511627776) exceeds llmc's "
            "limit of 4194304");
}

TEST(BinaryRunnerCreateTest, RejectsInvalidModelSizes) {
  binary::BinaryWriter writer = makeWriter();
  writer.manifest().mutable_model()->set_max_input_length(9);
  EXPECT_EQ(createError(writer),
            "test.llmc: max_input_length (9) exceeds seq_length (8)");
}

} // namespace
} // namespace llmc::device
