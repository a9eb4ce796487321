//===- TestBinaries.cpp - sample binaries and byte surgery ----------------===//

#include "runtime/format/test/TestBinaries.h"

#include "support/File.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace llmc::binary::test {

std::vector<uint8_t> sampleWeight(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i)
    bytes[i] = uint8_t(seed + 31 * i);
  return bytes;
}

static void setTensor(Tensor &tensor, const std::string &name,
                      const std::string &dtype, std::vector<int64_t> shape,
                      uint64_t offset, uint64_t bytes) {
  tensor.set_name(name);
  tensor.set_role(name);
  for (int64_t dim : shape)
    tensor.add_shape(dim);
  tensor.set_dtype(dtype);
  tensor.set_io_offset(offset);
  tensor.set_bytes(bytes);
}

static void addPiece(Manifest &manifest, const std::string &name,
                     const std::string &phase, uint64_t section,
                     int64_t tokens) {
  Piece &piece = *manifest.add_pieces();
  piece.set_name(name);
  piece.set_phase(phase);
  // Layer 0 would be the proto3 default, which the every-field check
  // counts as unset.
  piece.set_layer(1);
  setTensor(*piece.add_inputs(), "hidden", "bf16", {1, tokens, 64}, 64,
            tokens * 128);
  setTensor(*piece.add_inputs(), "position_ids", "i32", {1, tokens},
            64 + tokens * 128, tokens * 4);
  setTensor(*piece.add_outputs(), "new_k", "bf16", {1, tokens, 2, 16},
            64 + tokens * 132, tokens * 64);
  piece.set_io_bytes(64 + tokens * 196);
  piece.set_activation_bytes(4096 * tokens);
  piece.set_stream_section(section);
  piece.set_modelled_seconds(1.5e-4 * double(tokens));
  piece.add_weights("w.qkv");
  piece.add_weights("w.up");
}

static void addWeight(BinaryWriter &writer, std::string_view name, size_t size,
                      uint8_t seed, std::string_view dtype,
                      std::vector<int64_t> shape) {
  absl::StatusOr<uint64_t> offset =
      writer.addWeight(name, sampleWeight(size, seed), dtype, shape);
  ASSERT_TRUE(offset.ok()) << offset.status().message();
}

BinaryWriter makeSampleWriter() {
  BinaryWriter writer;
  Manifest &manifest = writer.manifest();
  manifest.set_chip("bm1684x");
  manifest.set_precision("W4BF16");
  manifest.set_q_group_size(64);
  manifest.set_asymmetric(true);
  ModelInfo &model = *manifest.mutable_model();
  model.set_family("qwen2");
  model.set_num_layers(2);
  model.set_hidden_size(64);
  model.set_vocab_size(512);
  model.set_num_heads(4);
  model.set_num_kv_heads(2);
  model.set_head_dim(16);
  model.set_seq_length(128);
  model.set_max_input_length(32);
  model.add_prefill_lengths(16);
  model.add_layer_windows(0);
  model.add_layer_windows(48);
  KvCacheLayout &kv = *manifest.mutable_kv_cache();
  kv.set_dtype("bf16");
  kv.set_slots(128);
  kv.set_kv_heads(2);
  kv.set_head_dim(16);
  GenerationDefaults &generation = *manifest.mutable_generation();
  generation.add_stop_token_ids(151643);
  generation.add_stop_token_ids(151645);
  generation.set_bos_token_id(-1);
  generation.set_temperature(0.7);
  generation.set_top_p(0.8);
  generation.set_top_k(20);
  generation.set_repetition_penalty(1.05);
  generation.set_max_new_tokens(256);
  manifest.set_chat_template("{% for m in messages %}{{ m.content }}"
                             "{% endfor %}");
  manifest.set_chat_eos_token("<|im_end|>");
  manifest.set_compiler_version("llmc 0.1.0");
  VisionInfo &vision = *manifest.mutable_vision();
  vision.set_preprocessing("internvl");
  vision.set_tile_size(448);
  vision.set_min_tiles(1);
  vision.set_max_tiles(12);
  vision.set_thumbnail(true);
  vision.set_tokens_per_tile(256);
  vision.set_placeholder("<IMG_CONTEXT>");
  vision.set_marker("<image>");
  vision.set_scale_resolution(448);
  vision.set_max_slices(9);
  vision.set_patch_size(14);
  vision.set_positions_per_side(70);
  vision.set_max_patches(1089);
  vision.set_use_image_id(true);

  // The prefill adds the weights, the decode adds w.qkv again: shared.
  addWeight(writer, "w.qkv", 100, 1, "i4", {40, 5});
  addWeight(writer, "w.up", 37, 2, "bf16", {37});
  addWeight(writer, "llmc.rope.cos", 64, 3, "f32", {4, 4});
  addWeight(writer, "w.qkv", 100, 1, "i4", {40, 5});
  uint64_t prefill = writer.addStream("prefill stream bytes");
  uint64_t decode = writer.addStream(std::string(300, 'd'));
  addPiece(manifest, "block.1.prefill", "prefill", prefill, 32);
  addPiece(manifest, "block.1.decode", "decode", decode, 1);
  writer.setTokenizerJson(R"({"model": {"type": "BPE"}})");
  return writer;
}

