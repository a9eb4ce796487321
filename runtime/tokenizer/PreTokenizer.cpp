//===- PreTokenizer.cpp - tokenizer.json pre-tokenizers -------------------===//

#include "runtime/tokenizer/PreTokenizer.h"

#include "runtime/tokenizer/ByteLevel.h"
#include "runtime/tokenizer/SplitRegex.h"

#include "absl/functional/function_ref.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace llmc::tokenizer {

PreTokenizer::~PreTokenizer() = default;

namespace {

/// What a split keeps of the pattern's matches (HF SplitDelimiterBehavior).
enum class SplitBehavior {
  Removed,
  Isolated,
  MergedWithPrevious,
  MergedWithNext,
  Contiguous,
};

struct Span {
  size_t begin, end;
  bool isMatch;
};

using MatchFinder =
    absl::FunctionRef<std::vector<std::pair<size_t, size_t>>(std::string_view)>;

/// The matches of a piece and the gaps between them, in order, as the spans
/// that `behavior` keeps or merges.
std::vector<Span> splitSpans(std::string_view text, MatchFinder findMatches,
                             SplitBehavior behavior, bool invert) {
  std::vector<Span> spans;
  size_t last = 0;
  for (auto [begin, end] : findMatches(text)) {
    if (begin > last)
      spans.push_back({last, begin, invert});
    spans.push_back({begin, end, !invert});
    last = end;
  }
  if (last < text.size())
    spans.push_back({last, text.size(), invert});

  std::vector<Span> result;
  bool previousMatch = false;
  switch (behavior) {
  case SplitBehavior::Isolated:
    return spans;
  case SplitBehavior::Removed:
    for (const Span &span : spans)
      if (!span.isMatch)
        result.push_back(span);
    return result;
  case SplitBehavior::MergedWithPrevious:
    for (const Span &span : spans) {
      if (span.isMatch && !previousMatch && !result.empty())
        result.back().end = span.end;
      else
        result.push_back(span);
      previousMatch = span.isMatch;
    }
    return result;
  case SplitBehavior::MergedWithNext:
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
      if (it->isMatch && !previousMatch && !result.empty())
        result.back().begin = it->begin;
      else
        result.push_back(*it);
      previousMatch = it->isMatch;
    }
    std::reverse(result.begin(), result.end());
    return result;
  case SplitBehavior::Contiguous:
    for (const Span &span : spans) {
      if (span.isMatch == previousMatch && !result.empty())
        result.back().end = span.end;
      else
        result.push_back(span);
      previousMatch = span.isMatch;
    }
    return result;
  }
  // The switch covers every behavior.
  std::abort();
}

void splitPieces(std::vector<PreToken> &pieces, MatchFinder findMatches,
                 SplitBehavior behavior, bool invert) {
  std::vector<PreToken> result;
  for (PreToken &piece : pieces)
    for (const Span &span :
         splitSpans(piece.text, findMatches, behavior, invert))
      if (span.end > span.begin)
        result.push_back({piece.text.substr(span.begin, span.end - span.begin),
                          piece.atInputStart && span.begin == 0});
  pieces = std::move(result);
}

class SplitPreTokenizer : public PreTokenizer {
public:
  SplitPreTokenizer(std::shared_ptr<const SplitRegex> regex,
                    std::string literal, SplitBehavior behavior, bool invert)
      : regex(std::move(regex)), literal(std::move(literal)),
        behavior(behavior), invert(invert) {}

  void preTokenize(std::vector<PreToken> &pieces) const override {
    splitPieces(
        pieces,
        [&](std::string_view text) {
          return regex ? regex->findMatches(text) : findLiteral(text, literal);
        },
        behavior, invert);
  }

private:
  /// The pattern: a regex, or else a literal string.
  std::shared_ptr<const SplitRegex> regex;
  std::string literal;
  SplitBehavior behavior;
  bool invert;
};

class ByteLevelPreTokenizer : public PreTokenizer {
public:
  ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex)
      : addPrefixSpace(addPrefixSpace), useRegex(useRegex) {}

  void preTokenize(std::vector<PreToken> &pieces) const override {
    if (addPrefixSpace)
      for (PreToken &piece : pieces)
        if (!support::startsWith(piece.text, " "))
          piece.text.insert(0, " ");
    if (useRegex)
      splitPieces(
          pieces,
          [](std::string_view text) {
            return SplitRegex::getGpt2().findMatches(text);
          },
          SplitBehavior::Isolated, /*invert=*/false);
    for (PreToken &piece : pieces) {
      std::string chars;
      appendByteLevelChars(piece.text, chars);
      piece.text = std::move(chars);
    }
  }

private:
  bool addPrefixSpace;
  bool useRegex;
};

enum class PrependScheme { Always, First, Never };

