//===- UnigramModel.cpp - the Unigram model of a tokenizer.json -----------===//

#include "runtime/tokenizer/UnigramModel.h"

#include "runtime/tokenizer/Utf8.h"

#include <algorithm>
#include <limits>

namespace llmc::tokenizer {

/// What an unknown character costs below the lowest score (SentencePiece's
/// kUnkPenalty).
constexpr double kUnknownPenalty = 10.0;

std::unique_ptr<UnigramModel> UnigramModel::parse(const Json &object,
                                                  JsonReader &reader,
                                                  std::string_view path) {
  std::unique_ptr<UnigramModel> model(new UnigramModel());
  const Json *list = reader.getArray(object, "vocab", path);
  model->byteFallback = reader.getBool(object, "byte_fallback", path, false);
  int64_t unk = reader.getInt(object, "unk_id", path, -1);
  if (!list || reader.failed())
    return nullptr;
  if (list->empty()) {
    reader.fail(support::strCat(path, ".vocab"), "is empty");
    return nullptr;
  }
  double minScore = std::numeric_limits<double>::infinity();
  for (size_t index = 0; index < list->size(); ++index) {
    const Json &entry = (*list)[index];
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() ||
        !entry[1].is_number()) {
      reader.fail(support::strCat(path, ".vocab[", index, "]"),
                  "must be [\"token\", score]");
      return nullptr;
    }
    const std::string &token = entry[0].get_ref<const std::string &>();
    double score = entry[1].get<double>();
    // A repeated token is the last of its ids, as HF's map keeps it.
    model->vocab[token] = static_cast<int32_t>(index);
    model->scores.push_back(score);
    model->maxTokenBytes = std::max(model->maxTokenBytes, token.size());
    minScore = std::min(minScore, score);
  }
  if (unk >= 0) {
    if (unk >= static_cast<int64_t>(list->size())) {
      reader.fail(support::strCat(path, ".unk_id"),
                  support::strCat(unk, " is not a token id"));
      return nullptr;
    }
    model->unkId = static_cast<int32_t>(unk);
  }
  model->unkScore = minScore - kUnknownPenalty;
  return model;
}

std::vector<std::pair<std::string_view, bool>>
UnigramModel::segment(std::string_view word) const {
  struct Node {
    int32_t id = -1;
    double score = 0;
    /// Where the best path to here starts its last token; npos: none yet.
    size_t start = std::string_view::npos;
  };
  size_t size = word.size();
  std::vector<Node> best(size + 1);
  best[0].start = 0;
  for (size_t start = 0; start < size;) {
    double score = best[start].score;
    // The text is well-formed UTF-8 (the tokenizer repairs it first).
    size_t charBytes = readUtf8(word, start).length;
    bool singleCharacter = false;
    size_t longest = std::min(maxTokenBytes, size - start);
    for (size_t length = 1; length <= longest; ++length) {
      auto it = vocab.find(word.substr(start, length));
      if (it == vocab.end())
        continue;
      Node &node = best[start + length];
      double candidate = scores[it->second] + score;
      if (node.start == std::string_view::npos || candidate > node.score)
        node = {it->second, candidate, start};
      singleCharacter |= length == charBytes;
    }
    if (!singleCharacter) {
      Node &node = best[start + charBytes];
      double candidate = unkScore + score;
      if (node.start == std::string_view::npos || candidate > node.score)
        node = {unkId.value_or(-1), candidate, start};
    }
    start += charBytes;
  }
  // Back from the end; consecutive unknown characters become one piece.
  std::vector<std::pair<std::string_view, bool>> pieces;
  for (size_t end = size; end > 0;) {
    const Node &node = best[end];
    bool unknown = node.id < 0 || (unkId && node.id == *unkId);
    std::string_view text = word.substr(node.start, end - node.start);
    if (unknown && !pieces.empty() && pieces.back().second)
      pieces.back().first =
          word.substr(node.start, text.size() + pieces.back().first.size());
    else
      pieces.push_back({text, unknown});
    end = node.start;
  }
  std::reverse(pieces.begin(), pieces.end());
  return pieces;
}

void UnigramModel::tokenize(std::string_view word,
                            std::vector<int32_t> &ids) const {
  for (auto [piece, unknown] : segment(word)) {
    if (auto it = vocab.find(piece); it != vocab.end()) {
      ids.push_back(it->second);
      continue;
    }
    if (byteFallback) {
      std::vector<int32_t> bytes;
      for (unsigned char byte : piece) {
        auto it = vocab.find(getByteFallbackToken(byte));
        if (it == vocab.end())
          break;
        bytes.push_back(it->second);
      }
      if (bytes.size() == piece.size()) {
        ids.insert(ids.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    // Without an unknown token an unknown piece has no id (HF fails).
    if (unkId)
      ids.push_back(*unkId);
  }
}

} // namespace llmc::tokenizer
