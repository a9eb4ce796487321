//===- TokenDistributions.cpp - two models' next-token odds --------------===//

#include "tools/llmc/TokenDistributions.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace llmc {

/// log(sum(exp(logits))), computed around the largest logit.
static double getLogSumExp(llvm::ArrayRef<float> logits) {
  double max = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (float logit : logits)
    sum += std::exp(logit - max);
  return std::log(sum) + max;
}

double getNegativeLogLikelihood(llvm::ArrayRef<float> logits, int32_t target) {
  return getLogSumExp(logits) - logits[target];
}

/// KL(softmax(reference) || softmax(candidate)) given each one's
/// log-sum-exp.
static double getKlDivergence(llvm::ArrayRef<float> reference,
                              double referenceNorm,
                              llvm::ArrayRef<float> candidate,
                              double candidateNorm) {
  double divergence = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    double logP = reference[i] - referenceNorm;
    double logQ = candidate[i] - candidateNorm;
    divergence += std::exp(logP) * (logP - logQ);
  }
  // Rounding can leave a sum of identical distributions a hair below 0.
  return std::max(divergence, 0.0);
}

double getKlDivergence(llvm::ArrayRef<float> reference,
                       llvm::ArrayRef<float> candidate) {
  return getKlDivergence(reference, getLogSumExp(reference), candidate,
                         getLogSumExp(candidate));
}

void DistributionComparison::add(llvm::ArrayRef<float> reference,
                                 llvm::ArrayRef<float> candidate,
                                 int32_t next) {
  // Each distribution's normalizer once: a vocabulary is 150k logits.
  double referenceNorm = getLogSumExp(reference);
  double candidateNorm = getLogSumExp(candidate);
  referenceNll += referenceNorm - reference[next];
  candidateNll += candidateNorm - candidate[next];
  divergences.push_back(
      getKlDivergence(reference, referenceNorm, candidate, candidateNorm));
  auto top = [](llvm::ArrayRef<float> logits) {
    return std::max_element(logits.begin(), logits.end()) - logits.begin();
  };
  sameTop += top(reference) == top(candidate);
}

DistributionFigures DistributionComparison::getFigures() const {
  DistributionFigures figures;
  figures.positions = static_cast<int64_t>(divergences.size());
  if (divergences.empty())
    return figures;
  double count = static_cast<double>(divergences.size());
  figures.referencePerplexity = std::exp(referenceNll / count);
  figures.candidatePerplexity = std::exp(candidateNll / count);
  std::vector<double> sorted = divergences;
  llvm::sort(sorted);
  figures.meanKld =
      std::accumulate(sorted.begin(), sorted.end(), 0.0) / count;
  // Nearest rank: the first value that at least 99 % of them do not exceed.
  size_t rank = static_cast<size_t>(std::ceil(0.99 * count));
  figures.p99Kld = sorted[std::max<size_t>(rank, 1) - 1];
  figures.maxKld = sorted.back();
  figures.top1Agreement = static_cast<double>(sameTop) / count;
  return figures;
}

} // namespace llmc
