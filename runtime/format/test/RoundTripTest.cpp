//===- RoundTripTest.cpp - writing then reading .llmc binaries ------------===//

#include "runtime/format/test/TestBinaries.h"

#include <set>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/message_differencer.h>

#include "gtest/gtest.h"

namespace llmc::binary::test {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

/// Adds to `all` the full names of the fields of `message`'s type and of
/// every message type it holds, and to `set` those that some instance in
/// `message` sets to a non-default value.
void collectFields(const Message &message, std::set<std::string> &all,
                   std::set<std::string> &set) {
  const google::protobuf::Descriptor *descriptor = message.GetDescriptor();
  const google::protobuf::Reflection *reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor *field = descriptor->field(i);
    all.insert(field->full_name());
    bool isMessage = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (field->is_repeated()) {
      int size = reflection->FieldSize(message, field);
      if (size > 0)
        set.insert(field->full_name());
      for (int j = 0; isMessage && j < size; ++j)
        collectFields(reflection->GetRepeatedMessage(message, field, j), all,
                      set);
    } else if (reflection->HasField(message, field)) {
      set.insert(field->full_name());
      if (isMessage)
        collectFields(reflection->GetMessage(message, field), all, set);
    }
  }
}

std::unique_ptr<LoadedBinary> writeAndOpen(const BinaryWriter &writer,
                                           std::string &path) {
  path = scratchDirectory() + "/model.llmc";
  if (absl::Status written = writer.write(path); !written.ok()) {
    ADD_FAILURE() << written.message();
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<LoadedBinary>> binary =
      LoadedBinary::open(path);
  if (!binary.ok()) {
    ADD_FAILURE() << binary.status().message();
    return nullptr;
  }
  return std::move(*binary);
}

TEST(RoundTripTest, EveryManifestFieldSurvives) {
  BinaryWriter writer = makeSampleWriter();
  std::string path;
  std::unique_ptr<LoadedBinary> binary = writeAndOpen(writer, path);
  ASSERT_TRUE(binary);
  EXPECT_EQ(binary->name(), path);

  Manifest expected = writer.manifest();
  expected.set_format_version(kFormatVersion);
  expected.set_coeff_bytes(writer.coeffBytes());
  // Every field of every message is set somewhere in the sample.
  std::set<std::string> all, set;
  collectFields(expected, all, set);
  EXPECT_EQ(all, set);
  EXPECT_EQ(all.size(), 72u);
  std::string difference;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&difference);
  EXPECT_TRUE(differencer.Compare(expected, binary->manifest())) << difference;

  EXPECT_EQ(binary->manifest().format_version(), 1u);
  EXPECT_EQ(binary->manifest().precision(), "W4BF16");
  EXPECT_EQ(binary->manifest().pieces(1).name(), "block.1.decode");
  EXPECT_EQ(binary->tokenizerJson(), R"({"model": {"type": "BPE"}})");
}

TEST(RoundTripTest, PhasesShareWeightsAndConflictsFail) {
  BinaryWriter writer = makeSampleWriter();
  // w.qkv was added twice: one blob.
  ASSERT_EQ(writer.manifest().weights_size(), 3);
  absl::StatusOr<uint64_t> again =
      writer.addWeight("w.qkv", sampleWeight(100, 1), "i4", {40, 5});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, 0u);
  EXPECT_EQ(writer.manifest().weights_size(), 3);

  uint64_t coeffBytes = writer.coeffBytes();
  absl::StatusOr<uint64_t> otherBytes =
      writer.addWeight("w.qkv", sampleWeight(100, 9), "i4", {40, 5});
  ASSERT_FALSE(otherBytes.ok());
  EXPECT_NE(otherBytes.status().message().find("'w.qkv'"),
            absl::string_view::npos);
  absl::StatusOr<uint64_t> otherShape =
      writer.addWeight("w.qkv", sampleWeight(100, 1), "i4", {5, 40});
  EXPECT_FALSE(otherShape.ok());
  absl::StatusOr<uint64_t> otherDtype =
      writer.addWeight("w.qkv", sampleWeight(100, 1), "u4", {40, 5});
  EXPECT_FALSE(otherDtype.ok());
  EXPECT_EQ(writer.coeffBytes(), coeffBytes);
}

