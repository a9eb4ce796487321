//===- LocalArena.cpp - local-memory allocation for codegen ---------------===//

#include "backends/common/codegen/LocalArena.h"

#include "llvm/Support/MathExtras.h"

namespace llmc::codegen {

static llvm::Error arenaError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

LocalArena::LocalArena(uint64_t laneBytes, uint64_t alignment)
    : laneBytes(laneBytes), alignment(alignment), heldBase(laneBytes),
      pinnedBase(laneBytes) {}

void LocalArena::beginOp() { pinnedBase = heldBase; }

llvm::Error LocalArena::hold(uint64_t address, uint64_t bytes) {
  uint64_t size = llvm::alignTo(bytes, alignment);
  if (address % alignment || address + size > heldBase ||
      address < laneBytes / 2)
    return arenaError("local memory: a layer group cannot hold " +
                      llvm::Twine(size) + " bytes per lane at " +
                      llvm::Twine(address) + " (held from " +
                      llvm::Twine(heldBase) + " of " + llvm::Twine(laneBytes) +
                      " bytes; ops keep at least half the lane)");
  heldBase = address;
  pinnedBase = heldBase;
  if (ringNext > pinnedBase)
    ringNext = 0;
  return llvm::Error::success();
}

void LocalArena::endGroup() { heldBase = pinnedBase = laneBytes; }

llvm::Expected<uint64_t> LocalArena::pin(uint64_t bytes) {
  uint64_t size = llvm::alignTo(bytes, alignment);
  if (size > pinnedBase || pinnedBase - size < heldBase / 4)
    return arenaError("local memory: pinning " + llvm::Twine(size) +
                      " bytes per lane leaves too little for streaming (" +
                      llvm::Twine(pinnedBase) + " of " + llvm::Twine(heldBase) +
                      " bytes are free)");
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
