//===- BpeModel.h - the BPE model of a tokenizer.json -----------*- C++ -*-===//
//
// Byte-pair encoding as the Hugging Face `tokenizers` library runs it: a
// piece starts as its characters (or, with byte fallback, the <0xNN> tokens
// of characters the vocabulary lacks, else the unknown token), and the
// adjacent pair with the lowest merge rank is merged until none applies.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_BPEMODEL_H
#define LLMC_RUNTIME_TOKENIZER_BPEMODEL_H

#include "runtime/tokenizer/JsonReader.h"
#include "runtime/tokenizer/TokenModel.h"

#include "absl/container/flat_hash_map.h"

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace llmc::tokenizer {

class BpeModel : public TokenModel {
public:
  /// The model that the `model` section `object` (at `path`) describes; null
  /// on error (recorded in `reader`).
  static std::unique_ptr<BpeModel> parse(const Json &object, JsonReader &reader,
                                         std::string_view path);

  void tokenize(std::string_view word,
                std::vector<int32_t> &ids) const override;
  const StringMap<int32_t> &getVocab() const override { return vocab; }

private:
  struct Merge {
    int32_t rank;
    int32_t result;
  };

  BpeModel() = default;
  /// Reads `merges` into `merges`; false on error (recorded in `reader`).
  bool parseMerges(const Json &list, JsonReader &reader, std::string_view path);
  /// The initial symbols of `word`, before any merge.
  std::vector<int32_t> splitIntoSymbols(std::string_view word) const;
  /// Applies merges to `symbols` in rank order, leftmost first on ties.
  void mergeSymbols(std::vector<int32_t> &symbols) const;
  std::optional<Merge> findMerge(int32_t left, int32_t right) const;

  StringMap<int32_t> vocab;
  /// Keyed by the pair's ids, left in the high half.
  absl::flat_hash_map<uint64_t, Merge> merges;
  std::optional<int32_t> unkId;
  bool fuseUnk = false;
  bool byteFallback = false;
  /// A piece that is a whole vocabulary token is that token (Llama 3).
  bool ignoreMerges = false;
  /// The id of token <0xNN> for each byte, or -1.
  std::array<int32_t, 256> byteIds;

  /// Merging is the expensive step, and text repeats words.
  mutable std::mutex cacheMutex;
  mutable StringMap<std::vector<int32_t>> cache;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_BPEMODEL_H
