//===- ByteLevel.h - GPT-2's reversible bytes-to-characters map -*- C++ -*-===//
//
// Byte-level BPE vocabularies (GPT-2, Llama 3, Qwen) spell every byte as a
// printable character so that tokens are valid strings: bytes that are
// printable Latin-1 stand for themselves, the others for U+0100 onwards.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_BYTELEVEL_H
#define LLMC_RUNTIME_TOKENIZER_BYTELEVEL_H

#include <optional>
#include <string>
#include <string_view>

namespace llmc::tokenizer {

/// Appends the character that stands for each byte of `bytes`.
void appendByteLevelChars(std::string_view bytes, std::string &out);

/// The bytes that the characters of `token` stand for; nullopt when one of
/// them stands for no byte.
std::optional<std::string> decodeByteLevelChars(std::string_view token);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_BYTELEVEL_H
