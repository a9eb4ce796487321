//===- ConversionReport.h - how close a binary computes to F32 --*- C++ -*-===//
//
// What `llmc convert --report` measures of a converted binary:
//
//   - per piece, the cosine similarity and largest difference of its outputs
//     against the top interpreter on the checkpoint's own (F32) weights, both
//     run on the same inputs (the interpreter's), so each piece's error is
//     its own and does not include the error of the pieces before it;
//   - on a text file, the perplexity of the binary and of the interpreter
//     and how the binary's next-token distributions diverge from the
//     interpreter's (TokenDistributions.h), measured as llama.cpp's
//     `llama-perplexity --kl-divergence` measures them: non-overlapping
//     windows of C tokens, each in a fresh context, the second half of each
//     window scored.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_CONVERSIONREPORT_H
#define LLMC_TOOLS_LLMC_CONVERSIONREPORT_H

#include "runtime/session/PieceRunner.h"
#include "runtime/session/Session.h"
#include "tools/llmc/TokenDistributions.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>

namespace llmc {

/// The cosine similarity of `a` and `b` (equal sizes); 1 when both are all
/// zeros, 0 when only one is.
double cosineSimilarity(llvm::ArrayRef<float> a, llvm::ArrayRef<float> b);

/// How one piece's outputs compared over every run.
struct PieceAgreement {
  std::string piece;
  int64_t runs = 0;
  /// The lowest cosine similarity of a float output in any run.
  double minCosine = 1;
  /// The largest |device - reference| of a float output element.
  double maxAbsError = 0;
  /// Integer outputs (token ids): runs whose ids all matched.
  int64_t matchingIdRuns = 0;
  bool hasIdOutputs = false;
};

/// Runs every piece on `device` and on `reference` with the same inputs and
/// returns the reference's outputs, so a session follows the reference and
/// each comparison sees exactly the reference's inputs.
class ComparingRunner : public session::PieceRunner {
public:
  ComparingRunner(session::PieceRunner &reference, session::PieceRunner &device)
      : reference(reference), device(device) {}

  absl::StatusOr<std::vector<top::Tensor>>
  run(std::string_view piece, absl::Span<const top::Tensor> inputs) override;

  /// The pieces run so far, in the order they first ran.
  std::vector<PieceAgreement> getAgreements() const;

private:
  llvm::Expected<std::vector<top::Tensor>>
  compare(llvm::StringRef piece, llvm::ArrayRef<top::Tensor> inputs);

  session::PieceRunner &reference;
  session::PieceRunner &device;
  llvm::StringMap<PieceAgreement> agreements;
  std::vector<std::string> order;
};

struct PerplexityOptions {
  /// Tokens per window (llama-perplexity's -c); at most the session's S.
  int64_t context = 256;
  /// Windows scored; 0 scores every whole window of the text.
  int64_t maxWindows = 0;
  /// Called after each window with the windows done and the total.
  std::function<void(int64_t done, int64_t total)> progress;
};

struct TextComparison {
  int64_t windows = 0;
  DistributionFigures figures;
};

/// The models `reference` and `candidate` run, scored on `tokens` side by
/// side. Each window starts a fresh conversation in both: its first half
/// plus one token is one prompt, every later token one decode step, and the
/// logits after each token of the second half (but the last) score the
/// token after it. Fails when `tokens` holds no whole window or the context
/// does not fit the sessions' cache.
llvm::Expected<TextComparison>
compareOnText(session::Session &reference, session::Session &candidate,
              llvm::ArrayRef<int32_t> tokens,
              const PerplexityOptions &options);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_CONVERSIONREPORT_H
