//===- TokenDistributions.h - two models' next-token odds -----*- C++ -*-===//
//
// How a converted model's next-token distributions differ from a
// reference's at the same positions of a text, in the figures llama.cpp's
// `llama-perplexity --kl-divergence` reports: each model's perplexity, the
// Kullback-Leibler divergence KL(reference || converted) (its mean, 99th
// percentile and maximum), and how often both put the same token first.
// Unlike a cosine of logits, these weigh the tokens by the probability the
// reference gives them, so they measure what sampling would see.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_TOKENDISTRIBUTIONS_H
#define LLMC_TOOLS_LLMC_TOKENDISTRIBUTIONS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace llmc {

/// -log p(target) under the softmax of `logits`.
double getNegativeLogLikelihood(llvm::ArrayRef<float> logits, int32_t target);

/// KL(softmax(reference) || softmax(candidate)), in nats; the sizes match.
double getKlDivergence(llvm::ArrayRef<float> reference,
                       llvm::ArrayRef<float> candidate);

struct DistributionFigures {
  int64_t positions = 0;
  double referencePerplexity = 0;
  double candidatePerplexity = 0;
  double meanKld = 0;
  /// The smallest KLD at least 99 % of the positions do not exceed.
  double p99Kld = 0;
  double maxKld = 0;
  /// The share of positions whose most likely tokens are the same.
  double top1Agreement = 0;
};

/// Adds up the positions of a text, each scored by both models.
class DistributionComparison {
public:
  /// One position: both models' logits and the token that follows.
  void add(llvm::ArrayRef<float> reference, llvm::ArrayRef<float> candidate,
           int32_t next);
  /// The figures of the positions added so far.
  DistributionFigures getFigures() const;

private:
  double referenceNll = 0;
  double candidateNll = 0;
  int64_t sameTop = 0;
  std::vector<double> divergences;
};

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_TOKENDISTRIBUTIONS_H
