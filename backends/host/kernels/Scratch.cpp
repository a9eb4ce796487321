//===- Scratch.cpp - per-thread scratch memory ----------------------------===//
//
// Kernels run hundreds of times a step; allocating their panels and tiles
// each time would cost page faults, so each thread keeps its buffers.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace llmc::host::detail {

namespace {
struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};
struct Buffer {
  std::unique_ptr<void, FreeDeleter> data;
  size_t bytes = 0;
};
} // namespace

void *getScratch(Scratch slot, size_t bytes) {
  static thread_local Buffer buffers[size_t(Scratch::Count)];
  Buffer &buffer = buffers[size_t(slot)];
  if (buffer.bytes < bytes) {
    // Grow geometrically; a little slack lets vector loops read past ends.
    size_t size = (std::max(bytes, buffer.bytes * 3 / 2) + 127) / 64 * 64;
    buffer.data.reset(std::aligned_alloc(64, size));
    buffer.bytes = size;
  }
  return buffer.data.get();
}

} // namespace llmc::host::detail
