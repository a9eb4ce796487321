//===- Decoder.cpp - tokenizer.json decoders ------------------------------===//

#include "runtime/tokenizer/Decoder.h"

#include "runtime/tokenizer/ByteLevel.h"
#include "runtime/tokenizer/Utf8.h"

#include "support/Strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace llmc::tokenizer {

Decoder::~Decoder() = default;

namespace {

class ByteLevelDecoder : public Decoder {
public:
  void decodeChain(std::vector<std::string> &tokens, bool raw) const override {
    std::string bytes;
    for (const std::string &token : tokens) {
      // A token with a character outside the byte map (an added token
      // such as "<think>" may have one) stands for its own UTF-8.
      if (std::optional<std::string> decoded = decodeByteLevelChars(token))
        bytes += *decoded;
      else
        bytes += token;
    }
    tokens.assign(1, raw ? std::move(bytes) : repairUtf8(bytes));
  }
};

class ReplaceDecoder : public Decoder {
public:
  ReplaceDecoder(std::string pattern, std::string content)
      : pattern(std::move(pattern)), content(std::move(content)) {}
  void decodeChain(std::vector<std::string> &tokens, bool) const override {
    if (pattern.empty())
      return;
    for (std::string &token : tokens) {
      std::string out;
      std::string_view rest = token;
      for (size_t found; (found = rest.find(pattern)) != std::string_view::npos;
           rest.remove_prefix(found + pattern.size()))
        out.append(rest.data(), found).append(content);
      out.append(rest.data(), rest.size());
      token = std::move(out);
    }
  }

private:
  std::string pattern;
  std::string content;
};

/// Turns runs of <0xNN> tokens into the bytes they stand for.
class ByteFallbackDecoder : public Decoder {
public:
  void decodeChain(std::vector<std::string> &tokens, bool raw) const override {
    std::vector<std::string> out;
    std::string bytes;
    auto flush = [&] {
      if (bytes.empty())
        return;
      if (raw || isValidUtf8(bytes)) {
        out.push_back(std::move(bytes));
      } else {
        // HF replaces every byte of an ill-formed run, not each maximal
        // ill-formed subsequence.
        for (size_t i = 0; i < bytes.size(); ++i)
          out.push_back(std::string(kReplacementChar));
      }
      bytes.clear();
    };
    for (std::string &token : tokens) {
      std::string_view text = token;
      unsigned byte = 0;
      if (text.size() == 6 && support::consumePrefix(text, "<0x") &&
          support::consumeSuffix(text, ">") &&
          std::all_of(text.begin(), text.end(),
                      [](char c) {
                        return std::isxdigit(static_cast<unsigned char>(c));
                      }) &&
          std::from_chars(text.data(), text.data() + text.size(), byte, 16)
                  .ec == std::errc()) {
        bytes += static_cast<char>(byte);
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    tokens = std::move(out);
  }
};

class FuseDecoder : public Decoder {
public:
  void decodeChain(std::vector<std::string> &tokens, bool) const override {
    std::string fused;
    for (const std::string &token : tokens)
      fused += token;
    tokens.assign(1, std::move(fused));
  }
};

/// Strips up to `start` copies of `content` from the front of each token
/// and up to `stop` from its back.
class StripDecoder : public Decoder {
public:
  StripDecoder(std::string content, int64_t start, int64_t stop)
      : content(std::move(content)), start(start), stop(stop) {}
  void decodeChain(std::vector<std::string> &tokens, bool) const override {
    if (content.empty())
      return;
    for (std::string &token : tokens) {
      std::string_view text = token;
      int64_t stripped = 0;
      while (stripped < start && support::consumePrefix(text, content))
        ++stripped;
      stripped = 0;
      while (stripped < stop && support::consumeSuffix(text, content))
        ++stripped;
      token = std::string(text);
    }
  }

private:
  std::string content;
  int64_t start, stop;
};

class MetaspaceDecoder : public Decoder {
public:
  MetaspaceDecoder(std::string replacement, bool stripFirst)
      : replacement(std::move(replacement)), stripFirst(stripFirst) {}
  void decodeChain(std::vector<std::string> &tokens, bool) const override {
    if (replacement.empty())
      return;
    for (size_t index = 0; index < tokens.size(); ++index) {
      std::string &token = tokens[index];
      // HF drops every replacement character of the first token, not only
      // the one that the pre-tokenizer prepended.
      std::string_view space = index == 0 && stripFirst ? "" : " ";
      std::string out;
      std::string_view rest = token;
      for (size_t found;
           (found = rest.find(replacement)) != std::string_view::npos;
           rest.remove_prefix(found + replacement.size()))
        out.append(rest.data(), found).append(space);
      out.append(rest.data(), rest.size());
      token = std::move(out);
    }
  }

private:
  std::string replacement;
  bool stripFirst;
};

class SequenceDecoder : public Decoder {
public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps)
      : steps(std::move(steps)) {}
  void decodeChain(std::vector<std::string> &tokens, bool raw) const override {
    for (const std::unique_ptr<Decoder> &step : steps)
      step->decodeChain(tokens, raw);
  }

private:
  std::vector<std::unique_ptr<Decoder>> steps;
};

} // namespace

std::unique_ptr<Decoder> parseDecoder(const Json *value, JsonReader &reader,
                                      std::string_view path) {
  if (!value || value->is_null())
    return nullptr;
  const Json *object = reader.asObject(*value, path);
  if (!object)
    return nullptr;
  std::string type = reader.getString(*object, "type", path);
  if (reader.failed())
    return nullptr;

  if (type == "ByteLevel")
    return std::make_unique<ByteLevelDecoder>();
  if (type == "ByteFallback")
    return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse")
    return std::make_unique<FuseDecoder>();
  if (type == "Strip") {
    std::string content = reader.getString(*object, "content", path);
    int64_t start = reader.getInt(*object, "start", path);
    int64_t stop = reader.getInt(*object, "stop", path);
    return std::make_unique<StripDecoder>(std::move(content), start, stop);
  }
  if (type == "Replace") {
    auto pattern = reader.getPattern(*object, "pattern", path);
    std::string content = reader.getString(*object, "content", path);
    if (!pattern)
      return nullptr;
    if (pattern->second) {
      reader.fail(support::strCat(path, ".pattern"),
                  "is a regex; only String patterns are supported");
      return nullptr;
    }
    return std::make_unique<ReplaceDecoder>(std::move(pattern->first),
                                            std::move(content));
  }
  if (type == "Metaspace") {
    std::string replacement = reader.getString(*object, "replacement", path);
    // Files written before `prepend_scheme` existed say `add_prefix_space`.
    bool addPrefixSpace =
        reader.getBool(*object, "add_prefix_space", path, true);
    std::string scheme = reader.getString(*object, "prepend_scheme", path,
                                          addPrefixSpace ? "always" : "never");
    return std::make_unique<MetaspaceDecoder>(std::move(replacement),
                                              scheme != "never");
  }
  if (type == "Sequence") {
    auto steps =
        reader.getSteps<Decoder>(*object, "decoders", path, parseDecoder);
    if (!steps)
      return nullptr;
    return std::make_unique<SequenceDecoder>(std::move(*steps));
  }

  reader.fail(support::strCat(path, ".type"),
              support::strCat("'", type,
                              "' is not supported (supported: ByteLevel, "
                              "ByteFallback, Fuse, Strip, Replace, Metaspace, "
                              "Sequence)"));
  return nullptr;
}

} // namespace llmc::tokenizer
