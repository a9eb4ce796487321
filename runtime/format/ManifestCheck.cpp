//===- ManifestCheck.cpp - a manifest against its file's sections ---------===//

#include "runtime/format/ManifestCheck.h"

#include "runtime/format/Format.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

namespace llmc::binary {

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::Error checkWeights(const Manifest &manifest, uint64_t coeffBytes,
                                llvm::StringSet<> &names) {
  if (manifest.coeff_bytes() != coeffBytes)
    return fail("the manifest's coeff_bytes (" +
                llvm::Twine(manifest.coeff_bytes()) +
                ") differs from the COEFF section's size (" +
                llvm::Twine(coeffBytes) + ")");
  for (const WeightBlob &blob : manifest.weights()) {
    if (!names.insert(blob.name()).second)
      return fail("weight blob '" + blob.name() + "' appears twice");
    if (blob.offset() % kAlignment != 0)
      return fail("weight blob '" + blob.name() + "' at offset " +
                  llvm::Twine(blob.offset()) + " is not " +
                  llvm::Twine(kAlignment) + "-byte aligned");
    if (blob.offset() > coeffBytes || blob.bytes() > coeffBytes - blob.offset())
      return fail("weight blob '" + blob.name() + "' (offset " +
                  llvm::Twine(blob.offset()) + ", " +
                  llvm::Twine(blob.bytes()) +
                  " bytes) lies outside the coeff section (" +
                  llvm::Twine(coeffBytes) + " bytes)");
  }
  return llvm::Error::success();
}

static llvm::Error checkPieces(const Manifest &manifest,
                               llvm::ArrayRef<uint32_t> sectionKinds,
                               const llvm::StringSet<> &weights) {
  llvm::StringSet<> names;
  for (const Piece &piece : manifest.pieces()) {
    if (!names.insert(piece.name()).second)
      return fail("piece '" + piece.name() + "' appears twice");
    uint64_t section = piece.stream_section();
    if (section >= sectionKinds.size())
      return fail("piece '" + piece.name() + "' names section " +
                  llvm::Twine(section) + ", which is missing (the file has " +
                  llvm::Twine(sectionKinds.size()) + " sections)");
    if (sectionKinds[section] != uint32_t(SectionKind::Stream))
      return fail("piece '" + piece.name() + "' names section " +
                  llvm::Twine(section) + ", which is a " +
                  sectionKindName(sectionKinds[section]) +
                  " section, not a STREAM");
    for (const std::string &weight : piece.weights())
      if (!weights.contains(weight))
        return fail("piece '" + piece.name() + "' uses weight '" + weight +
                    "', which has no blob");
  }
  return llvm::Error::success();
}

llvm::Error checkManifest(const Manifest &manifest,
                          llvm::ArrayRef<uint32_t> sectionKinds,
                          uint64_t coeffBytes) {
  if (manifest.format_version() != kFormatVersion)
    return fail("the manifest's format_version is " +
                llvm::Twine(manifest.format_version()) + ", not " +
                llvm::Twine(kFormatVersion));
  llvm::StringSet<> weights;
  if (llvm::Error error = checkWeights(manifest, coeffBytes, weights))
    return error;
  return checkPieces(manifest, sectionKinds, weights);
}

} // namespace llmc::binary
