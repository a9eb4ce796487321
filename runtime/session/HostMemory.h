//===- HostMemory.h - what the host can give a model ------------*- C++ -*-===//
//
// Sizes read from a file (a binary's manifest, a checkpoint's config) are
// checked against the machine's memory before anything is allocated by
// them, so that an absurd size is an error naming it rather than an
// allocation that fails or takes the machine down.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_HOSTMEMORY_H
#define LLMC_RUNTIME_SESSION_HOSTMEMORY_H

#include "support/Status.h"

#include <cstdint>
#include <string_view>

namespace llmc::session {

/// The machine's physical memory in bytes.
uint64_t getPhysicalMemoryBytes();

/// Fails, naming `what`, unless `bytes` fit in the physical memory.
absl::Status checkFitsInMemory(std::string_view what, uint64_t bytes);

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_HOSTMEMORY_H