class MetaspacePreTokenizer : public PreTokenizer {
public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme,
                        bool split)
      : replacement(std::move(replacement)), scheme(scheme), split(split) {}

  void preTokenize(std::vector<PreToken> &pieces) const override {
    for (PreToken &piece : pieces) {
      std::string text;
      for (char c : piece.text) {
        if (c == ' ')
          text += replacement;
        else
          text += c;
      }
      bool prepend = scheme == PrependScheme::Always ||
                     (scheme == PrependScheme::First && piece.atInputStart);
      if (prepend && !support::startsWith(text, replacement))
        text.insert(0, replacement);
      piece.text = std::move(text);
    }
    if (split)
      splitPieces(
          pieces,
          [&](std::string_view text) { return findLiteral(text, replacement); },
          SplitBehavior::MergedWithNext, /*invert=*/false);
  }

private:
  std::string replacement;
  PrependScheme scheme;
  bool split;
};

class SequencePreTokenizer : public PreTokenizer {
public:
  explicit SequencePreTokenizer(
      std::vector<std::unique_ptr<PreTokenizer>> steps)
      : steps(std::move(steps)) {}
  void preTokenize(std::vector<PreToken> &pieces) const override {
    for (const std::unique_ptr<PreTokenizer> &step : steps)
      step->preTokenize(pieces);
  }

private:
  std::vector<std::unique_ptr<PreTokenizer>> steps;
};

std::unique_ptr<PreTokenizer> parseSplit(const Json &object, JsonReader &reader,
                                         std::string_view path) {
  auto pattern = reader.getPattern(object, "pattern", path);
  std::string behaviorName = reader.getString(object, "behavior", path);
  bool invert = reader.getBool(object, "invert", path, false);
  if (reader.failed())
    return nullptr;
  std::optional<SplitBehavior> behavior;
  for (auto [name, value] :
       {std::pair{"Removed", SplitBehavior::Removed},
        {"Isolated", SplitBehavior::Isolated},
        {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
        {"MergedWithNext", SplitBehavior::MergedWithNext},
        {"Contiguous", SplitBehavior::Contiguous}})
    if (behaviorName == name)
      behavior = value;
  if (!behavior) {
    reader.fail(support::strCat(path, ".behavior"),
                support::strCat("'", behaviorName, "' is unknown"));
    return nullptr;
  }
  auto [text, isRegex] = *pattern;
  if (!isRegex)
    return std::make_unique<SplitPreTokenizer>(nullptr, std::move(text),
                                               *behavior, invert);
  absl::StatusOr<std::shared_ptr<const SplitRegex>> regex =
      SplitRegex::compile(text);
  if (!regex.ok()) {
    reader.fail(support::strCat(path, ".pattern"),
                std::string(regex.status().message()));
    return nullptr;
  }
  return std::make_unique<SplitPreTokenizer>(std::move(*regex), "", *behavior,
                                             invert);
}

std::unique_ptr<PreTokenizer>
parseMetaspace(const Json &object, JsonReader &reader, std::string_view path) {
  std::string replacement = reader.getString(object, "replacement", path);
  bool split = reader.getBool(object, "split", path, true);
  // Files written before `prepend_scheme` existed say `add_prefix_space`.
  bool addPrefixSpace = reader.getBool(object, "add_prefix_space", path, true);
  std::string schemeName = reader.getString(
      object, "prepend_scheme", path, addPrefixSpace ? "always" : "never");
  if (reader.failed())
    return nullptr;
  std::optional<PrependScheme> scheme;
  for (auto [name, value] : {std::pair{"always", PrependScheme::Always},
                             {"first", PrependScheme::First},
                             {"never", PrependScheme::Never}})
    if (schemeName == name)
      scheme = value;
  if (!scheme) {
    reader.fail(support::strCat(path, ".prepend_scheme"),
                support::strCat("'", schemeName, "' is unknown"));
    return nullptr;
  }
  return std::make_unique<MetaspacePreTokenizer>(std::move(replacement),
                                                 *scheme, split);
}

} // namespace

std::unique_ptr<PreTokenizer> parsePreTokenizer(const Json *value,
                                                JsonReader &reader,
                                                std::string_view path) {
  if (!value || value->is_null())
    return nullptr;
  const Json *object = reader.asObject(*value, path);
  if (!object)
    return nullptr;
  std::string type = reader.getString(*object, "type", path);
  if (reader.failed())
    return nullptr;

  if (type == "Split")
    return parseSplit(*object, reader, path);
  if (type == "ByteLevel") {
    bool addPrefixSpace =
        reader.getBool(*object, "add_prefix_space", path, true);
    bool useRegex = reader.getBool(*object, "use_regex", path, true);
    return std::make_unique<ByteLevelPreTokenizer>(addPrefixSpace, useRegex);
  }
  if (type == "Metaspace")
    return parseMetaspace(*object, reader, path);
  if (type == "Sequence") {
    auto steps = reader.getSteps<PreTokenizer>(*object, "pretokenizers", path,
                                               parsePreTokenizer);
    if (!steps)
      return nullptr;
    return std::make_unique<SequencePreTokenizer>(std::move(*steps));
  }

  reader.fail(support::strCat(path, ".type"),
              support::strCat("'", type,
                              "' is not supported (supported: Split, "
                              "ByteLevel, Metaspace, Sequence)"));
  return nullptr;
}

} // namespace llmc::tokenizer
