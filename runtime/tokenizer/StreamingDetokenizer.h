//===- StreamingDetokenizer.h - text of tokens as they come -----*- C++ -*-===//
//
// A generator prints each token's text as soon as it is sampled, but a token
// may end inside a UTF-8 character (byte-level BPE splits characters freely;
// byte fallback spells them as <0xNN> tokens), and some decoders depend on
// context (Llama 2 strips the space that starts the text). The detokenizer
// decodes a short window of recent tokens to raw bytes, emits what the new
// token added, and holds back a character that is not complete yet.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_STREAMINGDETOKENIZER_H
#define LLMC_RUNTIME_TOKENIZER_STREAMINGDETOKENIZER_H

#include "runtime/tokenizer/Tokenizer.h"

namespace llmc::tokenizer {

class StreamingDetokenizer {
public:
  /// `tokenizer` must outlive the detokenizer. With `skipSpecial`, special
  /// tokens produce no text, as in Tokenizer::decode.
  explicit StreamingDetokenizer(const Tokenizer &tokenizer,
                                bool skipSpecial = false);

  /// The text that `id` completes: always well-formed UTF-8, possibly empty
  /// while a character is incomplete. For well-formed text, the outputs of
  /// push over a sequence of ids, then flush, concatenate to decode(ids).
  std::string push(int32_t id);

  /// Ends the text: returns what was held back, with U+FFFD for a character
  /// the last token left incomplete (as decode would show it), and starts
  /// over for a new text.
  std::string flush();

private:
  const Tokenizer &tokenizer;
  bool skipSpecial;
  /// The tokens whose decoding the next token extends: the start of the
  /// text, or recent tokens kept as context for the decoder.
  std::vector<int32_t> window;
  /// How many bytes of the window's decoding have been returned.
  size_t emitted = 0;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_STREAMINGDETOKENIZER_H
