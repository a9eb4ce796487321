//===- Format.cpp - the fixed layout of a .llmc file ----------------------===//

#include "runtime/format/Format.h"

#include "llvm/Support/Alignment.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/xxhash.h"

namespace llmc::binary {

namespace endian = llvm::support::endian;

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

uint64_t sectionChecksum(llvm::ArrayRef<uint8_t> data) {
  return llvm::xxh3_64bits(data);
}

void assignOffsets(llvm::MutableArrayRef<SectionEntry> sections) {
  uint64_t cursor = tableEnd(sections.size());
  for (SectionEntry &section : sections) {
    section.offset = llvm::alignTo(cursor, kAlignment);
    cursor = section.end();
  }
}

std::string encodeHeader(llvm::ArrayRef<SectionEntry> sections) {
  std::string bytes(tableEnd(sections.size()), '\0');
  auto *out = reinterpret_cast<uint8_t *>(bytes.data());
  std::copy(std::begin(kMagic), std::end(kMagic), bytes.begin());
  endian::write32le(out + 8, kFormatVersion);
  endian::write32le(out + 12, uint32_t(sections.size()));
  uint8_t *entry = out + kHeaderBytes;
  for (const SectionEntry &section : sections) {
    endian::write32le(entry, section.kind);
    endian::write32le(entry + 4, section.reserved);
    endian::write64le(entry + 8, section.offset);
    endian::write64le(entry + 16, section.size);
    endian::write64le(entry + 24, section.checksum);
    entry += kSectionEntryBytes;
  }
  return bytes;
}

SectionEntry decodeSectionEntry(const uint8_t *bytes) {
  SectionEntry section;
  section.kind = endian::read32le(bytes);
  section.reserved = endian::read32le(bytes + 4);
  section.offset = endian::read64le(bytes + 8);
  section.size = endian::read64le(bytes + 16);
  section.checksum = endian::read64le(bytes + 24);
  return section;
}

} // namespace llmc::binary
