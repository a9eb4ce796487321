//===- BinaryWriter.h - writing .llmc binaries ------------------*- C++ -*-===//
//
// Collects what a `.llmc` binary holds (docs/binary-format.md) and writes it
// atomically: a manifest, command streams, the weights (the COEFF section)
// and tokenizer.json.
//
//   BinaryWriter writer;
//   writer.manifest().set_chip("bm1684x");
//   LLMC_ASSIGN_OR_RETURN(uint64_t up,
//                         writer.addWeight("w.up", bytes, "i4", {64, 128}));
//   Piece &piece = *writer.manifest().add_pieces();
//   piece.set_stream_section(writer.addStream(serializeStream(stream)));
//   LLMC_RETURN_IF_ERROR(writer.write("model.llmc"));
//
// The same calls give byte-identical files.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_FORMAT_BINARYWRITER_H
#define LLMC_RUNTIME_FORMAT_BINARYWRITER_H

#include "runtime/format/llmc_binary.pb.h"
#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::binary {

/// Builds one `.llmc` file. Sections are laid out as MANIFEST (section 0),
/// the STREAMs in the order added (sections 1, 2, ...), COEFF, then
/// TOKENIZER when set.
class BinaryWriter {
public:
  /// The manifest to write. The writer owns `weights`, `coeff_bytes` and
  /// `format_version`; the caller fills the rest.
  Manifest &manifest() { return manifestProto; }
  const Manifest &manifest() const { return manifestProto; }

  /// Adds a STREAM section holding `bytes` (a serialized command stream) and
  /// returns its index in the section table, for Piece.stream_section.
  uint64_t addStream(std::string bytes);

  /// Appends weight `name` to the COEFF section at the next 64-byte aligned
  /// offset, records its WeightBlob and returns the offset. Adding a name
  /// again with identical bytes, dtype and shape returns the first blob's
  /// offset (phases share their weights); anything else is an error.
  absl::StatusOr<uint64_t> addWeight(std::string_view name,
                                     absl::Span<const uint8_t> bytes,
                                     std::string_view dtype,
                                     absl::Span<const int64_t> shape);

  /// The COEFF section as laid out so far (weights at their offsets).
  absl::Span<const uint8_t> getCoeff() const { return coeff; }
  /// Sets the TOKENIZER section to the bytes of a tokenizer.json.
  void setTokenizerJson(std::string json) { tokenizer = std::move(json); }

  /// Bytes of the COEFF section so far.
  uint64_t coeffBytes() const { return coeff.size(); }

  /// Writes the binary to `path` through a temporary file in the same
  /// directory that is renamed over `path` only when complete: on error (or
  /// if the process is killed) no partial file is left at `path`. Fails
  /// when the manifest is inconsistent with the sections (ManifestCheck.h).
  absl::Status write(const std::string &path) const;

  /// Writes the whole binary to `os`.
  absl::Status writeTo(std::ostream &os) const;

private:
  Manifest manifestProto;
  std::vector<std::string> streams;
  std::vector<uint8_t> coeff;
  std::optional<std::string> tokenizer;
  /// Index in manifestProto.weights() of each blob by name.
  std::map<std::string, int, std::less<>> weightIndex;
};

} // namespace llmc::binary

#endif // LLMC_RUNTIME_FORMAT_BINARYWRITER_H
