//===- TestModels.h - compiled models for the API tests ---------*- C++ -*-===//
//
// The API tests compile real checkpoints into binaries with the compile
// library, as `llmc convert` does, and make binaries the runtime must
// reject.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_TEST_TESTMODELS_H
#define LLMC_RUNTIME_API_TEST_TESTMODELS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace llmc::test {

/// The demo checkpoint in the repository (models/demo/fortune-qwen2), as a
/// test's runfile.
std::string getDemoCheckpoint();

/// A fresh directory for a test's files, under TEST_TMPDIR when set.
std::string makeScratchDirectory();

struct ConvertRequest {
  std::string checkpoint;
  /// A mode of `llmc convert -q`.
  std::string mode = "F32";
  /// S and L.
  int64_t seqLength = 512;
  int64_t maxInputLength = 128;
};

/// Compiles `request.checkpoint` for bm1684x into `outputPath`.
llvm::Error convertForTest(const ConvertRequest &request,
                           llvm::StringRef outputPath);

/// The demo checkpoint compiled in F32 with S = `seqLength` and L =
/// `maxInputLength`, once per process; fails the test on errors.
std::string getDemoBinary(int64_t seqLength = 512,
                          int64_t maxInputLength = 128);

/// Copies the binary at `inputPath` to `outputPath` with its manifest's chip
/// replaced by `chip`, which must be as long as the old name; the checksum
/// is updated, so only the chip is wrong.
llvm::Error rewriteChip(llvm::StringRef inputPath, llvm::StringRef outputPath,
                        llvm::StringRef chip);

} // namespace llmc::test

#endif // LLMC_RUNTIME_API_TEST_TESTMODELS_H
