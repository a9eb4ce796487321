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

#include "llvm/Support/JSON.h"

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
llvm::Expected<BinarySummary> summarizeBinary(const Model &model);

/// "dtype[d0,d1,...]".
std::string formatTensorType(const binary::Tensor &tensor);

/// Everything `llmc inspect` prints, as JSON.
llvm::json::Value summaryToJson(const BinarySummary &summary);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_INSPECTSUMMARY_H
