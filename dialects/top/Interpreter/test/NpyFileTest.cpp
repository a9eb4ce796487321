//===- NpyFileTest.cpp - .npy reading and writing -------------------------===//
//
// The byte strings are what NumPy 1.24's `numpy.save` writes.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/NpyFile.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

using namespace llmc::top;

namespace {

template <size_t N> std::string_view bytes(const char (&literal)[N]) {
  return std::string_view(literal, N - 1);
}

const char kF32[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': "
    "(2, 3), }                                                          "
    "\x0a\x00\x00\xc0?\x00\x00\x00\xc0\x00\x00@@\x00\x00\x80@\x00\x00\xa0@"
    "\x00\x00\xc8@";
const char kI32[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'shape': "
    "(3,), }                                                            "
    "\x0a\x07\x00\x00\x00\xf8\xff\xff\xff\x09\x00\x00\x00";
const char kScalar[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': "
    "(), }                                                              "
    "\x0a\x00\x00`@";
const char kI64[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': "
    "(1, 2), }                                                          "
    "\x0a\x01\x00\x00\x00\x00\x00\x00\x00\xfe\xff\xff\xff\xff\xff\xff\xff";
const char kF64[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': "
    "(1,), }                                                            "
    "\x0a\x00\x00\x00\x00\x00\x00\xf0?";
const char kFortran[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': True, 'shape': "
    "(2, 2), }                                                           "
    "\x0a\x00\x00\x80?\x00\x00@@\x00\x00\x00@\x00\x00\x80@";

std::string errorOf(const absl::StatusOr<Tensor> &tensor) {
  if (tensor.ok()) {
    ADD_FAILURE() << "parsing was expected to fail";
    return {};
  }
  return std::string(tensor.status().message());
}

TEST(Npy, ReadsWhatNumPyWrites) {
  absl::StatusOr<Tensor> f32 = parseNpy(bytes(kF32));
  ASSERT_TRUE(f32.ok()) << f32.status().message();
  EXPECT_EQ(f32->describe(), "f32[2, 3]");
  EXPECT_EQ(f32->getF32(),
            absl::Span<const float>({1.5f, -2.0f, 3.0f, 4.0f, 5.0f, 6.25f}));

  absl::StatusOr<Tensor> i32 = parseNpy(bytes(kI32));
  ASSERT_TRUE(i32.ok()) << i32.status().message();
  EXPECT_EQ(i32->describe(), "i32[3]");
  EXPECT_EQ(i32->getI32(), absl::Span<const int32_t>({7, -8, 9}));

  absl::StatusOr<Tensor> scalar = parseNpy(bytes(kScalar));
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->describe(), "f32[]");
  EXPECT_EQ(scalar->getF32(), absl::Span<const float>({3.5f}));
}

TEST(Npy, NarrowsInt64ThatFits) {
  absl::StatusOr<Tensor> ids = parseNpy(bytes(kI64));
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(ids->describe(), "i32[1, 2]");
  EXPECT_EQ(ids->getI32(), absl::Span<const int32_t>({1, -2}));

  std::string tooLarge(bytes(kI64));
  tooLarge[tooLarge.size() - 12] = '\x01'; // the first value becomes 2^32 + 1
  EXPECT_NE(errorOf(parseNpy(tooLarge)).find("does not fit in int32"),
            std::string::npos);
}

TEST(Npy, WritesByteForByteLikeNumPy) {
  EXPECT_EQ(serializeNpy(Tensor::fromF32(
                {2, 3}, {1.5f, -2.0f, 3.0f, 4.0f, 5.0f, 6.25f})),
            bytes(kF32));
  EXPECT_EQ(serializeNpy(Tensor::fromI32({3}, {7, -8, 9})), bytes(kI32));
  EXPECT_EQ(serializeNpy(Tensor::fromF32({}, {3.5f})), bytes(kScalar));
}

TEST(Npy, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "/logits.npy";
  Tensor logits =
      Tensor::fromF32({1, 2, 3}, {0.1f, -0.2f, 3e30f, -0.0f, 1e-40f, 7.0f});
  absl::Status written = writeNpyFile(path, logits);
  ASSERT_TRUE(written.ok()) << written.message();
  absl::StatusOr<Tensor> read = readNpyFile(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->describe(), "f32[1, 2, 3]");
  EXPECT_EQ(serializeNpy(*read), serializeNpy(logits));

  std::string missing = errorOf(readNpyFile(path + ".absent"));
  EXPECT_NE(missing.find("cannot read"), std::string::npos) << missing;
}

TEST(Npy, RejectsWhatItCannotRepresent) {
  EXPECT_NE(errorOf(parseNpy(bytes(kF64))).find("unsupported element type"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy(bytes(kFortran))).find("Fortran"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy("PK\x03\x04 not numpy")).find("bad magic"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy(bytes(kF32).substr(0, bytes(kF32).size() - 1)))
                .find("data bytes"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy(bytes(kF32).substr(0, 40))).find("truncated"),
            std::string::npos);
}

} // namespace

namespace llmc::top {
namespace {

TEST(TensorTest, OuterSliceIsOneElementOfTheFirstDimension) {
  Tensor batch = Tensor::fromF32({3, 2}, {0, 1, 2, 3, 4, 5});
  Tensor middle = batch.getOuterSlice(1);
  EXPECT_EQ(
      std::vector<int64_t>(middle.getShape().begin(), middle.getShape().end()),
      (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(std::vector<float>(std::as_const(middle).getF32().begin(),
                               std::as_const(middle).getF32().end()),
            (std::vector<float>{2, 3}));
}

} // namespace
} // namespace llmc::top
