//===- HazardTracker.cpp - cross-queue waits for local memory -------------===//

#include "backends/common/codegen/HazardTracker.h"

#include <algorithm>

namespace llmc::codegen {

void HazardTracker::split(uint64_t at) {
  auto next = segments.upper_bound(at);
  if (next == segments.begin())
    return;
  auto it = std::prev(next);
  if (it->first == at || it->second.end <= at)
    return;
  Segment tail = it->second;
  it->second.end = at;
  segments.emplace(at, tail);
}

template <typename Fn> void HazardTracker::forEach(LocalRange range, Fn fn) {
  auto it = segments.upper_bound(range.begin);
  if (it != segments.begin() && std::prev(it)->second.end > range.begin)
    --it;
  for (; it != segments.end() && it->first < range.end; ++it)
    fn(it->second);
}

std::optional<uint32_t>
HazardTracker::getWait(Queue queue, llvm::ArrayRef<LocalRange> reads,
                       llvm::ArrayRef<LocalRange> writes) {
  int other = queue == Queue::Dma ? 1 : 0;
  uint32_t wait = 0;
  for (LocalRange range : reads)
    forEach(range, [&](Segment &s) { wait = std::max(wait, s.writer[other]); });
  for (LocalRange range : writes)
    forEach(range, [&](Segment &s) {
      wait = std::max({wait, s.writer[other], s.reader[other]});
    });
  if (!wait)
    return std::nullopt;
  return wait;
}

void HazardTracker::record(Queue queue, uint32_t id,
                           llvm::ArrayRef<LocalRange> reads,
                           llvm::ArrayRef<LocalRange> writes) {
  int own = static_cast<int>(queue);
  auto mark = [&](LocalRange range, bool write) {
    if (range.begin >= range.end)
      return;
    split(range.begin);
    split(range.end);
    // Fill gaps so the whole range is covered by segments.
    uint64_t cursor = range.begin;
    auto it = segments.lower_bound(range.begin);
    while (cursor < range.end) {
      if (it == segments.end() || it->first > cursor) {
        uint64_t gapEnd =
            it == segments.end() ? range.end : std::min(range.end, it->first);
        Segment fresh;
        fresh.end = gapEnd;
        it = segments.emplace_hint(it, cursor, fresh);
      }
      (write ? it->second.writer : it->second.reader)[own] = id;
      cursor = it->second.end;
      ++it;
    }
  };
  for (LocalRange range : reads)
    mark(range, false);
  for (LocalRange range : writes)
    mark(range, true);
}

} // namespace llmc::codegen
