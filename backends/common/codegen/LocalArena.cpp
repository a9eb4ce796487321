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

std::optional<uint64_t> LocalArena::peekRing(uint64_t bytes) const {
  uint64_t size = llvm::alignTo(bytes, alignment);
  if (size > pinnedBase)
    return std::nullopt;
  return ringNext + size > pinnedBase ? 0 : ringNext;
}

llvm::Expected<uint64_t> LocalArena::ring(uint64_t bytes) {
  std::optional<uint64_t> address = peekRing(bytes);
  if (!address)
    return arenaError("local memory: a tile of " +
                      llvm::Twine(llvm::alignTo(bytes, alignment)) +
                      " bytes per lane exceeds the " + llvm::Twine(pinnedBase) +
                      " streaming bytes");
  ringNext = *address + llvm::alignTo(bytes, alignment);
  return *address;
}

} // namespace llmc::codegen
