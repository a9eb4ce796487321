//===- Normalizer.cpp - tokenizer.json normalizers ------------------------===//

#include "runtime/tokenizer/Normalizer.h"

#include "runtime/tokenizer/PrecompiledCharsmap.h"
#include "runtime/tokenizer/SplitRegex.h"
#include "runtime/tokenizer/Unicode.h"
#include "runtime/tokenizer/Utf8.h"

#include "absl/strings/escaping.h"

#include <optional>
#include <vector>

namespace llmc::tokenizer {

Normalizer::~Normalizer() = default;

namespace {

class UnicodeNormalizer : public Normalizer {
public:
  explicit UnicodeNormalizer(NormalizationForm form) : form(form) {}
  void normalize(std::string &text) const override {
    text = normalizeUnicode(text, form);
  }

private:
  NormalizationForm form;
};

class PrependNormalizer : public Normalizer {
public:
  explicit PrependNormalizer(std::string prefix) : prefix(std::move(prefix)) {}
  void normalize(std::string &text) const override {
    // Empty stretches (between two adjacent added tokens) stay empty.
    if (!text.empty())
      text.insert(0, prefix);
  }

private:
  std::string prefix;
};

/// Every match of a literal string, or of a regex, replaced by `content`.
class ReplaceNormalizer : public Normalizer {
public:
  ReplaceNormalizer(std::string pattern,
                    std::shared_ptr<const SplitRegex> regex,
                    std::string content)
      : pattern(std::move(pattern)), regex(std::move(regex)),
        content(std::move(content)) {}
  void normalize(std::string &text) const override {
    std::vector<std::pair<size_t, size_t>> matches =
        regex ? regex->findMatches(text) : findLiteral(text, pattern);
    if (matches.empty())
      return;
    std::string out;
    out.reserve(text.size());
    size_t start = 0;
    for (auto [begin, end] : matches) {
      out.append(text, start, begin - start).append(content);
      start = end;
    }
    out.append(text, start, std::string::npos);
    text = std::move(out);
  }

private:
  std::string pattern;
  std::shared_ptr<const SplitRegex> regex;
  std::string content;
};

class LowercaseNormalizer : public Normalizer {
public:
  void normalize(std::string &text) const override {
    text = toLowerUnicode(text);
  }
};

/// White space (Unicode White_Space) removed from either end.
class StripNormalizer : public Normalizer {
public:
  StripNormalizer(bool left, bool right) : left(left), right(right) {}
  void normalize(std::string &text) const override {
    size_t begin = 0, end = text.size();
    if (left)
      while (begin < end) {
        Utf8Char c = readUtf8(text, begin);
        if (!isWhiteSpace(c.codePoint))
          break;
        begin += c.length;
      }
    if (right)
      while (end > begin) {
        // The last character starts at the last byte that is not a
        // continuation byte.
        size_t start = end - 1;
        while (start > begin && isUtf8ContinuationByte(text[start]))
          --start;
        if (!isWhiteSpace(readUtf8(text, start).codePoint))
          break;
        end = start;
      }
    text = text.substr(begin, end - begin);
  }

private:
  bool left, right;
};

/// SentencePiece's compiled rules (PrecompiledCharsmap.h).
class PrecompiledNormalizer : public Normalizer {
public:
  explicit PrecompiledNormalizer(PrecompiledCharsmap charsmap)
      : charsmap(std::move(charsmap)) {}
  void normalize(std::string &text) const override {
    text = charsmap.normalize(text);
  }

private:
  PrecompiledCharsmap charsmap;
};

class SequenceNormalizer : public Normalizer {
public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
      : steps(std::move(steps)) {}
  void normalize(std::string &text) const override {
    for (const std::unique_ptr<Normalizer> &step : steps)
      step->normalize(text);
  }

private:
  std::vector<std::unique_ptr<Normalizer>> steps;
};

std::unique_ptr<Normalizer> parsePrecompiled(const Json &object,
                                             JsonReader &reader,
                                             std::string_view path) {
  std::string base64 = reader.getString(object, "precompiled_charsmap", path);
  if (reader.failed())
    return nullptr;
  std::string field = support::strCat(path, ".precompiled_charsmap");
  std::string bytes;
  if (!absl::Base64Unescape(base64, &bytes)) {
    reader.fail(field, "is not valid base64");
    return nullptr;
  }
  absl::StatusOr<PrecompiledCharsmap> charsmap =
      PrecompiledCharsmap::parse(bytes);
  if (!charsmap.ok()) {
    reader.fail(field,
                support::strCat("is not a SentencePiece map: it ",
                                std::string(charsmap.status().message())));
    return nullptr;
  }
  return std::make_unique<PrecompiledNormalizer>(std::move(*charsmap));
}

} // namespace

std::unique_ptr<Normalizer>
parseNormalizer(const Json *value, JsonReader &reader, std::string_view path) {
  if (!value || value->is_null())
    return nullptr;
  const Json *object = reader.asObject(*value, path);
  if (!object)
    return nullptr;
  std::string type = reader.getString(*object, "type", path);
  if (reader.failed())
    return nullptr;

  for (auto [name, form] : {std::pair{"NFC", NormalizationForm::NFC},
                            {"NFD", NormalizationForm::NFD},
                            {"NFKC", NormalizationForm::NFKC},
                            {"NFKD", NormalizationForm::NFKD}})
    if (type == name)
      return std::make_unique<UnicodeNormalizer>(form);

  if (type == "Prepend")
    return std::make_unique<PrependNormalizer>(
        reader.getString(*object, "prepend", path));

  if (type == "Replace") {
    auto pattern = reader.getPattern(*object, "pattern", path);
    std::string content = reader.getString(*object, "content", path);
    if (!pattern)
      return nullptr;
    auto [text, isRegex] = std::move(*pattern);
    if (!isRegex)
      return std::make_unique<ReplaceNormalizer>(std::move(text), nullptr,
                                                 std::move(content));
    absl::StatusOr<std::shared_ptr<const SplitRegex>> regex =
        SplitRegex::compile(text);
    if (!regex.ok()) {
      reader.fail(support::strCat(path, ".pattern"),
                  std::string(regex.status().message()));
      return nullptr;
    }
    return std::make_unique<ReplaceNormalizer>("", std::move(*regex),
                                               std::move(content));
  }

  if (type == "Lowercase")
    return std::make_unique<LowercaseNormalizer>();

  if (type == "Strip")
    return std::make_unique<StripNormalizer>(
        reader.getBool(*object, "strip_left", path, true),
        reader.getBool(*object, "strip_right", path, true));

  if (type == "Precompiled")
    return parsePrecompiled(*object, reader, path);

  if (type == "Sequence") {
    auto steps = reader.getSteps<Normalizer>(*object, "normalizers", path,
                                             parseNormalizer);
    if (!steps)
      return nullptr;
    return std::make_unique<SequenceNormalizer>(std::move(*steps));
  }

  reader.fail(support::strCat(path, ".type"),
              support::strCat("'", type,
                              "' is not supported (supported: NFC, NFD, NFKC, "
                              "NFKD, Lowercase, Strip, Prepend, Replace, "
                              "Precompiled, Sequence)"));
  return nullptr;
}

} // namespace llmc::tokenizer
