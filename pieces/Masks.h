//===- Masks.h - attention masks the pieces expect -------------*- C++ -*-===//
//
// Block pieces take an additive attention mask: 0 where a query may look,
// kMaskedScore where it may not. These helpers are the one definition of the
// masks of each phase, shared by everything that builds or runs pieces: a
// contract below both the compiler and the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PIECES_MASKS_H
#define LLMC_PIECES_MASKS_H

#include <cstdint>
#include <vector>

namespace llmc::pieces {

/// Large enough that exp() of it underflows to zero, small enough to stay
/// finite in F16 so masked rows never produce inf - inf.
inline constexpr float kMaskedScore = -10000.0f;

/// Every mask takes `window`: with a sliding window W > 0 a query at
/// position p sees no key before p - W + 1 (W positions, its own included,
/// as transformers and llama.cpp mask); 0 leaves the whole context. History
/// slot h holds position h.

/// [1, L, L]: query i sees keys j <= i (padding rows stay causal).
std::vector<float> buildPrefillMask(int64_t length, int64_t window = 0);

/// [1, L, H + L]: query i sees the first `history` of the H history slots
/// and new keys j <= i.
std::vector<float> buildPrefillKVMask(int64_t length, int64_t historySlots,
                                      int64_t history, int64_t window = 0);

/// [1, 1, S + 1]: the token sees the first `history` of the S cache slots
/// and itself (the last key).
std::vector<float> buildDecodeMask(int64_t cacheSlots, int64_t history,
                                   int64_t window = 0);

} // namespace llmc::pieces

#endif // LLMC_PIECES_MASKS_H