std::string scratchDirectory() {
  std::string path = ::testing::TempDir() + "llmc_formatXXXXXX";
  EXPECT_NE(::mkdtemp(path.data()), nullptr) << path;
  return path;
}

std::string readFile(const std::string &path) {
  absl::StatusOr<std::string> bytes = support::readFile(path);
  return bytes.ok() ? *bytes : std::string();
}

void writeFile(const std::string &path, std::string_view bytes) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(bytes.data(), std::streamsize(bytes.size()));
  ASSERT_TRUE(os.good()) << path;
}

std::vector<std::string> listDirectory(const std::string &directory) {
  std::vector<std::string> names;
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end;
       !error && it != end; it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string openError(std::string_view bytes, bool verifyChecksums) {
  absl::StatusOr<std::unique_ptr<LoadedBinary>> binary =
      LoadedBinary::fromBytes(bytes, "test.llmc", verifyChecksums);
  return binary.ok() ? std::string() : std::string(binary.status().message());
}

SectionEntry entryAt(std::string_view bytes, size_t index) {
  return decodeSectionEntry(reinterpret_cast<const uint8_t *>(bytes.data()) +
                            kHeaderBytes + index * kSectionEntryBytes);
}

void setEntry(std::string &bytes, size_t index, const SectionEntry &entry) {
  std::string encoded = encodeHeader({entry});
  bytes.replace(kHeaderBytes + index * kSectionEntryBytes, kSectionEntryBytes,
                encoded.substr(kHeaderBytes));
}

void fixChecksum(std::string &bytes, size_t index) {
  SectionEntry entry = entryAt(bytes, index);
  std::string_view data =
      std::string_view(bytes).substr(entry.offset, entry.size);
  entry.checksum = sectionChecksum(
      {reinterpret_cast<const uint8_t *>(data.data()), data.size()});
  setEntry(bytes, index, entry);
}

std::string
assemble(const std::vector<std::pair<SectionKind, std::string>> &sections) {
  std::vector<SectionEntry> entries(sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    const std::string &data = sections[i].second;
    entries[i].kind = uint32_t(sections[i].first);
    entries[i].size = data.size();
    entries[i].checksum = sectionChecksum(
        {reinterpret_cast<const uint8_t *>(data.data()), data.size()});
  }
  assignOffsets(entries);
  std::string bytes = encodeHeader(entries);
  for (size_t i = 0; i < sections.size(); ++i) {
    bytes.resize(entries[i].offset, '\0');
    bytes += sections[i].second;
  }
  return bytes;
}

std::string assembleSample(const std::string &manifestBytes) {
  BinaryWriter writer = makeSampleWriter();
  std::string coeff(writer.coeffBytes(), '\0');
  return assemble({{SectionKind::Manifest, manifestBytes},
                   {SectionKind::Stream, "prefill stream bytes"},
                   {SectionKind::Stream, std::string(300, 'd')},
                   {SectionKind::Coeff, coeff}});
}

} // namespace llmc::binary::test
