//===- ChipDescriptor.cpp - a chip generation described as data -----------===//

#include "plugins/ChipDescriptor.h"

#include "support/Strings.h"

#include <algorithm>
#include <cctype>

namespace llmc::plugins {

bool ChipDescriptor::supportsQuantMode(std::string_view mode) const {
  std::string wanted = support::toLowerAscii(mode);
  return std::any_of(quantModes.begin(), quantModes.end(),
                     [&](const std::string &supported) {
                       return support::toLowerAscii(supported) == wanted;
                     });
}

absl::Status ChipDescriptor::validate() const {
  auto invalid = [&](std::string_view problem) {
    return absl::InvalidArgumentError(
        support::strCat("chip descriptor '", id, "': ", problem));
  };
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      }))
    return invalid("id must be a non-empty identifier");
  const std::pair<const char *, int64_t> counts[] = {
      {"npuLanes", npuLanes},
      {"euBytesPerLane", euBytesPerLane},
      {"cores", cores},
      {"localMemoryBytesPerLane", localMemoryBytesPerLane},
      {"localMemoryBanks", localMemoryBanks}};
  // A chip computing in global memory has no local memory to describe.
  size_t checked = computesInGlobalMemory ? 3 : 5;
  for (size_t i = 0; i < checked; ++i)
    if (counts[i].second <= 0)
      return invalid(support::strCat(counts[i].first, " must be positive"));
  if (computesInGlobalMemory && npuLanes != 1)
    return invalid("a chip computing in global memory has one lane");
  if (!computesInGlobalMemory && localMemoryBytesPerLane % localMemoryBanks != 0)
    return invalid("localMemoryBanks must divide localMemoryBytesPerLane");
  if (clockMHz <= 0 || ddrBandwidthGBps <= 0)
    return invalid("clockMHz and ddrBandwidthGBps must be positive");
  if (int8Tops <= 0 && f16Tflops <= 0 && bf16Tflops <= 0 && f32Tflops <= 0)
    return invalid("at least one peak throughput must be given");
  if (quantModes.empty())
    return invalid("no quantization mode is supported");
  return absl::OkStatus();
}

} // namespace llmc::plugins
