//===- TestBinaries.h - sample binaries and byte surgery --------*- C++ -*-===//
//
// Helpers for the format tests: a writer with every manifest field set,
// scratch files, and edits of a written file's header and sections.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_FORMAT_TEST_TESTBINARIES_H
#define LLMC_RUNTIME_FORMAT_TEST_TESTBINARIES_H

#include "runtime/format/BinaryReader.h"
#include "runtime/format/BinaryWriter.h"
#include "runtime/format/Format.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmc::binary::test {

/// Bytes of the sample weights.
std::vector<uint8_t> sampleWeight(size_t size, uint8_t seed);

/// A writer with every manifest field set: two pieces (a prefill and a
/// decode sharing their weights), two streams, three weight blobs and a
/// tokenizer.
BinaryWriter makeSampleWriter();

/// A fresh empty directory for one test.
std::string scratchDirectory();

/// The bytes of file `path` (empty if unreadable).
std::string readFile(const std::string &path);

/// Replaces file `path` by `bytes`.
void writeFile(const std::string &path, std::string_view bytes);

/// The names in `directory`.
std::vector<std::string> listDirectory(const std::string &directory);

/// Opens the file held by `bytes` from memory and returns "" on success or
/// the error message.
std::string openError(std::string_view bytes, bool verifyChecksums = true);

/// Section table entry `index` of the file held by `bytes`.
SectionEntry entryAt(std::string_view bytes, size_t index);

/// Overwrites section table entry `index` of `bytes` with `entry`.
void setEntry(std::string &bytes, size_t index, const SectionEntry &entry);

/// Stores the right checksum for section `index` of `bytes`.
void fixChecksum(std::string &bytes, size_t index);

/// A file laid out as the format says from (kind, bytes) sections, with
/// correct checksums; lets tests build files the writer refuses.
std::string
assemble(const std::vector<std::pair<SectionKind, std::string>> &sections);

/// The sample writer's manifest, serialized, with `edit` applied.
template <typename Edit> std::string sampleManifestBytes(Edit edit) {
  Manifest manifest = makeSampleWriter().manifest();
  manifest.set_format_version(kFormatVersion);
  manifest.set_coeff_bytes(makeSampleWriter().coeffBytes());
  edit(manifest);
  return manifest.SerializeAsString();
}

/// The sample's sections with the given manifest bytes.
std::string assembleSample(const std::string &manifestBytes);

} // namespace llmc::binary::test

#endif // LLMC_RUNTIME_FORMAT_TEST_TESTBINARIES_H
