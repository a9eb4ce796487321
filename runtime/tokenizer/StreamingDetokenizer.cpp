//===- StreamingDetokenizer.cpp - text of generated tokens as they come ---===//

#include "runtime/tokenizer/StreamingDetokenizer.h"

#include "runtime/tokenizer/Utf8.h"

#include "support/Strings.h"

#include <algorithm>

namespace llmc::tokenizer {

StreamingDetokenizer::StreamingDetokenizer(const Tokenizer &tokenizer,
                                           bool skipSpecial)
    : tokenizer(tokenizer), skipSpecial(skipSpecial) {}

std::string StreamingDetokenizer::push(int32_t id) {
  if (skipSpecial && tokenizer.isSpecial(id))
    return {};
  window.push_back(id);
  std::string bytes = tokenizer.decodeBytes(window);
  // The supported decoders only append when a token is added (all but a
  // Strip of trailing characters), so the first `emitted` bytes are what was
  // returned before.
  std::string_view fresh =
      std::string_view(bytes).substr(std::min(emitted, bytes.size()));
  size_t complete = completeUtf8Length(fresh);
  std::string text = repairUtf8(fresh.substr(0, complete));
  emitted += complete;
  if (emitted < bytes.size())
    return text;

  // Nothing is pending: restart the window at the shortest run of latest
  // tokens that decodes, on its own, to a non-empty tail of the same bytes.
  // Keeping that context makes decoders that treat the start of the text
  // specially (stripping its first space) still see a start that is not the
  // new token's.
  for (size_t keep = 1; keep < window.size(); ++keep) {
    absl::Span<const int32_t> tail = absl::MakeConstSpan(window).last(keep);
    std::string tailBytes = tokenizer.decodeBytes(tail);
    if (!tailBytes.empty() && support::endsWith(bytes, tailBytes)) {
      window.assign(tail.begin(), tail.end());
      emitted = tailBytes.size();
      break;
    }
  }
  return text;
}

std::string StreamingDetokenizer::flush() {
  std::string bytes = tokenizer.decodeBytes(window);
  std::string text = repairUtf8(
      std::string_view(bytes).substr(std::min(emitted, bytes.size())));
  window.clear();
  emitted = 0;
  return text;
}

} // namespace llmc::tokenizer
