//===- BinaryReader.cpp - loading .llmc binaries --------------------------===//

#include "runtime/format/BinaryReader.h"

#include "runtime/format/ManifestCheck.h"
#include "support/Strings.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>

namespace llmc::binary {

using support::strCat;

static absl::Status invalid(std::string message) {
  return absl::InvalidArgumentError(message);
}

/// "section K (KIND)".
static std::string describe(size_t index, const SectionEntry &section) {
  return strCat("section ", index, " (", sectionKindName(section.kind), ")");
}

static const uint8_t *asBytes(const char *data) {
  return reinterpret_cast<const uint8_t *>(data);
}

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

absl::StatusOr<std::unique_ptr<LoadedBinary>>
LoadedBinary::open(const std::string &path, bool verifyChecksums) {
  absl::StatusOr<std::unique_ptr<support::MappedFile>> mapped =
      support::MappedFile::open(path);
  if (!mapped.ok())
    return absl::Status(mapped.status().code(),
                        strCat("cannot open '", path,
                               "': ", support::errorReason(mapped.status())));
  std::unique_ptr<LoadedBinary> binary(new LoadedBinary(path));
  binary->file = (*mapped)->bytes();
  binary->mapped = std::move(*mapped);
  return check(std::move(binary), verifyChecksums);
}

absl::StatusOr<std::unique_ptr<LoadedBinary>>
LoadedBinary::fromBytes(std::string_view bytes, std::string name,
                        bool verifyChecksums) {
  std::unique_ptr<LoadedBinary> binary(new LoadedBinary(std::move(name)));
  binary->copy.reset(new Line[(bytes.size() + kAlignment - 1) / kAlignment]);
  char *start = reinterpret_cast<char *>(binary->copy.get());
  std::copy(bytes.begin(), bytes.end(), start);
  binary->file = std::string_view(start, bytes.size());
  return check(std::move(binary), verifyChecksums);
}

absl::StatusOr<std::unique_ptr<LoadedBinary>>
LoadedBinary::check(std::unique_ptr<LoadedBinary> binary,
                    bool verifyChecksums) {
  absl::Status loaded = binary->load(verifyChecksums);
  if (!loaded.ok())
    return absl::Status(loaded.code(), strCat(binary->name(), ": ",
                                              std::string(loaded.message())));
  return binary;
}

absl::Status LoadedBinary::load(bool verifyChecksums) {
  LLMC_RETURN_IF_ERROR(readSectionTable());
  LLMC_RETURN_IF_ERROR(checkLayout());
  if (verifyChecksums)
    LLMC_RETURN_IF_ERROR(checkChecksums());
  return readSections();
}

//===----------------------------------------------------------------------===//
// Header and section table
//===----------------------------------------------------------------------===//

absl::Status LoadedBinary::readSectionTable() {
  std::string_view magic(kMagic, sizeof(kMagic));
  if (!support::startsWith(magic, file.substr(0, magic.size())))
    return invalid("not an llmc binary (bad magic)");
  if (file.size() < kHeaderBytes)
    return invalid(strCat("truncated: ", file.size(),
                          " bytes, shorter than the ", kHeaderBytes,
                          "-byte header"));
  const uint8_t *bytes = asBytes(file.data());
  auto version = support::readLittleEndian<uint32_t>(bytes + 8);
  if (version != kFormatVersion)
    return invalid(strCat("unsupported format version ", version,
                          " (this build reads ", kFormatVersion, ")"));
  auto count = support::readLittleEndian<uint32_t>(bytes + 12);
  if (tableEnd(count) > file.size())
    return invalid(strCat("truncated: the header and its table of ", count,
                          " sections need ", tableEnd(count),
                          " bytes, the file has ", file.size()));
  sectionTable.reserve(count);
  for (uint32_t i = 0; i < count; ++i)
    sectionTable.push_back(
        decodeSectionEntry(bytes + kHeaderBytes + i * kSectionEntryBytes));
  return absl::OkStatus();
}

/// Checks that the bytes [begin, end) of `file` are zero padding.
static absl::Status checkPadding(std::string_view file, uint64_t begin,
                                 uint64_t end) {
  for (uint64_t i = begin; i < end; ++i)
    if (file[i] != '\0')
      return invalid(
          strCat("byte ", i, " lies between sections and is not zero padding"));
  return absl::OkStatus();
}

absl::Status LoadedBinary::checkLayout() const {
  uint64_t fileSize = file.size();
  uint64_t headerEnd = tableEnd(sectionTable.size());
  unsigned counts[5] = {};
  for (size_t index = 0; index < sectionTable.size(); ++index) {
    const SectionEntry &section = sectionTable[index];
    std::string name = describe(index, section);
    if (!isKnownSectionKind(section.kind))
      return invalid(name + " has an unknown kind");
    if (section.reserved != 0)
      return invalid(name + " has a nonzero reserved field");
    if (section.offset % kAlignment != 0)
      return invalid(strCat(name, " at offset ", section.offset, " is not ",
                            kAlignment, "-byte aligned"));
    if (section.offset < headerEnd)
      return invalid(strCat(name, " at offset ", section.offset,
                            " overlaps the section table"));
    if (section.offset > fileSize || section.size > fileSize - section.offset)
      return invalid(strCat(
          "truncated: ", name, " (offset ", section.offset, ", ", section.size,
          " bytes) extends beyond the end of the file (", fileSize, " bytes)"));
    ++counts[section.kind];
  }
  if (counts[uint32_t(SectionKind::Manifest)] == 0)
    return invalid("no MANIFEST section");
  if (counts[uint32_t(SectionKind::Manifest)] > 1)
    return invalid("more than one MANIFEST section");
  if (counts[uint32_t(SectionKind::Coeff)] != 1)
    return invalid(strCat("the file has ", counts[uint32_t(SectionKind::Coeff)],
                          " COEFF sections, not exactly one"));
  if (counts[uint32_t(SectionKind::Tokenizer)] > 1)
    return invalid("more than one TOKENIZER section");

  // In offset order, sections must not overlap and the bytes between them
  // must be zero.
  std::vector<size_t> order(sectionTable.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const SectionEntry &x = sectionTable[a], &y = sectionTable[b];
    return std::make_pair(x.offset, x.end()) <
           std::make_pair(y.offset, y.end());
  });
  uint64_t cursor = headerEnd;
  size_t previous = 0;
  for (size_t index : order) {
    const SectionEntry &section = sectionTable[index];
    if (section.offset < cursor)
      return invalid(describe(index, section) + " overlaps " +
                     describe(previous, sectionTable[previous]));
    LLMC_RETURN_IF_ERROR(checkPadding(file, cursor, section.offset));
    cursor = section.end();
    previous = index;
  }
  return checkPadding(file, cursor, fileSize);
}

