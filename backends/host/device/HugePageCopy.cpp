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
  // Whole huge pages, and one more to align the start to one.
  const size_t mapped =
      (bytes.size() + kHugePage - 1) / kHugePage * kHugePage + kHugePage;
  void *region = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED)
    return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(region);
  size_t lead = (kHugePage - start % kHugePage) % kHugePage;
  if (lead)
    munmap(region, lead);
  size_t kept = mapped - lead;
  size_t tail = kept - (bytes.size() + kHugePage - 1) / kHugePage * kHugePage;
  uint8_t *data = static_cast<uint8_t *>(region) + lead;
  if (tail)
    munmap(data + kept - tail, tail);
  kept -= tail;
  // A hint: without transparent huge pages (or with them off) this is an
  // ordinary copy, which still reads correctly.
  madvise(data, kept, MADV_HUGEPAGE);
  std::memcpy(data, bytes.data(), bytes.size());
  mprotect(data, kept, PROT_READ);
  return std::unique_ptr<HugePageCopy>(
      new HugePageCopy(data, bytes.size(), kept));
}

HugePageCopy::~HugePageCopy() { munmap(data, mapped); }

} // namespace llmc::host
