//===- Normalizer.cpp - tokenizer.json normalizers ------------------------===//

#include "runtime/tokenizer/Normalizer.h"

#include "runtime/tokenizer/Unicode.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/ADT/StringSwitch.h"

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

class ReplaceNormalizer : public Normalizer {
public:
  ReplaceNormalizer(std::string pattern, std::string content)
      : pattern(std::move(pattern)), content(std::move(content)) {}
  void normalize(std::string &text) const override {
    if (pattern.empty())
      return;
    std::string out;
    out.reserve(text.size());
    size_t start = 0;
    for (size_t found; (found = text.find(pattern, start)) != std::string::npos;
         start = found + pattern.size())
      out.append(text, start, found - start).append(content);
    out.append(text, start, std::string::npos);
    text = std::move(out);
  }

private:
  std::string pattern;
  std::string content;
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

} // namespace

std::unique_ptr<Normalizer> parseNormalizer(const llvm::json::Value *value,
                                            JsonReader &reader,
                                            const llvm::Twine &path) {
  if (!value || value->kind() == llvm::json::Value::Null)
    return nullptr;
  const llvm::json::Object *object = reader.asObject(*value, path);
  if (!object)
    return nullptr;
  std::string type = reader.getString(*object, "type", path);
  if (reader.failed())
    return nullptr;

  std::optional<NormalizationForm> form =
      llvm::StringSwitch<std::optional<NormalizationForm>>(type)
          .Case("NFC", NormalizationForm::NFC)
          .Case("NFD", NormalizationForm::NFD)
          .Case("NFKC", NormalizationForm::NFKC)
          .Case("NFKD", NormalizationForm::NFKD)
          .Default(std::nullopt);
  if (form)
    return std::make_unique<UnicodeNormalizer>(*form);

  if (type == "Prepend")
    return std::make_unique<PrependNormalizer>(
        reader.getString(*object, "prepend", path));

  if (type == "Replace") {
    auto pattern = reader.getPattern(*object, "pattern", path);
    std::string content = reader.getString(*object, "content", path);
    if (!pattern)
      return nullptr;
    if (pattern->second) {
      reader.fail(path + ".pattern",
                  "is a regex; only String patterns are supported");
      return nullptr;
    }
    return std::make_unique<ReplaceNormalizer>(std::move(pattern->first),
                                               std::move(content));
  }

  if (type == "Sequence") {
    auto steps = reader.getSteps<Normalizer>(*object, "normalizers", path, parseNormalizer);
    if (!steps)
      return nullptr;
    return std::make_unique<SequenceNormalizer>(std::move(*steps));
  }

  reader.fail(path + ".type",
              "'" + type +
                  "' is not supported (supported: NFC, NFD, NFKC, NFKD, "
                  "Prepend, Replace, Sequence)");
  return nullptr;
}

} // namespace llmc::tokenizer
