//===- BpeModel.cpp - the BPE model of a tokenizer.json -------------------===//

#include "runtime/tokenizer/BpeModel.h"

#include "runtime/tokenizer/Utf8.h"

#include <algorithm>
#include <queue>

namespace llmc::tokenizer {
namespace {

/// Cache only short pieces, and at most this many, as HF does: long pieces
/// rarely repeat.
constexpr size_t kMaxCachedWordLength = 256;
constexpr size_t kCacheCapacity = 10000;

uint64_t pairKey(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
         static_cast<uint32_t>(right);
}

} // namespace

std::unique_ptr<BpeModel>
BpeModel::parse(const Json &object, JsonReader &reader, std::string_view path) {
  std::unique_ptr<BpeModel> model(new BpeModel());
  std::string unkToken = reader.getString(object, "unk_token", path, "");
  model->fuseUnk = reader.getBool(object, "fuse_unk", path, false);
  model->byteFallback = reader.getBool(object, "byte_fallback", path, false);
  model->ignoreMerges = reader.getBool(object, "ignore_merges", path, false);
  for (std::string_view affix :
       {"continuing_subword_prefix", "end_of_word_suffix"})
    if (!reader.getString(object, affix, path, "").empty())
      reader.fail(support::strCat(path, ".", affix),
                  "is not supported (must be empty)");
  if (const Json *dropout = reader.find(object, "dropout"))
    if (!dropout->is_number() || dropout->get<double>() != 0)
      reader.fail(support::strCat(path, ".dropout"),
                  "is not supported (must be null)");

  const Json *vocab = reader.getObject(object, "vocab", path);
  const Json *merges = reader.getArray(object, "merges", path);
  if (reader.failed())
    return nullptr;

  model->vocab.reserve(vocab->size());
  for (const auto &[key, value] : vocab->items()) {
    std::optional<int64_t> id = getInteger(value);
    if (!id || *id < 0 || *id > INT32_MAX) {
      reader.fail(support::strCat(path, ".vocab"),
                  support::strCat("entry '", key,
                                  "' must have a non-negative integer id"));
      return nullptr;
    }
    model->vocab[key] = static_cast<int32_t>(*id);
  }

  if (!unkToken.empty()) {
    auto it = model->vocab.find(unkToken);
    if (it == model->vocab.end()) {
      reader.fail(support::strCat(path, ".unk_token"),
                  support::strCat("'", unkToken, "' is not in the vocabulary"));
      return nullptr;
    }
    model->unkId = it->second;
  }

  model->byteIds.fill(-1);
  for (unsigned byte = 0; byte < 256; ++byte) {
    auto it = model->vocab.find(getByteFallbackToken(byte));
    if (it != model->vocab.end())
      model->byteIds[byte] = it->second;
  }

  if (!model->parseMerges(*merges, reader, support::strCat(path, ".merges")))
    return nullptr;
  return model;
}

bool BpeModel::parseMerges(const Json &list, JsonReader &reader,
                           std::string_view path) {
  merges.reserve(list.size());
  for (size_t rank = 0; rank < list.size(); ++rank) {
    const Json &item = list[rank];
    auto itemPath = [&] { return support::strCat(path, "[", rank, "]"); };
    // Older files spell a merge "left right", newer ones ["left", "right"].
    std::string_view left, right;
    if (item.is_string()) {
      const std::string &text = item.get_ref<const std::string &>();
      std::vector<std::string_view> parts = support::split(text, ' ');
      if (parts.size() != 2) {
        reader.fail(itemPath(),
                    support::strCat("'", text,
                                    "' is not two tokens separated by a "
                                    "space"));
        return false;
      }
      left = parts[0];
      right = parts[1];
    } else if (item.is_array() && item.size() == 2 && item[0].is_string() &&
               item[1].is_string()) {
      left = item[0].get_ref<const std::string &>();
      right = item[1].get_ref<const std::string &>();
    } else {
      reader.fail(itemPath(),
                  "must be \"left right\" or [\"left\", \"right\"]");
      return false;
    }

    std::string merged = support::strCat(left, right);
    int32_t ids[3];
    std::string_view names[3] = {left, right, merged};
    for (int i = 0; i < 3; ++i) {
      auto it = vocab.find(names[i]);
      if (it == vocab.end()) {
        reader.fail(itemPath(), support::strCat("merges '", left, "' and '",
                                                right, "', but '", names[i],
                                                "' is not in the vocabulary"));
        return false;
      }
      ids[i] = it->second;
    }
    // A repeated pair keeps its last rank, as HF's map does.
    merges[pairKey(ids[0], ids[1])] = {static_cast<int32_t>(rank), ids[2]};
  }
  return true;
}

std::optional<BpeModel::Merge> BpeModel::findMerge(int32_t left,
                                                   int32_t right) const {
  auto it = merges.find(pairKey(left, right));
  if (it == merges.end())
    return std::nullopt;
  return it->second;
}

std::vector<int32_t> BpeModel::splitIntoSymbols(std::string_view word) const {
  std::vector<int32_t> symbols;
  symbols.reserve(word.size());
  // A run of unknown characters, pending until a known one ends it.
  bool unkPending = false;
  for (size_t offset = 0; offset < word.size();) {
    size_t length = readUtf8(word, offset).length;
    std::string_view c = word.substr(offset, length);
    offset += length;
    auto it = vocab.find(c);
    if (it != vocab.end()) {
      if (unkPending)
        symbols.push_back(*unkId);
      unkPending = false;
      symbols.push_back(it->second);
      continue;
    }
    if (byteFallback && std::all_of(c.begin(), c.end(), [&](char byte) {
          return byteIds[static_cast<uint8_t>(byte)] >= 0;
        })) {
      // HF emits the bytes without first flushing a pending unknown token;
      // doing the same keeps ids identical.
      for (char byte : c)
        symbols.push_back(byteIds[static_cast<uint8_t>(byte)]);
      continue;
    }
    if (!unkId)
      continue;
    if (unkPending && !fuseUnk)
      symbols.push_back(*unkId);
    unkPending = true;
  }
  if (unkPending)
    symbols.push_back(*unkId);
  return symbols;
}

void BpeModel::mergeSymbols(std::vector<int32_t> &symbols) const {
  int32_t count = static_cast<int32_t>(symbols.size());
  if (count < 2)
    return;
  // A doubly linked list over the symbols; merged-away ones are marked -1.
  std::vector<int32_t> prev(count), next(count);
  for (int32_t i = 0; i < count; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < count ? i + 1 : -1;
  }

  struct Candidate {
    int32_t rank;
    int32_t pos;
    int32_t result;
    bool operator>(const Candidate &other) const {
      return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  auto push = [&](int32_t pos) {
    if (pos < 0 || next[pos] < 0)
      return;
    if (std::optional<Merge> merge =
            findMerge(symbols[pos], symbols[next[pos]]))
      queue.push({merge->rank, pos, merge->result});
  };
  for (int32_t i = 0; i + 1 < count; ++i)
    push(i);

  while (!queue.empty()) {
    Candidate top = queue.top();
    queue.pop();
    int32_t right = next[top.pos];
    // Skip entries that earlier merges made stale.
    if (symbols[top.pos] < 0 || right < 0)
      continue;
    std::optional<Merge> merge = findMerge(symbols[top.pos], symbols[right]);
    if (!merge || merge->result != top.result)
      continue;
    symbols[top.pos] = top.result;
    symbols[right] = -1;
    next[top.pos] = next[right];
    if (next[right] >= 0)
      prev[next[right]] = top.pos;
    push(prev[top.pos]);
    push(top.pos);
  }
  symbols.erase(std::remove(symbols.begin(), symbols.end(), -1), symbols.end());
}

void BpeModel::tokenize(std::string_view word,
                        std::vector<int32_t> &ids) const {
  if (word.empty())
    return;
  if (ignoreMerges) {
    auto it = vocab.find(word);
    if (it != vocab.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  bool cacheable = word.size() < kMaxCachedWordLength;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = cache.find(word);
    if (it != cache.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> symbols = splitIntoSymbols(word);
  mergeSymbols(symbols);
  ids.insert(ids.end(), symbols.begin(), symbols.end());
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (cache.size() >= kCacheCapacity)
      cache.clear();
    cache[std::string(word)] = std::move(symbols);
  }
}

} // namespace llmc::tokenizer
