//===- ManifestCheck.cpp - a manifest against its file's sections ---------===//

#include "runtime/format/ManifestCheck.h"

#include "runtime/format/Format.h"
#include "support/Strings.h"

#include <set>
#include <string>

namespace llmc::binary {

using support::strCat;

static absl::Status checkWeights(const Manifest &manifest, uint64_t coeffBytes,
                                 std::set<std::string> &names) {
  if (manifest.coeff_bytes() != coeffBytes)
    return absl::InvalidArgumentError(
        strCat("the manifest's coeff_bytes (", manifest.coeff_bytes(),
               ") differs from the COEFF section's size (", coeffBytes, ")"));
  for (const WeightBlob &blob : manifest.weights()) {
    if (!names.insert(blob.name()).second)
      return absl::InvalidArgumentError(
          strCat("weight blob '", blob.name(), "' appears twice"));
    if (blob.offset() % kAlignment != 0)
      return absl::InvalidArgumentError(
          strCat("weight blob '", blob.name(), "' at offset ", blob.offset(),
                 " is not ", kAlignment, "-byte aligned"));
    if (blob.offset() > coeffBytes || blob.bytes() > coeffBytes - blob.offset())
      return absl::InvalidArgumentError(
          strCat("weight blob '", blob.name(), "' (offset ", blob.offset(),
                 ", ", blob.bytes(), " bytes) lies outside the coeff section (",
                 coeffBytes, " bytes)"));
  }
  return absl::OkStatus();
}

static absl::Status checkPieces(const Manifest &manifest,
                                absl::Span<const uint32_t> sectionKinds,
                                const std::set<std::string> &weights) {
  std::set<std::string> names;
  for (const Piece &piece : manifest.pieces()) {
    if (!names.insert(piece.name()).second)
      return absl::InvalidArgumentError(
          strCat("piece '", piece.name(), "' appears twice"));
    uint64_t section = piece.stream_section();
    if (section >= sectionKinds.size())
      return absl::InvalidArgumentError(
          strCat("piece '", piece.name(), "' names section ", section,
                 ", which is missing (the file has ", sectionKinds.size(),
                 " sections)"));
    if (sectionKinds[section] != uint32_t(SectionKind::Stream))
      return absl::InvalidArgumentError(strCat(
          "piece '", piece.name(), "' names section ", section, ", which is a ",
          sectionKindName(sectionKinds[section]), " section, not a STREAM"));
    for (const std::string &weight : piece.weights())
      if (!weights.count(weight))
        return absl::InvalidArgumentError(strCat("piece '", piece.name(),
                                                 "' uses weight '", weight,
                                                 "', which has no blob"));
  }
  return absl::OkStatus();
}

absl::Status checkManifest(const Manifest &manifest,
                           absl::Span<const uint32_t> sectionKinds,
                           uint64_t coeffBytes) {
  if (manifest.format_version() != kFormatVersion)
    return absl::InvalidArgumentError(
        strCat("the manifest's format_version is ", manifest.format_version(),
               ", not ", kFormatVersion));
  std::set<std::string> weights;
  LLMC_RETURN_IF_ERROR(checkWeights(manifest, coeffBytes, weights));
  return checkPieces(manifest, sectionKinds, weights);
}

} // namespace llmc::binary
