//===- ManifestCheck.h - a manifest against its file's sections -*- C++ -*-===//
//
// The consistency rules between a Manifest and the sections of its file
// (docs/binary-format.md, "Manifest rules"). BinaryWriter checks them before
// writing and LoadedBinary after reading, so a file that one accepts the
// other accepts too.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_FORMAT_MANIFESTCHECK_H
#define LLMC_RUNTIME_FORMAT_MANIFESTCHECK_H

#include "runtime/format/llmc_binary.pb.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>

namespace llmc::binary {

/// Checks `manifest` against a file whose section `i` has kind
/// `sectionKinds[i]` and whose COEFF section has `coeffBytes` bytes: the
/// format version, unique weight names, every blob 64-byte aligned and inside
/// the COEFF section, `coeff_bytes`, unique piece names, every piece's stream
/// section a STREAM and every weight it names present.
absl::Status checkManifest(const Manifest &manifest,
                           absl::Span<const uint32_t> sectionKinds,
                           uint64_t coeffBytes);

} // namespace llmc::binary

#endif // LLMC_RUNTIME_FORMAT_MANIFESTCHECK_H
