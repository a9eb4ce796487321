//===- BinaryReader.cpp - loading .llmc binaries --------------------------===//

#include "runtime/format/BinaryReader.h"

#include "runtime/format/ManifestCheck.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>

namespace llmc::binary {

namespace endian = llvm::support::endian;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// "section K (KIND)".
static std::string describe(size_t index, const SectionEntry &section) {
  return "section " + std::to_string(index) + " (" +
         sectionKindName(section.kind) + ")";
}

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<LoadedBinary>>
LoadedBinary::open(llvm::StringRef path, bool verifyChecksums) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false,
                                  /*IsVolatile=*/false,
                                  llvm::Align(kAlignment));
  if (!buffer)
    return fail("cannot open '" + path + "': " + buffer.getError().message());
  return fromBuffer(std::move(*buffer), verifyChecksums);
}

llvm::Expected<std::unique_ptr<LoadedBinary>>
LoadedBinary::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                         bool verifyChecksums) {
  std::unique_ptr<LoadedBinary> binary(new LoadedBinary(std::move(buffer)));
  if (llvm::Error error = binary->load(verifyChecksums))
    return fail(binary->name() + ": " + llvm::toString(std::move(error)));
  return binary;
}

llvm::Error LoadedBinary::load(bool verifyChecksums) {
  if (reinterpret_cast<uintptr_t>(buffer->getBufferStart()) % kAlignment != 0)
    return fail("the buffer is not " + llvm::Twine(kAlignment) +
                "-byte aligned in memory");
  if (llvm::Error error = readSectionTable())
    return error;
  if (llvm::Error error = checkLayout())
    return error;
  if (verifyChecksums)
    if (llvm::Error error = checkChecksums())
      return error;
  return readSections();
}

//===----------------------------------------------------------------------===//
// Header and section table
//===----------------------------------------------------------------------===//

llvm::Error LoadedBinary::readSectionTable() {
  llvm::StringRef file = buffer->getBuffer();
  llvm::StringRef magic(kMagic, sizeof(kMagic));
  if (!magic.starts_with(file.take_front(magic.size())))
    return fail("not an llmc binary (bad magic)");
  if (file.size() < kHeaderBytes)
    return fail("truncated: " + llvm::Twine(file.size()) +
                " bytes, shorter than the " + llvm::Twine(kHeaderBytes) +
                "-byte header");
  const auto *bytes = reinterpret_cast<const uint8_t *>(file.data());
  uint32_t version = endian::read32le(bytes + 8);
  if (version != kFormatVersion)
    return fail("unsupported format version " + llvm::Twine(version) +
                " (this build reads " + llvm::Twine(kFormatVersion) + ")");
  uint32_t count = endian::read32le(bytes + 12);
  if (tableEnd(count) > file.size())
    return fail("truncated: the header and its table of " + llvm::Twine(count) +
                " sections need " + llvm::Twine(tableEnd(count)) +
                " bytes, the file has " + llvm::Twine(file.size()));
  sectionTable.reserve(count);
  for (uint32_t i = 0; i < count; ++i)
    sectionTable.push_back(
        decodeSectionEntry(bytes + kHeaderBytes + i * kSectionEntryBytes));
  return llvm::Error::success();
}

/// Checks that the bytes [begin, end) of `file` are zero padding.
static llvm::Error checkPadding(llvm::StringRef file, uint64_t begin,
                                uint64_t end) {
  for (uint64_t i = begin; i < end; ++i)
    if (file[i] != '\0')
      return fail("byte " + llvm::Twine(i) +
                  " lies between sections and is not zero padding");
  return llvm::Error::success();
}

