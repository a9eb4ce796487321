//===- GgufTokenizer.cpp - a GGUF file's tokenizer as tokenizer.json ------===//
//
// The JSON mirrors what Hugging Face writes for the same tokenizers (Qwen2,
// Llama 3, Llama 2), field for field, so the runtime loads it like any other
// tokenizer.json; the split regexes are spelled exactly as those files spell
// them, because readers recognise them by their text.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufTokenizer.h"

#include "frontends/gguf/MetadataFields.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace json = llvm::json;

namespace llmc::gguf {
namespace {

/// `tokenizer.ggml.token_type` values (llama.cpp's llama_token_type).
enum TokenType : int64_t {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
};

constexpr llvm::StringLiteral kQwen2Regex =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
constexpr llvm::StringLiteral kLlama3Regex =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
/// Qwen3.5's split: Qwen 2's with combining marks (\p{M}) kept in words.
constexpr llvm::StringLiteral kQwen35Regex =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
/// DeepSeek Coder's CJK runs: CJK ideographs, then the blocks from
/// Samaritan (U+0800) up to them, and Hangul syllables.
constexpr llvm::StringLiteral kDeepSeekCjkRegex =
    "[\\x{4E00}-\\x{9FA5}\\x{0800}-\\x{4E00}\\x{AC00}-\\x{D7FF}]+";
/// DeepSeek LLM's letter runs: a space, then letters of the cased scripts
/// (a subset of Unicode's Lu, Ll and Lt), range by range as its
/// tokenizer.json lists them.
constexpr llvm::StringLiteral kDeepSeekLlmLettersRegex =
    "\\s?[A-Za-z\\x{00B5}\\x{00C0}-\\x{00D6}\\x{00D8}-\\x{00F6}"
    "\\x{00F8}-\\x{01BA}\\x{01BC}-\\x{01BF}\\x{01C4}-\\x{0293}"
    "\\x{0295}-\\x{02AF}\\x{0370}-\\x{0373}\\x{0376}\\x{0377}"
    "\\x{037B}-\\x{037D}\\x{037F}\\x{0386}\\x{0388}-\\x{038A}\\x{038C}"
    "\\x{038E}-\\x{03A1}\\x{03A3}-\\x{03F5}\\x{03F7}-\\x{0481}"
    "\\x{048A}-\\x{052F}\\x{0531}-\\x{0556}\\x{10A0}-\\x{10C5}"
    "\\x{13A0}-\\x{13F5}\\x{13F8}-\\x{13FD}\\x{1C90}-\\x{1CBA}"
    "\\x{1CBD}-\\x{1CBF}\\x{1D00}-\\x{1D2B}\\x{1D6B}-\\x{1D77}"
    "\\x{1D79}-\\x{1D9A}\\x{1E00}-\\x{1F15}\\x{1F18}-\\x{1F1D}"
    "\\x{1F20}-\\x{1F45}\\x{1F48}-\\x{1F4D}\\x{1F50}-\\x{1F57}\\x{1F59}"
    "\\x{1F5B}\\x{1F5D}\\x{1F5F}-\\x{1F7D}\\x{1F80}-\\x{1FB4}"
    "\\x{1FB6}-\\x{1FBC}\\x{1FBE}\\x{1FC2}-\\x{1FC4}\\x{1FC6}-\\x{1FCC}"
    "\\x{1FD0}-\\x{1FD3}\\x{1FD6}-\\x{1FDB}\\x{1FE0}-\\x{1FEC}"
    "\\x{1FF2}-\\x{1FF4}\\x{1FF6}-\\x{1FFC}\\x{2102}\\x{2107}"
    "\\x{210A}-\\x{2113}\\x{2115}\\x{2119}-\\x{211D}\\x{2124}\\x{2126}"
    "\\x{2128}\\x{212A}-\\x{212D}\\x{212F}-\\x{2134}\\x{2139}"
    "\\x{213C}-\\x{213F}\\x{2145}-\\x{2149}\\x{214E}\\x{2183}\\x{2184}"
    "\\x{2C00}-\\x{2C7B}\\x{2C7E}-\\x{2CE4}\\x{2CEB}-\\x{2CEE}\\x{2CF2}"
    "\\x{2CF3}\\x{A640}-\\x{A66D}\\x{A680}-\\x{A69B}\\x{A722}-\\x{A76F}"
    "\\x{A771}-\\x{A787}\\x{A78B}-\\x{A78E}\\x{AB70}-\\x{ABBF}"
    "\\x{FB00}-\\x{FB06}\\x{FB13}-\\x{FB17}\\x{FF21}-\\x{FF3A}"
    "\\x{FF41}-\\x{FF5A}\\x{10400}-\\x{1044F}\\x{104B0}-\\x{104D3}"
    "\\x{104D8}-\\x{104FB}\\x{10C80}-\\x{10CB2}\\x{10CC0}-\\x{10CF2}"
    "\\x{118A0}-\\x{118DF}\\x{1E900}-\\x{1E943}]+";
/// DeepSeek LLM's punctuation runs: ASCII's (and its letters, already
/// split), the full-width forms, curly quotes and CJK's space, comma and
/// full stop.
constexpr llvm::StringLiteral kDeepSeekLlmPunctuationRegex =
    "\\s?[!-/:-~\\x{FF01}-\\x{FF0F}\\x{FF1A}-\\x{FF5E}\\x{2018}-\\x{201F}"
    "\\x{3000}-\\x{3002}]+";
/// Falcon's punctuation: Unicode's and ASCII's (which counts $+<=>^`|~).
constexpr llvm::StringLiteral kFalconPunctuationRegex = "[\\p{P}$+<=>^`|~]+";
/// SentencePiece's visible space.
constexpr llvm::StringLiteral kSpace = "\xe2\x96\x81";

struct Vocabulary {
  llvm::ArrayRef<llvm::StringRef> tokens;
  /// Per token; empty means every token is Normal.
  std::vector<int64_t> types;

