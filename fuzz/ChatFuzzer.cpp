//===- ChatFuzzer.cpp - chat messages from a stranger ---------------------===//
//
// Messages rendered by a chat template and encoded as the runtime encodes a
// prompt, with the demo model's tokenizer (ChatML markers). The input is
// a template letter (c: ChatML, l: Llama 3, 2: Llama 2, r: raw) and then
// role and content strings, each ended by a zero byte.
//
// What must hold whatever people type: the contents lie in the text in
// order and apart; a continuation extends the rendered history exactly; and
// the encoded prompt holds exactly the special tokens of the template's own
// markup, none from the contents.
//
//===----------------------------------------------------------------------===//

#include "runtime/chat/ChatTemplate.h"
#include "runtime/tokenizer/Tokenizer.h"

#include "support/Strings.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace llmc;

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::abort();
}

const tokenizer::Tokenizer &getTokenizer() {
  static std::unique_ptr<tokenizer::Tokenizer> loaded = [] {
    const char *path = std::getenv("LLMC_FUZZ_TOKENIZER");
    absl::StatusOr<std::unique_ptr<tokenizer::Tokenizer>> created =
        tokenizer::Tokenizer::fromFile(path ? path : "");
    if (!created.ok())
      fail("chat fuzzer: LLMC_FUZZ_TOKENIZER: " +
           std::string(created.status().message()));
    return std::move(*created);
  }();
  return *loaded;
}

size_t countSpecial(const tokenizer::Tokenizer &tokenizer,
                    const std::vector<int32_t> &ids) {
  return std::count_if(ids.begin(), ids.end(),
                       [&](int32_t id) { return tokenizer.isSpecial(id); });
}

void checkPrompt(const chat::ChatPrompt &prompt) {
  size_t end = 0;
  for (const tokenizer::TextRange &content : prompt.contents) {
    if (content.begin < end || content.end < content.begin ||
        content.end > prompt.text.size())
      fail("contents out of order or outside the text");
    end = content.end;
  }
  const tokenizer::Tokenizer &tokenizer = getTokenizer();
  size_t markupSpecial = 0;
  size_t begin = 0;
  auto countMarkup = [&](size_t until) {
    markupSpecial += countSpecial(
        tokenizer,
        tokenizer.encode(std::string_view(prompt.text)
                             .substr(begin, std::max(until, begin) - begin)));
  };
  for (const tokenizer::TextRange &content : prompt.contents) {
    countMarkup(content.begin);
    begin = content.end;
  }
  countMarkup(prompt.text.size());
  size_t promptSpecial = countSpecial(
      tokenizer, tokenizer.encode(prompt.text, false, prompt.contents));
  if (promptSpecial != markupSpecial)
    fail(support::strCat("the prompt holds ", promptSpecial,
                         " special tokens, its markup ", markupSpecial));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  if (input.empty())
    return 0;
  chat::ChatFormat format;
  switch (input.front()) {
  case 'c':
    format = chat::ChatFormat::ChatML;
    break;
  case 'l':
    format = chat::ChatFormat::Llama3;
    break;
  case '2':
    format = chat::ChatFormat::Llama2;
    break;
  default:
    format = chat::ChatFormat::Raw;
    break;
  }
  std::vector<std::string_view> fields = support::split(input.substr(1), '\0');
  std::vector<chat::ChatMessage> messages;
  for (size_t i = 1; i + 1 < fields.size(); i += 2) {
    absl::StatusOr<chat::Role> role = chat::parseRole(fields[i]);
    if (!role.ok())
      return 0;
    messages.push_back({*role, std::string(fields[i + 1])});
  }
  chat::ChatTemplate chatTemplate(format, "You are a helpful assistant.");
  absl::StatusOr<chat::ChatPrompt> whole =
      chatTemplate.render(messages, /*addGenerationPrompt=*/true);
  if (!whole.ok())
    return 0;
  checkPrompt(*whole);
  if (messages.size() < 2)
    return 0;
  absl::Span<const chat::ChatMessage> all(messages);
  absl::StatusOr<chat::ChatPrompt> history = chatTemplate.render(
      all.first(all.size() - 1), /*addGenerationPrompt=*/false);
  absl::StatusOr<chat::ChatPrompt> continuation =
      chatTemplate.renderContinuation(all.first(all.size() - 1), all.last(1),
                                      /*addGenerationPrompt=*/true);
  if (!history.ok() || !continuation.ok())
    return 0;
  if (history->text + continuation->text != whole->text)
    fail("the continuation does not extend the history to the whole "
         "conversation");
  return 0;
}
