//===- ChunkLengths.h - the prompt chunk lengths a binary holds -*- C++ -*-===//
//
// A prompt runs in chunks of at most L tokens. Besides the pieces of length
// L, a binary may hold the embedding, prefill and prefill_kv pieces at
// shorter lengths ("prefill lengths", docs/pieces.md), so that a short
// chunk (a chat turn) costs its own length rather than L. They are named
// after the L-length piece with the length appended: `block.3.prefill_kv.16`.
// The compiler names the pieces and the runtime finds them by these rules:
// a contract below both.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PIECES_CHUNKLENGTHS_H
#define LLMC_PIECES_CHUNKLENGTHS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::pieces {

/// The shortest prefill length convert compiles by default.
inline constexpr int64_t kShortestDefaultPrefillLength = 16;

/// The default prefill lengths beside L: 16, 64, 256, ... below L. Each
/// is four times the last, so a chunk runs at most four times its length
/// and the binary holds a few more streams per layer (their weights are
/// shared).
std::vector<int64_t> getDefaultPrefillLengths(int64_t maxInputLength);

/// The chunk lengths of the prefill phases, ascending: the prefill lengths,
/// then L.
std::vector<int64_t> getChunkLengths(const std::vector<int64_t> &prefillLengths,
                                     int64_t maxInputLength);

/// An error message when `lengths` is not a strictly ascending list of
/// lengths in [1, L), else nullopt.
std::optional<std::string>
checkPrefillLengths(const std::vector<int64_t> &lengths,
                    int64_t maxInputLength);

/// The name of the piece that runs a chunk of `length` tokens: `base`
/// (`embed.prefill`, `block.3.prefill_kv`) when `length` is L, else
/// `base.<length>`.
std::string getChunkPieceName(std::string_view base, int64_t length,
                              int64_t maxInputLength);

/// The length a shorter chunk's piece name ends in, or nullopt for any
/// other name.
std::optional<int64_t> getChunkLengthOfName(std::string_view name);

} // namespace llmc::pieces

#endif // LLMC_PIECES_CHUNKLENGTHS_H
