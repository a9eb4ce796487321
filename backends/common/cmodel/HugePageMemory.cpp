//===- HugePageMemory.cpp - zeroed memory on transparent huge pages -------===//

#include "backends/common/cmodel/HugePageMemory.h"

#include "absl/types/span.h"

#include <cstring>

#include <sys/mman.h>

namespace llmc::cmodel {

static constexpr size_t kHugePage = size_t(2) << 20;

std::unique_ptr<HugePageMemory> HugePageMemory::allocate(size_t bytes) {
  if (bytes == 0)
    return nullptr;
  // Whole huge pages, from the first huge-page boundary of a mapping one
  // page longer.
  const size_t kept = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  const size_t mapped = kept + kHugePage;
  void *mapping = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED)
    return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(mapping);
  uint8_t *data = static_cast<uint8_t *>(mapping) +
                  (kHugePage - start % kHugePage) % kHugePage;
  // A hint: the mapping is correct on any pages.
  madvise(data, kept, MADV_HUGEPAGE);
  return std::unique_ptr<HugePageMemory>(
      new HugePageMemory(data, bytes, mapping, mapped));
}

std::unique_ptr<HugePageMemory>
HugePageMemory::copyReadOnly(absl::Span<const uint8_t> bytes) {
  std::unique_ptr<HugePageMemory> memory = allocate(bytes.size());
  if (!memory)
    return nullptr;
  std::memcpy(memory->data, bytes.data(), bytes.size());
  mprotect(memory->data, (bytes.size() + kHugePage - 1) / kHugePage * kHugePage,
           PROT_READ);
  return memory;
}

HugePageMemory::~HugePageMemory() { munmap(mapping, mapped); }

} // namespace llmc::cmodel
