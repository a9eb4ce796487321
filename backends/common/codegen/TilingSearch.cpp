//===- TilingSearch.cpp - choosing a tiling by the chip's time model ------===//

#include "backends/common/codegen/TilingSearch.h"

#include "backends/common/cmodel/StreamTiming.h"
#include "support/LlvmStatus.h"

namespace llmc::codegen {

llvm::Expected<uint64_t>
estimateCandidate(const Emitter &context,
                  llvm::function_ref<llvm::Error(Emitter &)> emit) {
  Emitter trial = context;
  if (llvm::Error error = emit(trial))
    return std::move(error);
  cmd::CommandStream stream = trial.finish();
  cmodel::TimeModel time(trial.getChip());
  return support::toExpected(
      cmodel::estimateCycles(stream, time, trial.getChip()));
}

} // namespace llmc::codegen
