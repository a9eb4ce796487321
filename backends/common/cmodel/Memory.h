//===- Memory.h - the device's global and local memory ----------*- C++ -*-===//
//
// Global memory (DDR) is three byte arrays, one per region, so a stream's
// offsets stay valid wherever the runtime places a region; the coeff region
// may be the caller's memory (mmapped weights), held read-only. Local memory
// is `npuLanes` lanes of `localMemoryBytesPerLane` bytes.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_MEMORY_H
#define LLMC_BACKENDS_COMMON_CMODEL_MEMORY_H

#include "backends/common/cmodel/Geometry.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <array>
#include <cstdint>
#include <vector>

namespace llmc::cmodel {

class GlobalMemory {
public:
  /// Gives `region` `bytes` zeroed bytes of its own, replacing what it had.
  void allocate(cmd::Region region, uint64_t bytes);
  /// Lets `region` use the caller's `bytes`, which must outlive the runs.
  void attach(cmd::Region region, absl::Span<uint8_t> bytes);
  /// As attach, but a STORE into the region traps.
  void attachReadOnly(cmd::Region region, absl::Span<const uint8_t> bytes);

  uint64_t getSize(cmd::Region region) const { return get(region).size; }
  bool isReadOnly(cmd::Region region) const { return get(region).readOnly; }
  const uint8_t *getData(cmd::Region region) const { return get(region).data; }
  /// The bytes of a writable region.
  uint8_t *getMutableData(cmd::Region region);

  /// Host access: copies `bytes` to `offset` of `region`; traps outside it.
  absl::Status write(cmd::Region region, uint64_t offset,
                     absl::Span<const uint8_t> bytes);
  /// Host access: `size` bytes at `offset` of `region`.
  absl::StatusOr<absl::Span<const uint8_t>>
  read(cmd::Region region, uint64_t offset, uint64_t size) const;

  /// Traps unless `tensor` lies inside its region and, for a write, the
  /// region is writable.
  absl::Status checkAccess(const GlobalGeometry &tensor, bool write) const;

private:
  struct Block {
    std::vector<uint8_t> owned;
    uint8_t *data = nullptr;
    uint64_t size = 0;
    bool readOnly = false;
  };
  Block &get(cmd::Region region) { return blocks[index(region)]; }
  const Block &get(cmd::Region region) const { return blocks[index(region)]; }
  static size_t index(cmd::Region region);

  /// Indexed by region; block 0 (REGION_INVALID) stays empty.
  std::array<Block, 4> blocks;
};

class LocalMemory {
public:
  LocalMemory(int64_t lanes, int64_t bytesPerLane)
      : bytesPerLane(bytesPerLane), bytes(size_t(lanes * bytesPerLane)) {}

  uint8_t *getLane(int64_t lane) { return bytes.data() + lane * bytesPerLane; }
  const uint8_t *getLane(int64_t lane) const {
    return bytes.data() + lane * bytesPerLane;
  }

private:
  int64_t bytesPerLane;
  std::vector<uint8_t> bytes;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_MEMORY_H
