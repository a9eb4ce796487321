//===- Decoder.h - tokenizer.json decoders ----------------------*- C++ -*-===//
//
// The `decoder` section turns token strings back into text: the byte-level
// spelling back into bytes (GPT-2 style), or SentencePiece's "▁" into spaces
// with <0xNN> tokens into bytes (Llama 2). Steps rewrite the list of token
// strings in turn, as HF's `decode_chain` does.
//
// A chain can run in raw mode, which keeps bytes that are not well-formed
// UTF-8 instead of replacing them: a stream decoder needs to see a character
// that is cut off between tokens to hold it back.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_DECODER_H
#define LLMC_RUNTIME_TOKENIZER_DECODER_H

#include "runtime/tokenizer/JsonReader.h"

#include <memory>
#include <string>
#include <vector>

namespace llmc::tokenizer {

class Decoder {
public:
  virtual ~Decoder();
  /// Rewrites `tokens` in place. With `raw`, byte-producing steps keep
  /// ill-formed UTF-8; otherwise they replace it with U+FFFD as HF does.
  virtual void decodeChain(std::vector<std::string> &tokens,
                           bool raw) const = 0;
};

/// The decoder that `value` (the JSON at `path`) describes; null for a JSON
/// null or a missing section, and on error (recorded in `reader`).
std::unique_ptr<Decoder> parseDecoder(const Json *value, JsonReader &reader,
                                      std::string_view path);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_DECODER_H
