//===- InspectSummary.h - the figures llmc inspect reports ------*- C++ -*-===//
//
// What `llmc inspect` derives from a loaded binary beyond its manifest (file
// size, stream bytes, weight totals, modelled step times), and the --json
// form of the whole report.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_INSPECTSUMMARY_H
#define LLMC_TOOLS_LLMC_INSPECTSUMMARY_H

#include "runtime/llmc.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace llmc {

struct BinarySummary {
  const Model &model;
  uint64_t fileBytes = 0;
  /// Bytes of each piece's command stream, in manifest order.
  std::vector<uint64_t> streamBytes;
  /// Bytes of the weight blobs, each once however many pieces read it, and
  /// how many references the pieces make to them.
  uint64_t weightBytes = 0;
  int64_t weightReferences = 0;
  /// Modelled seconds of one decode step (embedding, every layer, lm_head
  /// and greedy head) and of one prefill piece of L tokens.
  double decodeSeconds = 0;
  double prefillSeconds = 0;
};

/// The figures of `model`'s binary.
absl::StatusOr<BinarySummary> summarizeBinary(const Model &model);

/// The integers of `list` in decimal, joined with `separator`.
template <typename Integers>
std::string joinIntegers(const Integers &list, std::string_view separator) {
  std::string text;
  for (int64_t value : list) {
    if (!text.empty())
      text += separator;
    text += std::to_string(value);
  }
  return text;
}

/// "dtype[d0,d1,...]".
std::string formatTensorType(const binary::Tensor &tensor);

/// Everything `llmc inspect` prints, as JSON.
nlohmann::json summaryToJson(const BinarySummary &summary);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_INSPECTSUMMARY_H