TEST(RoundTripTest, WeightsAndTheMappedCoeffAreAligned) {
  BinaryWriter writer = makeSampleWriter();
  std::string path;
  std::unique_ptr<LoadedBinary> binary = writeAndOpen(writer, path);
  ASSERT_TRUE(binary);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(binary->coeff().data()) % kAlignment,
            0u);
  EXPECT_EQ(binary->coeff().size(), binary->manifest().coeff_bytes());
  std::vector<uint64_t> offsets;
  for (const WeightBlob &blob : binary->manifest().weights()) {
    EXPECT_EQ(blob.offset() % kAlignment, 0u) << blob.name();
    offsets.push_back(blob.offset());
  }
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 128, 192}));

  struct Expected {
    const char *name;
    size_t size;
    uint8_t seed;
  };
  for (Expected weight : {Expected{"w.qkv", 100, 1}, Expected{"w.up", 37, 2},
                          Expected{"llmc.rope.cos", 64, 3}}) {
    absl::StatusOr<absl::Span<const uint8_t>> bytes =
        binary->weight(weight.name);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    EXPECT_EQ(std::vector<uint8_t>(bytes->begin(), bytes->end()),
              sampleWeight(weight.size, weight.seed));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes->data()) % kAlignment, 0u);
  }
  // The padding between blobs is zero.
  for (size_t i = 100; i < 128; ++i)
    EXPECT_EQ(binary->coeff()[i], 0) << i;
  absl::StatusOr<absl::Span<const uint8_t>> missing = binary->weight("w.down");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'w.down'"),
            absl::string_view::npos);
}

TEST(RoundTripTest, LargeMappedFileKeepsTheAlignment) {
  // Big enough that the file is memory-mapped rather than read.
  BinaryWriter writer = makeSampleWriter();
  std::vector<uint8_t> big = sampleWeight(1 << 20, 5);
  absl::StatusOr<uint64_t> offset = writer.addWeight("w.big", big, "u8", {});
  ASSERT_TRUE(offset.ok()) << offset.status().message();
  EXPECT_EQ(*offset, 256u);
  std::string path;
  std::unique_ptr<LoadedBinary> binary = writeAndOpen(writer, path);
  ASSERT_TRUE(binary);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(binary->coeff().data()) % kAlignment,
            0u);
  absl::StatusOr<absl::Span<const uint8_t>> bytes = binary->weight("w.big");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_TRUE(*bytes == absl::Span<const uint8_t>(big));
}

TEST(RoundTripTest, SectionsInTableOrder) {
  BinaryWriter writer = makeSampleWriter();
  std::string path;
  std::unique_ptr<LoadedBinary> binary = writeAndOpen(writer, path);
  ASSERT_TRUE(binary);
  std::vector<uint32_t> kinds;
  for (const SectionEntry &section : binary->sections()) {
    kinds.push_back(section.kind);
    EXPECT_EQ(section.offset % kAlignment, 0u);
  }
  EXPECT_EQ(kinds, (std::vector<uint32_t>{1, 2, 2, 3, 4}));
  EXPECT_EQ(binary->manifest().pieces(0).stream_section(), 1u);
  EXPECT_EQ(binary->manifest().pieces(1).stream_section(), 2u);
  ASSERT_TRUE(binary->streamBytes(1).ok());
  EXPECT_EQ(*binary->streamBytes(1), "prefill stream bytes");
  ASSERT_TRUE(binary->streamBytes(2).ok());
  EXPECT_EQ(*binary->streamBytes(2), std::string(300, 'd'));
  for (uint64_t section : {0, 3, 4, 5, -1})
    EXPECT_FALSE(binary->streamBytes(section).ok()) << section;
  // The file ends with the last section.
  EXPECT_EQ(readFile(path).size(), binary->sections().back().end());
}

TEST(RoundTripTest, MinimalBinaryWithoutWeightsOrTokenizer) {
  BinaryWriter writer;
  writer.manifest().set_chip("host");
  std::string path;
  std::unique_ptr<LoadedBinary> binary = writeAndOpen(writer, path);
  ASSERT_TRUE(binary);
  EXPECT_EQ(binary->manifest().chip(), "host");
  EXPECT_TRUE(binary->coeff().empty());
  EXPECT_TRUE(binary->tokenizerJson().empty());
  EXPECT_EQ(binary->sections().size(), 2u);
}

} // namespace
} // namespace llmc::binary::test
