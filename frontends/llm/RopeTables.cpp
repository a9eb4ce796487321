//===- RopeTables.cpp - the rotary cos/sin tables a model needs -----------===//

#include "frontends/llm/RopeTables.h"

#include <cmath>

namespace llmc::llm {

using plugins::RopeScalingType;

std::vector<double> computeInverseFrequencies(const plugins::ModelSpec &spec,
                                              int64_t positions) {
  int64_t pairs = spec.rotaryDim / 2;
  std::vector<double> frequencies(pairs);
  for (int64_t i = 0; i < pairs; ++i)
    frequencies[i] = 1.0 / std::pow(spec.ropeTheta,
                                     static_cast<double>(2 * i) /
                                         static_cast<double>(spec.rotaryDim));
  const plugins::RopeScaling &scaling = spec.ropeScaling;
  switch (scaling.type) {
  case RopeScalingType::None:
    break;
  case RopeScalingType::Linear:
    for (double &frequency : frequencies)
      frequency /= scaling.factor;
    break;
  case RopeScalingType::PerFrequency:
    for (int64_t i = 0; i < pairs; ++i)
      frequencies[i] /= scaling.frequencyFactors[i];
    break;
  case RopeScalingType::LongRope: {
    const std::vector<double> &factors =
        positions > scaling.originalMaxPositions
            ? scaling.longFrequencyFactors
            : scaling.frequencyFactors;
    for (int64_t i = 0; i < pairs; ++i)
      frequencies[i] /= factors[i];
    break;
  }
  case RopeScalingType::Llama3: {
    // Long wavelengths are slowed by `factor`, short ones kept, and the band
    // between interpolated smoothly (Llama 3.1's rope scaling).
    double original = static_cast<double>(scaling.originalMaxPositions);
    double lowFreqWavelength = original / scaling.lowFreqFactor;
    double highFreqWavelength = original / scaling.highFreqFactor;
    for (double &frequency : frequencies) {
      double wavelength = 2.0 * M_PI / frequency;
      if (wavelength > lowFreqWavelength) {
        frequency /= scaling.factor;
      } else if (wavelength >= highFreqWavelength) {
        double smooth = (original / wavelength - scaling.lowFreqFactor) /
                        (scaling.highFreqFactor - scaling.lowFreqFactor);
        frequency = (1.0 - smooth) * frequency / scaling.factor +
                    smooth * frequency;
      }
    }
    break;
  }
  }
  return frequencies;
}

RopeTableNames getRopeTableNames(const plugins::ModelSpec &spec,
                                 int64_t layer) {
  if (spec.slidingRopeTheta > 0 && spec.hasWindow(layer))
    return {kSlidingRopeCosName, kSlidingRopeSinName};
  return {kRopeCosName, kRopeSinName};
}

/// The tables of `spec`'s rotation under `names`.
static llvm::Error addTables(const plugins::ModelSpec &spec, int64_t positions,
                             RopeTableNames names,
                             plugins::OverlayWeightSource &weights) {
  std::vector<double> frequencies = computeInverseFrequencies(spec, positions);
  // LongRoPE scales the rotated vectors' magnitude; every other scaling
  // leaves it (attentionFactor 1).
  double magnitude = spec.ropeScaling.attentionFactor;
  int64_t pairs = static_cast<int64_t>(frequencies.size());
  int64_t width = spec.rotaryDim;
  std::vector<float> cosTable(positions * width), sinTable(positions * width);
  bool interleaved = spec.ropePairing == plugins::RopePairing::Interleaved;
  for (int64_t position = 0; position < positions; ++position) {
    float *cosRow = cosTable.data() + position * width;
    float *sinRow = sinTable.data() + position * width;
    for (int64_t i = 0; i < pairs; ++i) {
      // The angle is rounded to float32 first, as the reference
      // implementations compute it, so the tables match theirs.
      float angle = static_cast<float>(position) *
                    static_cast<float>(frequencies[i]);
      float c = static_cast<float>(std::cos(static_cast<double>(angle)) *
                                   magnitude);
      float s = static_cast<float>(std::sin(static_cast<double>(angle)) *
                                   magnitude);
      int64_t first = interleaved ? 2 * i : i;
      int64_t second = interleaved ? 2 * i + 1 : i + pairs;
      cosRow[first] = cosRow[second] = c;
      sinRow[first] = sinRow[second] = s;
    }
  }
  if (llvm::Error error =
          weights.addTensor(names.cos, {positions, width}, std::move(cosTable)))
    return error;
  return weights.addTensor(names.sin, {positions, width}, std::move(sinTable));
}

llvm::Error addRopeTables(const plugins::ModelSpec &spec, int64_t positions,
                          plugins::OverlayWeightSource &weights) {
  if (llvm::Error error =
          addTables(spec, positions, {kRopeCosName, kRopeSinName}, weights))
    return error;
  if (!(spec.slidingRopeTheta > 0) || spec.layerWindows.empty())
    return llvm::Error::success();
  // The rotation alone: addTables reads nothing else.
  plugins::ModelSpec sliding;
  sliding.rotaryDim = spec.rotaryDim;
  sliding.ropePairing = spec.ropePairing;
  sliding.ropeTheta = spec.slidingRopeTheta;
  return addTables(sliding, positions,
                   {kSlidingRopeCosName, kSlidingRopeSinName}, weights);
}

} // namespace llmc::llm