  int64_t getType(size_t id) const {
    return types.empty() ? Normal : types[id];
  }
};

json::Object byteLevel(bool addPrefixSpace, bool trimOffsets, bool useRegex) {
  return json::Object{{"type", "ByteLevel"},
                      {"add_prefix_space", addPrefixSpace},
                      {"trim_offsets", trimOffsets},
                      {"use_regex", useRegex}};
}

json::Object splitRegex(llvm::StringRef regex) {
  return json::Object{{"type", "Split"},
                      {"pattern", json::Object{{"Regex", regex}}},
                      {"behavior", "Isolated"},
                      {"invert", false}};
}

json::Object replace(llvm::StringRef from, llvm::StringRef to) {
  return json::Object{{"type", "Replace"},
                      {"pattern", json::Object{{"String", from}}},
                      {"content", to}};
}

/// What `tokenizer.ggml.pre` selects for a byte-level BPE: the normalizer,
/// the pre-tokenizer and whether whole words in the vocabulary skip merging
/// (Llama 3's `ignore_merges`).
struct ByteLevelSetup {
  json::Value normalizer = nullptr;
  json::Value preTokenizer = nullptr;
  bool ignoreMerges = false;
};

/// `splits` in order, each a Split the next one splits further, then the
/// byte-level mapping (with GPT-2's split when `gpt2Split`).
json::Object splitsThenByteLevel(llvm::ArrayRef<llvm::StringRef> splits,
                                 bool gpt2Split) {
  json::Array steps;
  for (llvm::StringRef regex : splits)
    steps.push_back(splitRegex(regex));
  steps.push_back(byteLevel(false, true, gpt2Split));
  return json::Object{{"type", "Sequence"},
                      {"pretokenizers", std::move(steps)}};
}

std::optional<ByteLevelSetup> getByteLevelSetup(llvm::StringRef pre) {
  ByteLevelSetup setup;
  if (pre == "qwen2" || pre == "deepseek-r1-qwen") {
    setup.normalizer = json::Object{{"type", "NFC"}};
    setup.preTokenizer = json::Object{
        {"type", "Sequence"},
        {"pretokenizers",
         json::Array{splitRegex(kQwen2Regex), byteLevel(false, false, false)}}};
  } else if (pre == "qwen35") {
    // No NFC: a combining mark stays a token of its own.
    setup.preTokenizer = json::Object{
        {"type", "Sequence"},
        {"pretokenizers", json::Array{splitRegex(kQwen35Regex),
                                      byteLevel(false, false, false)}}};
  } else if (llvm::is_contained({"starcoder", "refact", "command-r", "smollm",
                                 "codeshell", "exaone", "minerva"},
                                pre)) {
    // Transformers' Digits(individual_digits) before GPT-2's split.
    setup.preTokenizer = splitsThenByteLevel({"\\p{N}"}, true);
  } else if (pre == "deepseek-coder") {
    setup.preTokenizer = splitsThenByteLevel(
        {"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", kDeepSeekCjkRegex, "\\p{N}"},
        false);
  } else if (pre == "deepseek-llm") {
    // Transformers' Digits(individual_digits) last, as in deepseek-coder.
    setup.preTokenizer = splitsThenByteLevel(
        {"[\r\n]", kDeepSeekLlmLettersRegex, kDeepSeekLlmPunctuationRegex,
         "\\s+$", kDeepSeekCjkRegex, "\\p{N}"},
        false);
  } else if (pre == "falcon") {
    // Punctuation runs, GPT-2's split, digit runs, then threes of digits.
    setup.preTokenizer = splitsThenByteLevel({kFalconPunctuationRegex}, true);
    json::Array &steps =
        *setup.preTokenizer.getAsObject()->getArray("pretokenizers");
    steps.push_back(splitRegex("\\p{N}+"));
    steps.push_back(splitRegex("[0-9][0-9][0-9]"));
  } else if (pre == "llama-bpe" || pre == "llama3" || pre == "llama-v3") {
    setup.preTokenizer = json::Object{
        {"type", "Sequence"},
        {"pretokenizers",
         json::Array{splitRegex(kLlama3Regex), byteLevel(false, true, false)}}};
    setup.ignoreMerges = true;
  } else if (llvm::is_contained(
                 {"gpt-2", "default", "mpt", "olmo", "jais", "trillion"},
                 pre)) {
    // llama.cpp's `default` is a guess it warns about; GPT-2's own split is
    // what a byte-level BPE without further information means.
    setup.preTokenizer = byteLevel(false, true, true);
  } else {
    return std::nullopt;
  }
  return setup;
}

/// `tokenizer.ggml.merges`, stored as `left right`; the separator is the
/// first space after the first character, as llama.cpp splits them, so a
/// left part may start with a space.
json::Array readMerges(MetadataFields &fields) {
  constexpr llvm::StringLiteral key = "tokenizer.ggml.merges";
  llvm::ArrayRef<llvm::StringRef> merges = fields.getStringArray(key);
  json::Array pairs;
  for (size_t i = 0; i < merges.size(); ++i) {
    size_t space = merges[i].find(' ', 1);
    if (space == llvm::StringRef::npos || !json::isUTF8(merges[i])) {
      fields.fail(key, "entry " + llvm::Twine(i) +
                           " is not two UTF-8 tokens separated by a space");
      return {};
    }
    pairs.push_back(json::Array{merges[i].take_front(space),
                                merges[i].drop_front(space + 1)});
  }
  return pairs;
}

/// SentencePiece-style merges from scores: every split of a normal token
/// into two normal tokens, by the merged token's score (highest first), as
/// transformers' SentencePieceExtractor orders them.
json::Array deriveMerges(const Vocabulary &vocabulary,
                         llvm::ArrayRef<double> scores) {
  llvm::StringMap<size_t> ids;
  for (size_t id = 0; id < vocabulary.tokens.size(); ++id)
    if (vocabulary.getType(id) == Normal)
      ids.try_emplace(vocabulary.tokens[id], id);
  struct Merge {
    size_t left, right, merged;
  };
  std::vector<Merge> merges;
  for (size_t id = 0; id < vocabulary.tokens.size(); ++id) {
    if (vocabulary.getType(id) != Normal)
      continue;
    llvm::StringRef token = vocabulary.tokens[id];
    size_t first = merges.size();
    for (size_t at = 1; at < token.size(); ++at) {
      if ((static_cast<uint8_t>(token[at]) & 0xC0) == 0x80)
        continue; // inside a UTF-8 sequence
      auto left = ids.find(token.take_front(at));
      auto right = ids.find(token.drop_front(at));
      if (left != ids.end() && right != ids.end())
        merges.push_back({left->second, right->second, id});
    }
    std::sort(merges.begin() + first, merges.end(),
              [](const Merge &a, const Merge &b) {
                return std::tie(a.left, a.right) < std::tie(b.left, b.right);
              });
  }
  std::stable_sort(merges.begin(), merges.end(),
                   [&](const Merge &a, const Merge &b) {
                     return scores[a.merged] > scores[b.merged];
                   });
  json::Array result;
  for (const Merge &merge : merges)
    result.push_back(json::Array{vocabulary.tokens[merge.left],
                                 vocabulary.tokens[merge.right]});
  return result;
}

json::Array addedTokens(const Vocabulary &vocabulary) {
  json::Array added;
  for (size_t id = 0; id < vocabulary.tokens.size(); ++id) {
    int64_t type = vocabulary.getType(id);
    if (type != Unknown && type != Control && type != UserDefined &&
        type != Unused)
      continue;
    added.push_back(json::Object{{"id", static_cast<int64_t>(id)},
                                 {"content", vocabulary.tokens[id]},
                                 {"single_word", false},
                                 {"lstrip", false},
                                 {"rstrip", false},
                                 {"normalized", false},
                                 {"special", type != UserDefined}});
  }
  return added;
}

struct SpecialToken {
  llvm::StringRef text;
  int64_t id;
};

/// Adds BOS before and EOS after each sequence; `otherwise` when neither is
/// added.
json::Value postProcessor(std::optional<SpecialToken> bos,
                          std::optional<SpecialToken> eos,
                          json::Value otherwise) {
  if (!bos && !eos)
    return otherwise;
  auto appendSequence = [&](json::Array &out, llvm::StringRef name,
                            int64_t typeId) {
    auto special = [&](const SpecialToken &token) {
      return json::Object{{"SpecialToken", json::Object{{"id", token.text},
                                                        {"type_id", typeId}}}};
    };
    if (bos)
      out.push_back(special(*bos));
    out.push_back(json::Object{
        {"Sequence", json::Object{{"id", name}, {"type_id", typeId}}}});
    if (eos)
      out.push_back(special(*eos));
  };
  json::Array single, pair;
  appendSequence(single, "A", 0);
  appendSequence(pair, "A", 0);
  appendSequence(pair, "B", 1);
  json::Object specials;
  for (const std::optional<SpecialToken> &token : {bos, eos})
    if (token)
      specials[token->text] =
          json::Object{{"id", token->text},
                       {"ids", json::Array{token->id}},
                       {"tokens", json::Array{token->text}}};
  return json::Object{{"type", "TemplateProcessing"},
                      {"single", std::move(single)},
                      {"pair", std::move(pair)},
                      {"special_tokens", std::move(specials)}};
}

/// The `llama` model: SentencePiece-style BPE with byte fallback, spaces as
/// U+2581 and (by default) a space prepended to the text.
void describeSentencePiece(MetadataFields &fields, const Vocabulary &vocabulary,
                           std::optional<SpecialToken> unk, json::Object &root,
                           json::Object &model) {
  if (fields.has("tokenizer.ggml.merges")) {
    model["merges"] = readMerges(fields);
  } else {
    std::vector<double> scores = fields.getFloatArray("tokenizer.ggml.scores");
    if (scores.size() != vocabulary.tokens.size())
      fields.fail("tokenizer.ggml.scores",
                  "has " + llvm::Twine(scores.size()) + " entries for " +
                      llvm::Twine(vocabulary.tokens.size()) +
                      " tokens; without tokenizer.ggml.merges the merges are "
                      "derived from the scores");
    else if (llvm::any_of(scores, [](double score) { return score != score; }))
      fields.fail("tokenizer.ggml.scores", "holds NaN, which ranks nothing");
    else
      model["merges"] = deriveMerges(vocabulary, scores);
  }
  bool prefix = fields.getBool("tokenizer.ggml.add_space_prefix", true);
  json::Array normalizers;
  if (prefix)
    normalizers.push_back(
        json::Object{{"type", "Prepend"}, {"prepend", kSpace}});
  normalizers.push_back(replace(" ", kSpace));
  root["normalizer"] = json::Object{{"type", "Sequence"},
                                    {"normalizers", std::move(normalizers)}};
  root["pre_tokenizer"] = nullptr;
  json::Array decoders{replace(kSpace, " "),
                       json::Object{{"type", "ByteFallback"}},
                       json::Object{{"type", "Fuse"}}};
  if (prefix)
    decoders.push_back(json::Object{
        {"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
  root["decoder"] =
      json::Object{{"type", "Sequence"}, {"decoders", std::move(decoders)}};
  model["unk_token"] = unk ? json::Value(unk->text) : json::Value(nullptr);
  model["fuse_unk"] = true;
  model["byte_fallback"] = true;
  model["ignore_merges"] = false;
}

/// The `gpt2` model: byte-level BPE with stored merges.
void describeByteLevel(MetadataFields &fields, json::Object &root,
                       json::Object &model) {
  std::string pre = fields.getString("tokenizer.ggml.pre", "default");
  std::optional<ByteLevelSetup> setup = getByteLevelSetup(pre);
  if (!setup) {
    fields.fail("tokenizer.ggml.pre", "'" + pre +
                                          "' is not supported (llmc reads "
                                          "qwen2, qwen35, llama-bpe, gpt-2, "
                                          "starcoder and its kin, "
                                          "deepseek-coder, deepseek-llm, "
                                          "falcon and "
                                          "default)");
    return;
  }
  if (!fields.has("tokenizer.ggml.merges"))
    fields.fail("tokenizer.ggml.merges", "is missing (a gpt2 tokenizer needs "
                                         "its merges)");
  model["merges"] = readMerges(fields);
  root["normalizer"] = std::move(setup->normalizer);
  root["pre_tokenizer"] = std::move(setup->preTokenizer);
  root["decoder"] = byteLevel(false, false, false);
  model["unk_token"] = nullptr;
  model["fuse_unk"] = false;
  model["byte_fallback"] = false;
  model["ignore_merges"] = setup->ignoreMerges;
}

/// Reads the tokens and their types; checks lengths and UTF-8.
Vocabulary readVocabulary(MetadataFields &fields) {
  Vocabulary vocabulary;
  vocabulary.tokens = fields.getStringArray("tokenizer.ggml.tokens");
  vocabulary.types = fields.getIntArray("tokenizer.ggml.token_type");
  if (vocabulary.tokens.empty())
    fields.fail("tokenizer.ggml.tokens", "is missing or empty");
  if (!vocabulary.types.empty() &&
      vocabulary.types.size() != vocabulary.tokens.size()) {
    fields.fail("tokenizer.ggml.token_type",
                "has " + llvm::Twine(vocabulary.types.size()) +
                    " entries for " + llvm::Twine(vocabulary.tokens.size()) +
                    " tokens");
    vocabulary.types.clear();
  }
  for (size_t id = 0; id < vocabulary.tokens.size(); ++id)
    if (!json::isUTF8(vocabulary.tokens[id])) {
      fields.fail("tokenizer.ggml.tokens",
                  "token " + llvm::Twine(id) + " is not valid UTF-8");
      break;
    }
  return vocabulary;
}

} // namespace

llvm::Expected<std::string> buildTokenizerJson(const GgufFile &file) {
  MetadataFields fields(file);
  std::string kind = fields.getString("tokenizer.ggml.model", "none");
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  if (kind == "none")
    return std::string();
  if (kind != "gpt2" && kind != "llama") {
    fields.fail("tokenizer.ggml.model",
                "'" + kind + "' is not supported (llmc reads gpt2 and llama)");
    return fields.takeError();
  }
  Vocabulary vocabulary = readVocabulary(fields);
  if (llvm::Error error = fields.takeError())
    return std::move(error);

  auto readToken = [&](llvm::StringRef key) -> std::optional<SpecialToken> {
    int64_t id = fields.getInt(key, -1);
    if (id < 0)
      return std::nullopt;
    if (static_cast<uint64_t>(id) >= vocabulary.tokens.size()) {
      fields.fail(key, "is " + llvm::Twine(id) + ", beyond the " +
                           llvm::Twine(vocabulary.tokens.size()) + " tokens");
      return std::nullopt;
    }
    return SpecialToken{vocabulary.tokens[id], id};
  };
  bool sentencePiece = kind == "llama";
  std::optional<SpecialToken> bos = readToken("tokenizer.ggml.bos_token_id");
  std::optional<SpecialToken> eos = readToken("tokenizer.ggml.eos_token_id");
  std::optional<SpecialToken> unk =
      readToken("tokenizer.ggml.unknown_token_id");
  // llama.cpp adds BOS by default for SentencePiece vocabularies only.
  bool addBos = fields.getBool("tokenizer.ggml.add_bos_token",
                               sentencePiece && bos.has_value());
  bool addEos = fields.getBool("tokenizer.ggml.add_eos_token", false);
  if (addBos && !bos)
    fields.fail("tokenizer.ggml.add_bos_token",
                "is set, but tokenizer.ggml.bos_token_id is not");
  if (addEos && !eos)
    fields.fail("tokenizer.ggml.add_eos_token",
                "is set, but tokenizer.ggml.eos_token_id is not");

  json::Object root{{"version", "1.0"},
                    {"truncation", nullptr},
                    {"padding", nullptr},
                    {"added_tokens", addedTokens(vocabulary)}};
  json::Object model{{"type", "BPE"},
                     {"dropout", nullptr},
                     {"continuing_subword_prefix", nullptr},
                     {"end_of_word_suffix", nullptr}};
  if (sentencePiece)
    describeSentencePiece(fields, vocabulary, unk, root, model);
  else
    describeByteLevel(fields, root, model);
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  // Hugging Face writes a (no-op) ByteLevel post-processor for byte-level
  // tokenizers that add nothing.
  root["post_processor"] = postProcessor(
      addBos ? bos : std::nullopt, addEos ? eos : std::nullopt,
      sentencePiece ? json::Value(nullptr) : byteLevel(false, false, false));
  json::Object vocab;
  // A repeated token keeps its first id, as a JSON object can map it once.
  for (size_t id = 0; id < vocabulary.tokens.size(); ++id)
    vocab.try_emplace(vocabulary.tokens[id], static_cast<int64_t>(id));
  model["vocab"] = std::move(vocab);
  root["model"] = std::move(model);

  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(root));
  return text;
}

} // namespace llmc::gguf