llvm::Error LoadedBinary::checkLayout() const {
  uint64_t fileSize = buffer->getBufferSize();
  uint64_t headerEnd = tableEnd(sectionTable.size());
  unsigned counts[5] = {};
  for (auto [index, section] : llvm::enumerate(sectionTable)) {
    std::string name = describe(index, section);
    if (!isKnownSectionKind(section.kind))
      return fail(name + " has an unknown kind");
    if (section.reserved != 0)
      return fail(name + " has a nonzero reserved field");
    if (section.offset % kAlignment != 0)
      return fail(name + " at offset " + llvm::Twine(section.offset) +
                  " is not " + llvm::Twine(kAlignment) + "-byte aligned");
    if (section.offset < headerEnd)
      return fail(name + " at offset " + llvm::Twine(section.offset) +
                  " overlaps the section table");
    if (section.offset > fileSize || section.size > fileSize - section.offset)
      return fail("truncated: " + name + " (offset " +
                  llvm::Twine(section.offset) + ", " +
                  llvm::Twine(section.size) +
                  " bytes) extends beyond the end of the file (" +
                  llvm::Twine(fileSize) + " bytes)");
    ++counts[section.kind];
  }
  if (counts[uint32_t(SectionKind::Manifest)] == 0)
    return fail("no MANIFEST section");
  if (counts[uint32_t(SectionKind::Manifest)] > 1)
    return fail("more than one MANIFEST section");
  if (counts[uint32_t(SectionKind::Coeff)] != 1)
    return fail("the file has " +
                llvm::Twine(counts[uint32_t(SectionKind::Coeff)]) +
                " COEFF sections, not exactly one");
  if (counts[uint32_t(SectionKind::Tokenizer)] > 1)
    return fail("more than one TOKENIZER section");

  // In offset order, sections must not overlap and the bytes between them
  // must be zero.
  std::vector<size_t> order(sectionTable.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order, [&](size_t a, size_t b) {
    const SectionEntry &x = sectionTable[a], &y = sectionTable[b];
    return std::make_pair(x.offset, x.end()) <
           std::make_pair(y.offset, y.end());
  });
  uint64_t cursor = headerEnd;
  size_t previous = 0;
  for (size_t index : order) {
    const SectionEntry &section = sectionTable[index];
    if (section.offset < cursor)
      return fail(describe(index, section) + " overlaps " +
                  describe(previous, sectionTable[previous]));
    if (llvm::Error error =
            checkPadding(buffer->getBuffer(), cursor, section.offset))
      return error;
    cursor = section.end();
    previous = index;
  }
  return checkPadding(buffer->getBuffer(), cursor, fileSize);
}

llvm::Error LoadedBinary::checkChecksums() const {
  for (auto [index, section] : llvm::enumerate(sectionTable)) {
    llvm::StringRef bytes = bytesOf(section);
    uint64_t checksum = sectionChecksum({bytes.bytes_begin(), bytes.size()});
    if (checksum != section.checksum)
      return fail("checksum mismatch in " + describe(index, section));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Sections
//===----------------------------------------------------------------------===//

llvm::StringRef LoadedBinary::bytesOf(const SectionEntry &section) const {
  return buffer->getBuffer().substr(section.offset, section.size);
}

llvm::Error LoadedBinary::readSections() {
  std::vector<uint32_t> kinds;
  for (const SectionEntry &section : sectionTable) {
    kinds.push_back(section.kind);
    llvm::StringRef bytes = bytesOf(section);
    switch (SectionKind(section.kind)) {
    case SectionKind::Manifest:
      if (bytes.size() > size_t(INT_MAX) ||
          !manifestProto.ParseFromArray(bytes.data(), int(bytes.size())))
        return fail("the manifest (" + llvm::Twine(bytes.size()) +
                    " bytes) does not parse as an llmc.binary.Manifest");
      break;
    case SectionKind::Coeff:
      coeffBytes = {bytes.bytes_begin(), bytes.size()};
      break;
    case SectionKind::Tokenizer:
      tokenizer = bytes;
      break;
    case SectionKind::Stream:
      break;
    }
  }
  if (llvm::Error error =
          checkManifest(manifestProto, kinds, coeffBytes.size()))
    return error;
  for (auto [index, blob] : llvm::enumerate(manifestProto.weights()))
    weightIndex[blob.name()] = int(index);
  return llvm::Error::success();
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
LoadedBinary::weight(llvm::StringRef name) const {
  auto found = weightIndex.find(name);
  if (found == weightIndex.end())
    return fail(this->name() + ": no weight blob named '" + name + "'");
  const WeightBlob &blob = manifestProto.weights(found->second);
  return coeffBytes.slice(blob.offset(), blob.bytes());
}

llvm::Expected<llvm::StringRef>
LoadedBinary::streamBytes(uint64_t section) const {
  if (section >= sectionTable.size())
    return fail(name() + ": section " + llvm::Twine(section) +
                " is missing (the file has " +
                llvm::Twine(sectionTable.size()) + " sections)");
  const SectionEntry &entry = sectionTable[section];
  if (entry.kind != uint32_t(SectionKind::Stream))
    return fail(name() + ": " + describe(section, entry) +
                " is not a STREAM section");
  return bytesOf(entry);
}

} // namespace llmc::binary
