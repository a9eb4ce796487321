//===- SampleHeadSpec.cpp - a ModelSpec for sample_head tests -------------===//

#include "frontends/llm/test/SampleHeadSpec.h"

namespace llmc::llm::testing {

plugins::ModelSpec makeSampleHeadSpec(int64_t vocabSize) {
  using plugins::TensorRole;
  plugins::ModelSpec spec;
  spec.family = "llama";
  spec.source = "sample_head test";
  spec.hiddenSize = 8;
  spec.intermediateSize = 16;
  spec.numLayers = 1;
  spec.numHeads = 2;
  spec.numKvHeads = 1;
  spec.headDim = 4;
  spec.rotaryDim = 4;
  spec.vocabSize = vocabSize;
  spec.maxPositions = 64;
  for (TensorRole role :
       {TensorRole::TokenEmbedding, TensorRole::FinalNorm, TensorRole::LmHead,
        TensorRole::AttentionNorm, TensorRole::QueryWeight,
        TensorRole::KeyWeight, TensorRole::ValueWeight,
        TensorRole::OutputWeight, TensorRole::MlpNorm, TensorRole::GateWeight,
        TensorRole::UpWeight, TensorRole::DownWeight})
    spec.tensorNames[role] = plugins::stringifyTensorRole(role).str();
  return spec;
}

} // namespace llmc::llm::testing
