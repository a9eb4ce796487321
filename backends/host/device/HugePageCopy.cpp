//===- HugePageCopy.cpp - read-only bytes on transparent huge pages -------===//

#include "backends/host/device/HugePageCopy.h"

#include <cstring>

#include <sys/mman.h>

namespace llmc::host {

static constexpr size_t kHugePage = size_t(2) << 20;

std::unique_ptr<HugePageCopy>
HugePageCopy::create(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.empty())
    return nullptr;
  // Whole huge pages, from the first huge-page boundary of a mapping one
  // page longer.
  const size_t kept = (bytes.size() + kHugePage - 1) / kHugePage * kHugePage;
  const size_t mapped = kept + kHugePage;
  void *region = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED)
    return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(region);
  uint8_t *data = static_cast<uint8_t *>(region) +
                  (kHugePage - start % kHugePage) % kHugePage;
  // A hint: without transparent huge pages (or with them off) this is an
  // ordinary copy, which still reads correctly.
  madvise(data, kept, MADV_HUGEPAGE);
  std::memcpy(data, bytes.data(), bytes.size());
  mprotect(data, kept, PROT_READ);
  return std::unique_ptr<HugePageCopy>(
      new HugePageCopy(data, bytes.size(), region, mapped));
}

HugePageCopy::~HugePageCopy() { munmap(region, mapped); }

} // namespace llmc::host
