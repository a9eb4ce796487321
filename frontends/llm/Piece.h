//===- Piece.h - one separately compiled part of a model -------*- C++ -*-===//
//
// A model compiles as many small modules ("pieces"): the embedding, each
// layer in three statically shaped phases, the LM head and the heads that
// pick the next token. A piece states its phase, its layer, and the role of
// every input and output, so the runtime can bind buffers (the KV cache in
// particular) without looking inside.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_PIECE_H
#define LLMC_FRONTENDS_LLM_PIECE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llmc::llm {

/// Which variant of a layer a piece is.
enum class Phase {
  /// Not a layer (embedding, heads).
  None,
  /// A whole prompt chunk of L tokens with no history.
  Prefill,
  /// A prompt chunk of L tokens after H = S - L slots of cached history.
  PrefillKV,
  /// One token against a cache of S slots.
  Decode,
};

/// The meaning of a piece input or output, recorded as the `role` of its
/// `top.Input` op and as the `llmc.role` attribute of function results.
enum class IORole {
  InputIds,
  Hidden,
  PositionIds,
  Mask,
  HistoryK,
  HistoryV,
  NewK,
  NewV,
  Logits,
  Token,
  /// sample_head: the last W generated or prompt ids for the repetition
  /// penalty; negative ids are empty slots.
  RecentIds,
  /// sample_head: the [1, 1] repetition penalty (1 disables it).
  Penalty,
  /// sample_head: the [1, 1] temperature (positive).
  Temperature,
  /// sample_head: the [1, 1] probability mass the candidates keep.
  TopP,
  /// sample_head: the i32 [1, 1] number of candidates top-k keeps (the
  /// best always stays; K or more keeps all K).
  TopK,
  /// sample_head: the candidates' probabilities, best first.
  Probs,
  /// sample_head: the candidates' token ids.
  TokenIds,
  /// vision: one image tile, f32 [1, 3, side, side], normalized.
  PixelValues,
  /// vision: the tile's embeddings, which replace the prompt's image
  /// placeholders.
  VisionEmbeds,
  /// MiniCPM-V's vision: the additive mask [1, L, L] that hides the padding
  /// patches from the tower's attention.
  PatchMask,
  /// MiniCPM-V's vision: the resampler's key position embeddings [1, L, E]
  /// (2-D sin-cos of each patch's row and column).
  PositionEmbeds,
  /// MiniCPM-V's vision: the additive mask [1, Q, L] that hides the padding
  /// patches from the resampler's queries.
  QueryMask,
};

llvm::StringRef stringifyPhase(Phase phase);
llvm::StringRef stringifyIORole(IORole role);
std::optional<IORole> symbolizeIORole(llvm::StringRef name);

struct PieceIO {
  IORole role;
  llvm::SmallVector<int64_t> shape;
  /// True for i32 (ids, positions, tokens), false for f32.
  bool isInteger = false;
};

struct Piece {
  /// `embed.prefill`, `block.3.decode`, `lm_head`, `sample_head`, ...
  std::string name;
  Phase phase = Phase::None;
  /// The layer index of a block piece.
  std::optional<int64_t> layer;
  std::vector<PieceIO> inputs;
  std::vector<PieceIO> outputs;
  /// Names of the weights the piece reads, in first-use order.
  std::vector<std::string> weights;
  /// A module holding one function named after the piece.
  mlir::OwningOpRef<mlir::ModuleOp> module;

  /// The piece's function.
  mlir::Operation *getFunction() const;
};

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_PIECE_H
