//===- HugePageMemory.h - zeroed memory on huge pages -----------*- C++ -*-===//
//
// Large regions that a run streams through or touches soon after they are
// made: the host device's copy of the weights and a runner's IO regions.
// Over 4 KiB pages the hardware prefetchers restart at every page (a
// decode step's weight stream reached about 55 % of the read bandwidth
// instead of 80 %), and on a virtual machine every first touch of a page
// traps: a piece's first run spent about 10 ms faulting in its 2.6 MB IO
// region, a quarter of a second over a prefill's 24 layers (host_bench,
// W4F16 on the Qwen2.5-0.5B shape). So these regions are anonymous
// mappings that ask for transparent huge pages (madvise); without them
// (or with them off) the memory is ordinary pages and still correct.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_HUGEPAGEMEMORY_H
#define LLMC_BACKENDS_COMMON_CMODEL_HUGEPAGEMEMORY_H

#include "absl/types/span.h"
#include <cstddef>
#include <cstdint>
#include <memory>

namespace llmc::cmodel {

class HugePageMemory {
public:
  /// `bytes` of zeros (at least one), starting on a huge-page boundary; null
  /// when the system gives no memory.
  static std::unique_ptr<HugePageMemory> allocate(size_t bytes);
  /// A copy of `bytes`, read-only; null when `bytes` is empty or the
  /// system gives no memory.
  static std::unique_ptr<HugePageMemory>
  copyReadOnly(absl::Span<const uint8_t> bytes);
  ~HugePageMemory();
  HugePageMemory(const HugePageMemory &) = delete;
  HugePageMemory &operator=(const HugePageMemory &) = delete;

  absl::Span<uint8_t> bytes() const { return {data, size}; }

private:
  HugePageMemory(uint8_t *data, size_t size, void *mapping, size_t mapped)
      : data(data), size(size), mapping(mapping), mapped(mapped) {}

  /// The memory, within the whole mapping.
  uint8_t *data;
  size_t size;
  void *mapping;
  size_t mapped;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_HUGEPAGEMEMORY_H