absl::Status LoadedBinary::checkChecksums() const {
  for (size_t index = 0; index < sectionTable.size(); ++index) {
    const SectionEntry &section = sectionTable[index];
    std::string_view bytes = bytesOf(section);
    uint64_t checksum = sectionChecksum({asBytes(bytes.data()), bytes.size()});
    if (checksum != section.checksum)
      return invalid("checksum mismatch in " + describe(index, section));
  }
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Sections
//===----------------------------------------------------------------------===//

std::string_view LoadedBinary::bytesOf(const SectionEntry &section) const {
  return file.substr(section.offset, section.size);
}

absl::Status LoadedBinary::readSections() {
  std::vector<uint32_t> kinds;
  for (const SectionEntry &section : sectionTable) {
    kinds.push_back(section.kind);
    std::string_view bytes = bytesOf(section);
    switch (SectionKind(section.kind)) {
    case SectionKind::Manifest:
      if (bytes.size() > size_t(INT_MAX) ||
          !manifestProto.ParseFromArray(bytes.data(), int(bytes.size())))
        return invalid(
            strCat("the manifest (", bytes.size(),
                   " bytes) does not parse as an llmc.binary.Manifest"));
      break;
    case SectionKind::Coeff:
      coeffBytes = {asBytes(bytes.data()), bytes.size()};
      break;
    case SectionKind::Tokenizer:
      tokenizer = bytes;
      break;
    case SectionKind::Stream:
      break;
    }
  }
  LLMC_RETURN_IF_ERROR(checkManifest(manifestProto, kinds, coeffBytes.size()));
  for (int index = 0; index < manifestProto.weights_size(); ++index)
    weightIndex[manifestProto.weights(index).name()] = index;
  return absl::OkStatus();
}

absl::StatusOr<absl::Span<const uint8_t>>
LoadedBinary::weight(std::string_view name) const {
  auto found = weightIndex.find(name);
  if (found == weightIndex.end())
    return absl::NotFoundError(
        strCat(fileName, ": no weight blob named '", name, "'"));
  const WeightBlob &blob = manifestProto.weights(found->second);
  return coeffBytes.subspan(blob.offset(), blob.bytes());
}

absl::StatusOr<std::string_view>
LoadedBinary::streamBytes(uint64_t section) const {
  if (section >= sectionTable.size())
    return absl::NotFoundError(strCat(fileName, ": section ", section,
                                      " is missing (the file has ",
                                      sectionTable.size(), " sections)"));
  const SectionEntry &entry = sectionTable[section];
  if (entry.kind != uint32_t(SectionKind::Stream))
    return invalid(strCat(fileName, ": ", describe(section, entry),
                          " is not a STREAM section"));
  return bytesOf(entry);
}

} // namespace llmc::binary
