//===- Memory.cpp - the device's global and local memory ------------------===//

#include "backends/common/cmodel/Memory.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"

#include <cassert>
#include <cstring>
#include <string>

namespace llmc::cmodel {

size_t GlobalMemory::index(cmd::Region region) {
  // Block 0 stands for every invalid region: always empty, so any access
  // to it is out of bounds.
  return cmd::Region_IsValid(region) ? size_t(region) : 0;
}

void GlobalMemory::allocate(cmd::Region region, uint64_t bytes) {
  assert(index(region) != 0 && "allocating an invalid region");
  if (index(region) == 0)
    return;
  Block &block = get(region);
  block.owned.assign(bytes, 0);
  block.data = block.owned.data();
  block.size = bytes;
  block.readOnly = false;
}

void GlobalMemory::attach(cmd::Region region, absl::Span<uint8_t> bytes) {
  assert(index(region) != 0 && "attaching an invalid region");
  if (index(region) == 0)
    return;
  Block &block = get(region);
  block.owned.clear();
  block.owned.shrink_to_fit();
  block.data = bytes.data();
  block.size = bytes.size();
  block.readOnly = false;
}

void GlobalMemory::attachReadOnly(cmd::Region region,
                                  absl::Span<const uint8_t> bytes) {
  // The device never writes a read-only region (STOREs into it trap), so
  // holding it through a mutable pointer is safe.
  attach(region, absl::Span<uint8_t>(const_cast<uint8_t *>(bytes.data()),
                                     bytes.size()));
  if (index(region) != 0)
    get(region).readOnly = true;
}

uint8_t *GlobalMemory::getMutableData(cmd::Region region) {
  assert(!isReadOnly(region) && "region is read-only");
  return get(region).data;
}

/// `what` names the access in the error; it is called only on failure, as
/// every command checks its operands.
static absl::Status checkRange(uint64_t offset, uint64_t size,
                               uint64_t regionSize, cmd::Region region,
                               absl::FunctionRef<std::string()> what) {
  if (offset > regionSize || size > regionSize - offset)
    return makeTrap(TrapKind::OutOfBounds,
                    support::strCat(what(), " accesses bytes [", offset, ", ",
                                    offset + size, ") of region ",
                                    getRegionName(region), ", which has ",
                                    regionSize, " bytes"));
  return absl::OkStatus();
}

absl::Status GlobalMemory::write(cmd::Region region, uint64_t offset,
                                 absl::Span<const uint8_t> bytes) {
  LLMC_RETURN_IF_ERROR(checkRange(offset, bytes.size(), getSize(region), region,
                                  [] { return "a host write"; }));
  if (isReadOnly(region))
    return makeTrap(TrapKind::ReadOnly,
                    support::strCat("a host write into read-only region ",
                                    getRegionName(region)));
  if (!bytes.empty())
    std::memcpy(get(region).data + offset, bytes.data(), bytes.size());
  return absl::OkStatus();
}

absl::StatusOr<absl::Span<const uint8_t>>
GlobalMemory::read(cmd::Region region, uint64_t offset, uint64_t size) const {
  if (absl::Status error = checkRange(offset, size, getSize(region), region,
                                      [] { return "a host read"; });
      !error.ok())
    return std::move(error);
  return absl::Span<const uint8_t>(getData(region) + offset, size);
}

absl::Status GlobalMemory::checkAccess(const GlobalGeometry &tensor,
                                       bool write) const {
  LLMC_RETURN_IF_ERROR(checkRange(tensor.offset, tensor.getExtent(),
                                  getSize(tensor.region), tensor.region,
                                  [&] { return tensor.describe(); }));
  if (write && isReadOnly(tensor.region))
    return makeTrap(TrapKind::ReadOnly,
                    support::strCat(tensor.describe(),
                                    " is stored into read-only region ",
                                    getRegionName(tensor.region)));
  return absl::OkStatus();
}

} // namespace llmc::cmodel
