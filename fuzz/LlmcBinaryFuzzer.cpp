//===- LlmcBinaryFuzzer.cpp - a .llmc binary from a stranger --------------===//
//
// Everything llmc does with a `.llmc` file before the first token: the
// header, the section table, the manifest, the command streams, and the
// runner's layout of every piece's IO region on a BM1684X cmodel. Checksums
// are not verified: whoever forges a file recomputes them, so every check
// behind them must hold on its own.
//
//===----------------------------------------------------------------------===//

#include "backends/bm1684x/Bm1684xDescriptor.h"
#include "backends/common/cmodel/CModel.h"
#include "runtime/device/BinaryRunner.h"
#include "runtime/format/BinaryReader.h"

using namespace llmc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  absl::StatusOr<std::unique_ptr<binary::LoadedBinary>> binary =
      binary::LoadedBinary::fromBytes(
          std::string_view(reinterpret_cast<const char *>(data), size),
          "fuzz.llmc", /*verifyChecksums=*/false);
  if (!binary.ok())
    return 0;
  cmodel::CModelOptions options;
  options.threads = 1;
  absl::StatusOr<std::unique_ptr<device::BinaryRunner>> runner =
      device::BinaryRunner::create(
          **binary,
          std::make_unique<cmodel::CModel>(bm1684x::getDescriptor(), options));
  if (!runner.ok())
    return 0;
  (void)(*runner)->getModelDims();
  return 0;
}
