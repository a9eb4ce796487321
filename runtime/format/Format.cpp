//===- Format.cpp - the fixed layout of a .llmc file ----------------------===//

#include "runtime/format/Format.h"

#include "support/Strings.h"

#include <xxhash.h>

namespace llmc::binary {

using support::readLittleEndian;
using support::writeLittleEndian;

std::string sectionKindName(uint32_t kind) {
  switch (SectionKind(kind)) {
  case SectionKind::Manifest:
    return "MANIFEST";
  case SectionKind::Stream:
    return "STREAM";
  case SectionKind::Coeff:
    return "COEFF";
  case SectionKind::Tokenizer:
    return "TOKENIZER";
  }
  return "unknown kind " + std::to_string(kind);
}

bool isKnownSectionKind(uint32_t kind) {
  return kind >= uint32_t(SectionKind::Manifest) &&
         kind <= uint32_t(SectionKind::Tokenizer);
}

uint64_t sectionChecksum(absl::Span<const uint8_t> data) {
  return XXH3_64bits(data.data(), data.size());
}

void assignOffsets(std::vector<SectionEntry> &sections) {
  uint64_t cursor = tableEnd(sections.size());
  for (SectionEntry &section : sections) {
    section.offset = alignUp(cursor);
    cursor = section.end();
  }
}

std::string encodeHeader(absl::Span<const SectionEntry> sections) {
  std::string bytes(tableEnd(sections.size()), '\0');
  auto *out = reinterpret_cast<uint8_t *>(bytes.data());
  std::copy(std::begin(kMagic), std::end(kMagic), bytes.begin());
  writeLittleEndian<uint32_t>(out + 8, kFormatVersion);
  writeLittleEndian<uint32_t>(out + 12, uint32_t(sections.size()));
  uint8_t *entry = out + kHeaderBytes;
  for (const SectionEntry &section : sections) {
    writeLittleEndian<uint32_t>(entry, section.kind);
    writeLittleEndian<uint32_t>(entry + 4, section.reserved);
    writeLittleEndian<uint64_t>(entry + 8, section.offset);
    writeLittleEndian<uint64_t>(entry + 16, section.size);
    writeLittleEndian<uint64_t>(entry + 24, section.checksum);
    entry += kSectionEntryBytes;
  }
  return bytes;
}

SectionEntry decodeSectionEntry(const uint8_t *bytes) {
  SectionEntry section;
  section.kind = readLittleEndian<uint32_t>(bytes);
  section.reserved = readLittleEndian<uint32_t>(bytes + 4);
  section.offset = readLittleEndian<uint64_t>(bytes + 8);
  section.size = readLittleEndian<uint64_t>(bytes + 16);
  section.checksum = readLittleEndian<uint64_t>(bytes + 24);
  return section;
}

} // namespace llmc::binary
