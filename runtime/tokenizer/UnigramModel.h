//===- UnigramModel.h - the Unigram model of a tokenizer.json ---*- C++ -*-===//
//
// SentencePiece's unigram language model as the Hugging Face `tokenizers`
// library runs it: the segmentation of a piece into vocabulary tokens whose
// scores (log probabilities) sum highest, found by Viterbi over the byte
// positions; a character no token starts with costs the lowest score minus
// 10 and becomes the unknown token, runs of them fused into one. An unknown
// run is spelled by its <0xNN> byte tokens when the model has byte fallback
// and every one exists.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_UNIGRAMMODEL_H
#define LLMC_RUNTIME_TOKENIZER_UNIGRAMMODEL_H

#include "runtime/tokenizer/JsonReader.h"
#include "runtime/tokenizer/TokenModel.h"

#include <memory>
#include <optional>
#include <string>

namespace llmc::tokenizer {

class UnigramModel : public TokenModel {
public:
  /// The model that the `model` section `object` (at `path`) describes; null
  /// on error (recorded in `reader`).
  static std::unique_ptr<UnigramModel>
  parse(const Json &object, JsonReader &reader, std::string_view path);

  void tokenize(std::string_view word,
                std::vector<int32_t> &ids) const override;
  const StringMap<int32_t> &getVocab() const override { return vocab; }

private:
  UnigramModel() = default;
  /// The pieces of the best segmentation of `word`, unknown runs fused.
  std::vector<std::pair<std::string_view, bool>>
  segment(std::string_view word) const;

  StringMap<int32_t> vocab;
  std::vector<double> scores;
  std::optional<int32_t> unkId;
  bool byteFallback = false;
  double unkScore = 0;
  /// The longest token, in bytes: no match is searched beyond it.
  size_t maxTokenBytes = 0;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_UNIGRAMMODEL_H
