//===- BinaryWriter.cpp - writing .llmc binaries --------------------------===//

#include "runtime/format/BinaryWriter.h"

#include "runtime/format/Format.h"
#include "runtime/format/ManifestCheck.h"
#include "support/File.h"
#include "support/Strings.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>

namespace llmc::binary {

static absl::Span<const uint8_t> asBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t *>(text.data()), text.size()};
}

/// `manifest` serialized deterministically: equal manifests give equal
/// bytes.
static std::string serializeManifest(const Manifest &manifest) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream output(&bytes);
    google::protobuf::io::CodedOutputStream coded(&output);
    coded.SetSerializationDeterministic(true);
    manifest.SerializeToCodedStream(&coded);
  }
  return bytes;
}

uint64_t BinaryWriter::addStream(std::string bytes) {
  streams.push_back(std::move(bytes));
  // Section 0 is the manifest.
  return streams.size();
}

absl::StatusOr<uint64_t>
BinaryWriter::addWeight(std::string_view name, absl::Span<const uint8_t> bytes,
                        std::string_view dtype,
                        absl::Span<const int64_t> shape) {
  auto found = weightIndex.find(name);
  if (found != weightIndex.end()) {
    const WeightBlob &blob = manifestProto.weights(found->second);
    absl::Span<const uint8_t> stored(coeff.data() + blob.offset(),
                                     blob.bytes());
    if (stored != bytes || blob.dtype() != dtype ||
        !std::equal(blob.shape().begin(), blob.shape().end(), shape.begin(),
                    shape.end()))
      return absl::InvalidArgumentError(
          support::strCat("weight '", name,
                          "' added twice with different bytes, dtype or "
                          "shape"));
    return blob.offset();
  }
  uint64_t offset = alignUp(coeff.size());
  coeff.resize(offset);
  coeff.insert(coeff.end(), bytes.begin(), bytes.end());
  WeightBlob &blob = *manifestProto.add_weights();
  blob.set_name(std::string(name));
  blob.set_offset(offset);
  blob.set_bytes(bytes.size());
  blob.set_dtype(std::string(dtype));
  for (int64_t dim : shape)
    blob.add_shape(dim);
  weightIndex[std::string(name)] = manifestProto.weights_size() - 1;
  return offset;
}

absl::Status BinaryWriter::writeTo(std::ostream &os) const {
  Manifest manifest = manifestProto;
  manifest.set_format_version(kFormatVersion);
  manifest.set_coeff_bytes(coeff.size());

  // The section contents in table order.
  std::vector<uint32_t> kinds;
  std::vector<absl::Span<const uint8_t>> contents;
  std::string manifestBytes = serializeManifest(manifest);
  kinds.push_back(uint32_t(SectionKind::Manifest));
  contents.push_back(asBytes(manifestBytes));
  for (const std::string &stream : streams) {
    kinds.push_back(uint32_t(SectionKind::Stream));
    contents.push_back(asBytes(stream));
  }
  kinds.push_back(uint32_t(SectionKind::Coeff));
  contents.push_back(coeff);
  if (tokenizer) {
    kinds.push_back(uint32_t(SectionKind::Tokenizer));
    contents.push_back(asBytes(*tokenizer));
  }
  LLMC_RETURN_IF_ERROR(checkManifest(manifest, kinds, coeff.size()));

  std::vector<SectionEntry> sections(kinds.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    sections[i].kind = kinds[i];
    sections[i].size = contents[i].size();
    sections[i].checksum = sectionChecksum(contents[i]);
  }
  assignOffsets(sections);

  std::string header = encodeHeader(sections);
  os << header;
  uint64_t position = header.size();
  // Sections start at the first aligned offset after the previous one, so
  // less than kAlignment bytes of padding precede each.
  static const char kZeros[kAlignment] = {};
  for (size_t i = 0; i < sections.size(); ++i) {
    os.write(kZeros, std::streamsize(sections[i].offset - position));
    os.write(reinterpret_cast<const char *>(contents[i].data()),
             std::streamsize(contents[i].size()));
    position = sections[i].end();
  }
  return absl::OkStatus();
}

absl::Status BinaryWriter::write(const std::string &path) const {
  return support::writeFileAtomically(
      path, [&](std::ostream &os) { return writeTo(os); });
}

} // namespace llmc::binary
