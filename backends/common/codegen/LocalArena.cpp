//===- LocalArena.cpp - local-memory allocation for codegen ---------------===//

#include "backends/common/codegen/LocalArena.h"

#include "llvm/Support/MathExtras.h"

namespace llmc::codegen {

static llvm::Error arenaError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

LocalArena::LocalArena(uint64_t laneBytes, uint64_t alignment)
    : laneBytes(laneBytes), alignment(alignment), pinnedBase(laneBytes) {}

void LocalArena::beginOp() { pinnedBase = laneBytes; }

llvm::Expected<uint64_t> LocalArena::pin(uint64_t bytes) {
  uint64_t size = llvm::alignTo(bytes, alignment);
  if (size > pinnedBase || pinnedBase - size < laneBytes / 4)
    return arenaError("local memory: pinning " + llvm::Twine(size) +
                      " bytes per lane leaves too little for streaming (" +
                      llvm::Twine(pinnedBase) + " of " +
                      llvm::Twine(laneBytes) + " bytes are free)");
  pinnedBase -= size;
  if (ringNext > pinnedBase)
    ringNext = 0;
  return pinnedBase;
}

llvm::Expected<uint64_t> LocalArena::ring(uint64_t bytes) {
  uint64_t size = llvm::alignTo(bytes, alignment);
  if (size > pinnedBase)
    return arenaError("local memory: a tile of " + llvm::Twine(size) +
                      " bytes per lane exceeds the " + llvm::Twine(pinnedBase) +
                      " streaming bytes");
  if (ringNext + size > pinnedBase)
    ringNext = 0;
  uint64_t address = ringNext;
  ringNext += size;
  return address;
}

} // namespace llmc::codegen
