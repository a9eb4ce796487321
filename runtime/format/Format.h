//===- Format.h - the fixed layout of a .llmc file --------------*- C++ -*-===//
//
// The byte layout shared by BinaryWriter and LoadedBinary
// (docs/binary-format.md): a 16-byte little-endian header, a table of
// 32-byte section entries, then the sections, each at a 64-byte aligned
// offset with zero padding between them.
//
//   offset 0   char[8]  magic "LLMC\0BIN"
//          8   uint32   format version (1)
//         12   uint32   section count N
//         16   N x { uint32 kind, uint32 reserved (0), uint64 offset,
//                    uint64 size, uint64 xxh3_64 of the section bytes }
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_FORMAT_FORMAT_H
#define LLMC_RUNTIME_FORMAT_FORMAT_H

#include "absl/types/span.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llmc::binary {

/// The first eight bytes of every `.llmc` file.
inline constexpr char kMagic[8] = {'L', 'L', 'M', 'C', '\0', 'B', 'I', 'N'};
/// The format version this build writes and reads.
inline constexpr uint32_t kFormatVersion = 1;
/// Alignment of every section offset and of every weight blob.
inline constexpr uint64_t kAlignment = 64;
/// Bytes of the fixed header: magic, version, section count.
inline constexpr uint64_t kHeaderBytes = 16;
/// Bytes of one section table entry.
inline constexpr uint64_t kSectionEntryBytes = 32;

/// What a section holds.
enum class SectionKind : uint32_t {
  /// The serialized Manifest; exactly one per file.
  Manifest = 1,
  /// One serialized command stream (opaque here); any number.
  Stream = 2,
  /// The weights, each blob where its WeightBlob says; exactly one.
  Coeff = 3,
  /// The bytes of tokenizer.json; at most one.
  Tokenizer = 4,
};

/// One entry of the section table, as stored.
struct SectionEntry {
  uint32_t kind = 0;
  uint32_t reserved = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t checksum = 0;

  uint64_t end() const { return offset + size; }
};

/// "MANIFEST", "STREAM", "COEFF", "TOKENIZER", or "unknown kind N".
std::string sectionKindName(uint32_t kind);

/// Whether `kind` is one of SectionKind.
bool isKnownSectionKind(uint32_t kind);

/// Bytes of the header and a table of `count` sections.
inline uint64_t tableEnd(uint64_t count) {
  return kHeaderBytes + count * kSectionEntryBytes;
}

/// The first multiple of kAlignment at or after `offset`.
inline uint64_t alignUp(uint64_t offset) {
  return (offset + kAlignment - 1) / kAlignment * kAlignment;
}

/// The checksum stored for section bytes `data`: xxh3_64.
uint64_t sectionChecksum(absl::Span<const uint8_t> data);

/// Sets the offset of each of `sections` (sizes given): in order, each at the
/// first 64-byte boundary after the table or the previous section.
void assignOffsets(std::vector<SectionEntry> &sections);

/// The header and section table for `sections` (unpadded).
std::string encodeHeader(absl::Span<const SectionEntry> sections);

/// Reads the section entry stored at `bytes` (kSectionEntryBytes bytes).
SectionEntry decodeSectionEntry(const uint8_t *bytes);

} // namespace llmc::binary

#endif // LLMC_RUNTIME_FORMAT_FORMAT_H
