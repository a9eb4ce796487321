//===- ReferenceData.h - tokenizer data from shared/refdata -----*- C++ -*-===//

#ifndef LLMC_RUNTIME_TOKENIZER_TEST_REFERENCEDATA_H
#define LLMC_RUNTIME_TOKENIZER_TEST_REFERENCEDATA_H

#include "runtime/tokenizer/Tokenizer.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::tokenizer::test {

/// One line of a reference file: a text and the reference's ids.
struct ReferenceLine {
  std::string text;
  std::vector<int32_t> ids;
  /// The line's `case`, in a file holding several (empty otherwise).
  std::string caseName;
};

/// The lines (`{"text", "ids"[, "case"]}`) of the reference file at
/// `path`; a test failure when the file is unreadable.
std::vector<ReferenceLine> readReferenceFile(std::string_view path);

/// The lines of `refdata/tokenizer/ref_<name>.jsonl`.
std::vector<ReferenceLine> readReferenceLines(std::string_view name);

/// The texts of `refdata/tokenizer/corpus.jsonl`.
std::vector<std::string> readCorpus();

/// The tokenizer in `refdata/<relative>` (a directory or a file); null, with
/// a test failure, when it does not load.
std::unique_ptr<Tokenizer> loadReferenceTokenizer(std::string_view relative);

} // namespace llmc::tokenizer::test

#endif // LLMC_RUNTIME_TOKENIZER_TEST_REFERENCEDATA_H
