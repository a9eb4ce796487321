//===- BinaryReader.h - loading .llmc binaries ------------------*- C++ -*-===//
//
// Opens a `.llmc` binary (docs/binary-format.md) by memory-mapping it,
// checks its header, section table, checksums and manifest, and gives
// zero-copy access to its sections.
//
//   auto binary = LoadedBinary::open("model.llmc");
//   if (!binary) return binary.takeError();
//   for (const Piece &piece : (*binary)->manifest().pieces()) {
//     llvm::StringRef stream = cantFail(
//         (*binary)->streamBytes(piece.stream_section()));
//     ...
//   }
//
// Every failure is an llvm::Error naming the file; no input crashes the
// reader.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_FORMAT_BINARYREADER_H
#define LLMC_RUNTIME_FORMAT_BINARYREADER_H

#include "runtime/format/Format.h"
#include "runtime/format/llmc_binary.pb.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace llmc::binary {

/// A checked `.llmc` binary, mapped read-only for as long as it lives.
class LoadedBinary {
public:
  /// Maps and checks the binary at `path`. `verifyChecksums` false skips
  /// hashing the sections (every structural check still runs).
  static llvm::Expected<std::unique_ptr<LoadedBinary>>
  open(llvm::StringRef path, bool verifyChecksums = true);

  /// Checks the binary held by `buffer`, whose identifier names it in
  /// errors. The buffer must start at a 64-byte aligned address.
  static llvm::Expected<std::unique_ptr<LoadedBinary>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
             bool verifyChecksums = true);

  /// The manifest.
  const Manifest &manifest() const { return manifestProto; }

  /// The COEFF section; its data is 64-byte aligned in memory, and so is
  /// every weight blob.
  llvm::ArrayRef<uint8_t> coeff() const { return coeffBytes; }

  /// The bytes of weight `name` within coeff().
  llvm::Expected<llvm::ArrayRef<uint8_t>> weight(llvm::StringRef name) const;

  /// The bytes of STREAM section `section` (a section table index, as in
  /// Piece.stream_section).
  llvm::Expected<llvm::StringRef> streamBytes(uint64_t section) const;

  /// The bytes of tokenizer.json; empty when the file has no TOKENIZER.
  llvm::StringRef tokenizerJson() const { return tokenizer; }

  /// The section table as stored.
  llvm::ArrayRef<SectionEntry> sections() const { return sectionTable; }

  /// The name the binary was opened under.
  llvm::StringRef name() const { return buffer->getBufferIdentifier(); }

private:
  explicit LoadedBinary(std::unique_ptr<llvm::MemoryBuffer> buffer)
      : buffer(std::move(buffer)) {}

  /// Reads and checks everything; errors are not yet prefixed by the name.
  llvm::Error load(bool verifyChecksums);
  llvm::Error readSectionTable();
  llvm::Error checkLayout() const;
  llvm::Error checkChecksums() const;
  llvm::Error readSections();

  /// The bytes of `section`, which lies inside the buffer.
  llvm::StringRef bytesOf(const SectionEntry &section) const;

  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::vector<SectionEntry> sectionTable;
  Manifest manifestProto;
  llvm::ArrayRef<uint8_t> coeffBytes;
  llvm::StringRef tokenizer;
  /// Index in manifestProto.weights() of each blob by name.
  llvm::StringMap<int> weightIndex;
};

} // namespace llmc::binary

#endif // LLMC_RUNTIME_FORMAT_BINARYREADER_H
