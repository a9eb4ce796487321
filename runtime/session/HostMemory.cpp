//===- HostMemory.cpp - what the host can give a model --------------------===//

#include "runtime/session/HostMemory.h"

#include <unistd.h>

namespace llmc::session {

uint64_t getPhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageBytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageBytes <= 0)
    return UINT64_MAX;
  return uint64_t(pages) * uint64_t(pageBytes);
}

llvm::Error checkFitsInMemory(const llvm::Twine &what, uint64_t bytes) {
  uint64_t available = getPhysicalMemoryBytes();
  if (bytes <= available)
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      what + " would take " + llvm::Twine(bytes) +
          " bytes, more than this machine's memory (" +
          llvm::Twine(available) + " bytes)");
}

} // namespace llmc::session
