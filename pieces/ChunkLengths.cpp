//===- ChunkLengths.cpp - the prompt chunk lengths a binary holds ---------===//

#include "pieces/ChunkLengths.h"

#include <charconv>

namespace llmc::pieces {

static bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

std::vector<int64_t> getDefaultPrefillLengths(int64_t maxInputLength) {
  std::vector<int64_t> lengths;
  for (int64_t length = kShortestDefaultPrefillLength; length < maxInputLength;
       length *= 4)
    lengths.push_back(length);
  return lengths;
}

std::vector<int64_t> getChunkLengths(const std::vector<int64_t> &prefillLengths,
                                     int64_t maxInputLength) {
  std::vector<int64_t> lengths = prefillLengths;
  lengths.push_back(maxInputLength);
  return lengths;
}

std::optional<std::string>
checkPrefillLengths(const std::vector<int64_t> &lengths,
                    int64_t maxInputLength) {
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 1 || lengths[i] >= maxInputLength)
      return "prefill length " + std::to_string(lengths[i]) +
             " is outside [1, " + std::to_string(maxInputLength) +
             "): every one must be shorter than the max input length";
    if (i > 0 && lengths[i] <= lengths[i - 1])
      return "prefill lengths must ascend without repeats (" +
             std::to_string(lengths[i - 1]) + " then " +
             std::to_string(lengths[i]) + ")";
  }
  return std::nullopt;
}

std::string getChunkPieceName(std::string_view base, int64_t length,
                              int64_t maxInputLength) {
  std::string name(base);
  if (length != maxInputLength)
    name += "." + std::to_string(length);
  return name;
}

std::optional<int64_t> getChunkLengthOfName(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos)
    return std::nullopt;
  std::string_view base = name.substr(0, dot);
  if (base != "embed.prefill" && !endsWith(base, ".prefill") &&
      !endsWith(base, ".prefill_kv"))
    return std::nullopt;
  std::string_view digits = name.substr(dot + 1);
  int64_t length = 0;
  auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), length);
  if (digits.empty() || error != std::errc() ||
      end != digits.data() + digits.size() || length < 1)
    return std::nullopt;
  return length;
}

} // namespace llmc::pieces
