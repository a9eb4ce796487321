//===- CommandStreamFuzzer.cpp - a command stream from a stranger ---------===//
//
// A serialized command stream, parsed and executed on a BM1684X cmodel with
// every trap armed: each region is 1 MiB (more than the seeds' pieces
// address), so a stream that reaches outside them, overlaps a running
// command's operands or breaks the sync rules must trap, never crash.
//
//===----------------------------------------------------------------------===//

#include "backends/bm1684x/Bm1684xDescriptor.h"
#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/StreamBuilder.h"

using namespace llmc;

namespace {
constexpr uint64_t kRegionBytes = 1 << 20;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  absl::StatusOr<cmd::CommandStream> stream = cmodel::parseStream(
      std::string_view(reinterpret_cast<const char *>(data), size));
  if (!stream.ok())
    return 0;
  cmodel::CModelOptions options;
  options.threads = 1;
  cmodel::CModel model(bm1684x::getDescriptor(), options);
  for (cmd::Region region :
       {cmd::REGION_COEFF, cmd::REGION_ACTIVATION, cmd::REGION_IO})
    model.global().allocate(region, kRegionBytes);
  model.run(*stream).IgnoreError();
  return 0;
}
