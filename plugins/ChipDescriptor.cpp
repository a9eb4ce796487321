//===- ChipDescriptor.cpp - a chip generation described as data -----------===//

#include "plugins/ChipDescriptor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace llmc::plugins {

bool ChipDescriptor::supportsQuantMode(llvm::StringRef mode) const {
  return llvm::any_of(quantModes, [&](const std::string &supported) {
    return mode.equals_insensitive(supported);
  });
}

llvm::Error ChipDescriptor::validate() const {
  auto invalid = [&](const llvm::Twine &problem) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "chip descriptor '" + id + "': " + problem);
  };
  if (id.empty() || !llvm::all_of(id, [](char c) {
        return llvm::isAlnum(c) || c == '_';
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
  for (auto [name, value] : llvm::ArrayRef(counts).take_front(checked))
    if (value <= 0)
      return invalid(llvm::Twine(name) + " must be positive");
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
  return llvm::Error::success();
}

} // namespace llmc::plugins
