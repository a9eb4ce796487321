//===- SampleHeadSpec.h - a ModelSpec for sample_head tests -----*- C++ -*-===//
//
// sample_head reads no weights and depends on the model only through its
// vocabulary size; its tests build it from the smallest spec that
// validates.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_TEST_SAMPLEHEADSPEC_H
#define LLMC_FRONTENDS_LLM_TEST_SAMPLEHEADSPEC_H

#include "plugins/ModelSpec.h"

namespace llmc::llm::testing {

/// A Llama-shaped model just large enough to validate, with `vocabSize`
/// tokens.
plugins::ModelSpec makeSampleHeadSpec(int64_t vocabSize);

} // namespace llmc::llm::testing

#endif // LLMC_FRONTENDS_LLM_TEST_SAMPLEHEADSPEC_H
