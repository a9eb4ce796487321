//===- HugePageCopy.h - read-only bytes on huge pages -----------*- C++ -*-===//
//
// A decode step streams every weight once from DRAM. Over the 4 KiB pages
// of the binary's file mapping the hardware prefetchers start afresh at
// every page, and the products reached about 55 % of the read bandwidth;
// over 2 MiB pages, about 80 % (F16 on the Qwen2.5-0.5B shape). So the host
// device copies the weights once, at load, into anonymous memory that asks
// for transparent huge pages (madvise), read-only after the copy.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_DEVICE_HUGEPAGECOPY_H
#define LLMC_BACKENDS_HOST_DEVICE_HUGEPAGECOPY_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <memory>

namespace llmc::host {

class HugePageCopy {
public:
  /// A copy of `bytes`, or null when the system gives no memory for it (the
  /// caller then keeps reading `bytes` where they are).
  static std::unique_ptr<HugePageCopy> create(llvm::ArrayRef<uint8_t> bytes);
  ~HugePageCopy();
  HugePageCopy(const HugePageCopy &) = delete;
  HugePageCopy &operator=(const HugePageCopy &) = delete;

  llvm::ArrayRef<uint8_t> bytes() const { return {data, size}; }

private:
  HugePageCopy(uint8_t *data, size_t size, void *region, size_t mapped)
      : data(data), size(size), region(region), mapped(mapped) {}

  /// The copy, within the whole mapping `region`.
  uint8_t *data;
  size_t size;
  void *region;
  size_t mapped;
};

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_DEVICE_HUGEPAGECOPY_H
