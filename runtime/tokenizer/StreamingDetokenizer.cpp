//===- StreamingDetokenizer.cpp - text of generated tokens as they come ---===//

#include "runtime/tokenizer/StreamingDetokenizer.h"

#include "runtime/tokenizer/Utf8.h"

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
  llvm::StringRef fresh =
      llvm::StringRef(bytes).drop_front(std::min(emitted, bytes.size()));
  size_t complete = completeUtf8Length(fresh);
  std::string text = repairUtf8(fresh.take_front(complete));
  emitted += complete;
  if (emitted < bytes.size())
    return text;

  // Nothing is pending: restart the window at the shortest run of latest
  // tokens that decodes, on its own, to a non-empty tail of the same bytes.
  // Keeping that context makes decoders that treat the start of the text
  // specially (stripping its first space) still see a start that is not the
  // new token's.
  for (size_t keep = 1; keep < window.size(); ++keep) {
    llvm::ArrayRef<int32_t> tail = llvm::ArrayRef(window).take_back(keep);
    std::string tailBytes = tokenizer.decodeBytes(tail);
    if (!tailBytes.empty() && llvm::StringRef(bytes).ends_with(tailBytes)) {
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
      llvm::StringRef(bytes).drop_front(std::min(emitted, bytes.size())));
  window.clear();
  emitted = 0;
  return text;
}

} // namespace llmc::tokenizer
