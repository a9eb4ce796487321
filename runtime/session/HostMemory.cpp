//===- HostMemory.cpp - what the host can give a model --------------------===//

#include "runtime/session/HostMemory.h"

#include "support/Strings.h"

#include <unistd.h>

namespace llmc::session {

uint64_t getPhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageBytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageBytes <= 0)
    return UINT64_MAX;
  return uint64_t(pages) * uint64_t(pageBytes);
}

absl::Status checkFitsInMemory(std::string_view what, uint64_t bytes) {
  uint64_t available = getPhysicalMemoryBytes();
  if (bytes <= available)
    return absl::OkStatus();
  return absl::ResourceExhaustedError(support::strCat(
      what, " would take ", bytes, " bytes, more than this machine's memory (",
      available, " bytes)"));
}

} // namespace llmc::session
