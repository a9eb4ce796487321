//===- BinaryReader.h - loading .llmc binaries ------------------*- C++ -*-===//
//
// Opens a `.llmc` binary (docs/binary-format.md) by memory-mapping it,
// checks its header, section table, checksums and manifest, and gives
// zero-copy access to its sections.
//
//   LLMC_ASSIGN_OR_RETURN(std::unique_ptr<LoadedBinary> binary,
//                         LoadedBinary::open("model.llmc"));
//   for (const Piece &piece : binary->manifest().pieces()) {
//     LLMC_ASSIGN_OR_RETURN(std::string_view stream,
//                           binary->streamBytes(piece.stream_section()));
//     ...
//   }
//
// Every failure is a status naming the file; no input crashes the reader.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_FORMAT_BINARYREADER_H
#define LLMC_RUNTIME_FORMAT_BINARYREADER_H

#include "runtime/format/Format.h"
#include "runtime/format/llmc_binary.pb.h"
#include "support/File.h"
#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::binary {

/// A checked `.llmc` binary, mapped read-only for as long as it lives.
class LoadedBinary {
public:
  /// Maps and checks the binary at `path`. `verifyChecksums` false skips
  /// hashing the sections (every structural check still runs).
  static absl::StatusOr<std::unique_ptr<LoadedBinary>>
  open(const std::string &path, bool verifyChecksums = true);

  /// Checks a copy of the binary `bytes`, named `name` in errors; the copy
  /// is 64-byte aligned in memory, as a mapped file is.
  static absl::StatusOr<std::unique_ptr<LoadedBinary>>
  fromBytes(std::string_view bytes, std::string name,
            bool verifyChecksums = true);

  /// The manifest.
  const Manifest &manifest() const { return manifestProto; }

  /// The COEFF section; its data is 64-byte aligned in memory, and so is
  /// every weight blob.
  absl::Span<const uint8_t> coeff() const { return coeffBytes; }

  /// The bytes of weight `name` within coeff().
  absl::StatusOr<absl::Span<const uint8_t>> weight(std::string_view name) const;

  /// The bytes of STREAM section `section` (a section table index, as in
  /// Piece.stream_section).
  absl::StatusOr<std::string_view> streamBytes(uint64_t section) const;

  /// The bytes of tokenizer.json; empty when the file has no TOKENIZER.
  std::string_view tokenizerJson() const { return tokenizer; }

  /// The section table as stored.
  absl::Span<const SectionEntry> sections() const { return sectionTable; }

  /// The name the binary was opened under.
  const std::string &name() const { return fileName; }

private:
  /// 64 bytes that start 64-byte aligned: the unit of a copied binary.
  struct alignas(kAlignment) Line {
    char bytes[kAlignment];
  };

  explicit LoadedBinary(std::string name) : fileName(std::move(name)) {}

  /// Checks `binary`, whose bytes are set; errors name it.
  static absl::StatusOr<std::unique_ptr<LoadedBinary>>
  check(std::unique_ptr<LoadedBinary> binary, bool verifyChecksums);

  /// Reads and checks everything; errors are not yet prefixed by the name.
  absl::Status load(bool verifyChecksums);
  absl::Status readSectionTable();
  absl::Status checkLayout() const;
  absl::Status checkChecksums() const;
  absl::Status readSections();

  /// The bytes of `section`, which lies inside the file.
  std::string_view bytesOf(const SectionEntry &section) const;

  std::string fileName;
  /// The whole binary, held by `mapped` or `copy`.
  std::string_view file;
  std::unique_ptr<support::MappedFile> mapped;
  std::unique_ptr<Line[]> copy;
  std::vector<SectionEntry> sectionTable;
  Manifest manifestProto;
  absl::Span<const uint8_t> coeffBytes;
  std::string_view tokenizer;
  /// Index in manifestProto.weights() of each blob by name.
  std::map<std::string, int, std::less<>> weightIndex;
};

} // namespace llmc::binary

#endif // LLMC_RUNTIME_FORMAT_BINARYREADER_H
