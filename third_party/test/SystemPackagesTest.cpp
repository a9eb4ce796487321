//===- SystemPackagesTest.cpp - the Debian libraries link and work --------===//
//
// One check per library wired in by third_party/system_packages.bzl, so a
// broken pin or link line fails here rather than deep inside a later target.
//
//===----------------------------------------------------------------------===//

#include "third_party/test/smoke.pb.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "unicode/normalizer2.h"
#include "unicode/uchar.h"

namespace {

absl::StatusOr<int> parsePositive(int value) {
  if (value <= 0)
    return absl::InvalidArgumentError(absl::StrCat("not positive: ", value));
  return value;
}

TEST(SystemPackagesTest, AbseilStatusWorks) {
  EXPECT_EQ(*parsePositive(3), 3);
  EXPECT_EQ(parsePositive(-1).status().message(), "not positive: -1");
}

TEST(SystemPackagesTest, ProtobufRoundTrips) {
  llmc::smoke::Piece piece;
  piece.set_name("block.decode");
  piece.add_shape(1);
  piece.add_shape(896);
  std::string bytes = piece.SerializeAsString();
  llmc::smoke::Piece parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.name(), "block.decode");
  EXPECT_EQ(parsed.shape(1), 896);
}

TEST(SystemPackagesTest, OnnxProtoRoundTrips) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  onnx::NodeProto *node = model.mutable_graph()->add_node();
  node->set_op_type("MatMul");
  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(model.SerializeAsString()));
  EXPECT_EQ(parsed.graph().node(0).op_type(), "MatMul");
}

TEST(SystemPackagesTest, IcuComposesAndClassifies) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2 *nfc = icu::Normalizer2::getNFCInstance(status);
  ASSERT_TRUE(U_SUCCESS(status));
  std::string composed;
  icu::StringByteSink<std::string> sink(&composed);
  nfc->normalizeUTF8(0, "e\xCC\x81", sink, nullptr, status);
  EXPECT_EQ(composed, "\xC3\xA9");
  EXPECT_EQ(u_charType(0x4E2D), U_OTHER_LETTER);
}

} // namespace
