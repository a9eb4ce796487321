//===- BinaryMerge.h - binaries of some pieces into one ---------*- C++ -*-===//
//
// `llmc convert --pieces` compiles some of a model's pieces into a binary of
// their own, so a build system can compile each piece as a separate,
// cacheable action; merging those binaries gives the binary a single
// `llmc convert` writes, byte for byte, when the inputs come in the model's
// piece order (`llmc pieces --list`):
//
//   - the pieces keep their order and their streams their order;
//   - every weight is stored once, in first-use order: a name that several
//     inputs hold (the phases of a layer, a shared constant) must have the
//     same bytes, dtype and shape in each;
//   - each stream's coeff accesses move from its input's coeff section to
//     the merged one (StreamRelocation.h).
//
// The inputs must agree on everything else in the manifest (chip,
// precision, model, generation defaults, ...) and on the tokenizer.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_COMPILE_BINARYMERGE_H
#define LLMC_BACKENDS_COMMON_COMPILE_BINARYMERGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace llmc::compile {

struct MergeReport {
  int64_t pieces = 0;
  uint64_t coeffBytes = 0;
};

/// Merges the binaries at `inputs` into `outputPath`, atomically. Errors
/// name the input at fault.
llvm::Expected<MergeReport> mergeBinaries(llvm::ArrayRef<std::string> inputs,
                                          llvm::StringRef outputPath);

} // namespace llmc::compile

#endif // LLMC_BACKENDS_COMMON_COMPILE_BINARYMERGE_H
