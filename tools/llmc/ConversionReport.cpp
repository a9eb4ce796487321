//===- ConversionReport.cpp - how close a binary computes to F32 ----------===//

#include "tools/llmc/ConversionReport.h"
#include "support/LlvmStatus.h"

#include <cmath>

namespace llmc {

static llvm::Error measurementError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

double cosineSimilarity(llvm::ArrayRef<float> a, llvm::ArrayRef<float> b) {
  double dot = 0, normA = 0, normB = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    normA += static_cast<double>(a[i]) * a[i];
    normB += static_cast<double>(b[i]) * b[i];
  }
  if (normA == 0 && normB == 0)
    return 1;
  if (normA == 0 || normB == 0)
    return 0;
  return dot / std::sqrt(normA * normB);
}

//===----------------------------------------------------------------------===//
// ComparingRunner
//===----------------------------------------------------------------------===//

absl::StatusOr<std::vector<top::Tensor>>
ComparingRunner::run(std::string_view piece,
                     absl::Span<const top::Tensor> inputs) {
  return support::toStatusOr(compare(piece, inputs));
}

llvm::Expected<std::vector<top::Tensor>>
ComparingRunner::compare(llvm::StringRef piece,
                         llvm::ArrayRef<top::Tensor> inputs) {
  llvm::Expected<std::vector<top::Tensor>> want =
      support::toExpected(reference.run(piece, inputs));
  if (!want)
    return want.takeError();
  llvm::Expected<std::vector<top::Tensor>> got =
      support::toExpected(device.run(piece, inputs));
  if (!got)
    return got.takeError();
  if (got->size() != want->size())
    return measurementError("piece '" + piece + "': the binary returns " +
                       llvm::Twine(got->size()) + " outputs, the reference " +
                       llvm::Twine(want->size()));
  auto [entry, inserted] = agreements.try_emplace(piece);
  PieceAgreement &agreement = entry->second;
  if (inserted) {
    agreement.piece = piece.str();
    order.push_back(piece.str());
  }
  ++agreement.runs;
  bool idsMatch = true;
  for (auto [index, pair] : llvm::enumerate(llvm::zip(*got, *want))) {
    const top::Tensor &actual = std::get<0>(pair);
    const top::Tensor &expected = std::get<1>(pair);
    if (actual.getKind() != expected.getKind() ||
        actual.getNumElements() != expected.getNumElements())
      return measurementError("piece '" + piece + "': output #" +
                         llvm::Twine(index) + " is " + actual.describe() +
                         " on the binary but " + expected.describe() +
                         " on the reference");
    if (actual.isI32()) {
      agreement.hasIdOutputs = true;
      idsMatch &= actual.getI32() == expected.getI32();
      continue;
    }
    llvm::ArrayRef<float> x = actual.getF32(), y = expected.getF32();
    agreement.minCosine =
        std::min(agreement.minCosine, cosineSimilarity(x, y));
    for (size_t i = 0; i < x.size(); ++i)
      agreement.maxAbsError = std::max(
          agreement.maxAbsError, static_cast<double>(std::fabs(x[i] - y[i])));
  }
  if (agreement.hasIdOutputs && idsMatch)
    ++agreement.matchingIdRuns;
  return want;
}

std::vector<PieceAgreement> ComparingRunner::getAgreements() const {
  std::vector<PieceAgreement> result;
  for (const std::string &piece : order)
    result.push_back(agreements.lookup(piece));
  return result;
}

//===----------------------------------------------------------------------===//
// Perplexity
//===----------------------------------------------------------------------===//

llvm::Expected<TextComparison>
compareOnText(session::Session &reference, session::Session &candidate,
              llvm::ArrayRef<int32_t> tokens,
              const PerplexityOptions &options) {
  int64_t context = options.context;
  int64_t capacity = reference.getDims().seqLength;
  if (context < 4)
    return measurementError("perplexity: a window needs at least 4 tokens, not " +
                            llvm::Twine(context));
  if (context > capacity)
    return measurementError("perplexity: windows of " + llvm::Twine(context) +
                            " tokens do not fit the KV cache of " +
                            llvm::Twine(capacity) + " tokens");
  int64_t windows = static_cast<int64_t>(tokens.size()) / context;
  if (options.maxWindows > 0)
    windows = std::min(windows, options.maxWindows);
  if (windows == 0)
    return measurementError("perplexity: the text has " +
                            llvm::Twine(tokens.size()) +
                            " tokens, less than one window of " +
                            llvm::Twine(context));
  int64_t first = context / 2;
  DistributionComparison comparison;
  TextComparison result;
  for (int64_t window = 0; window < windows; ++window) {
    llvm::ArrayRef<int32_t> ids = tokens.slice(window * context, context);
    reference.reset();
    candidate.reset();
    llvm::ArrayRef<int32_t> prompt = ids.take_front(first + 1);
    llvm::Expected<std::vector<float>> expected =
        support::toExpected(reference.feed(prompt));
    llvm::Expected<std::vector<float>> converted =
        support::toExpected(candidate.feed(prompt));
    for (int64_t position = first;; ++position) {
      if (!expected)
        return expected.takeError();
      if (!converted)
        return converted.takeError();
      comparison.add(*expected, *converted, ids[position + 1]);
      if (position + 2 == context)
        break;
      expected = support::toExpected(reference.feed({ids[position + 1]}));
      converted = support::toExpected(candidate.feed({ids[position + 1]}));
    }
    ++result.windows;
    if (options.progress)
      options.progress(window + 1, windows);
  }
  result.figures = comparison.getFigures();
  return result;
}

} // namespace llmc
