//===- Session.cpp - a conversation scheduled onto a model's pieces -------===//

#include "runtime/session/Session.h"

#include "pieces/ChunkLengths.h"
#include "pieces/Masks.h"

#include "support/Strings.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <map>
#include <optional>

namespace llmc::session {

using top::Tensor;

using support::strCat;

/// Where a cacheCapacityError carries its sizes.
static constexpr char kCacheCapacityPayload[] = "llmc.session.CacheCapacity";

absl::Status cacheCapacityError(int64_t needed, int64_t capacity) {
  absl::Status status = absl::ResourceExhaustedError(
      strCat("the conversation needs ", needed,
             " tokens but the KV cache holds ", capacity));
  status.SetPayload(kCacheCapacityPayload,
                    absl::Cord(strCat(needed, " ", capacity)));
  return status;
}

std::optional<CacheCapacity> getCacheCapacity(const absl::Status &status) {
  auto payload = status.GetPayload(kCacheCapacityPayload);
  if (!payload)
    return std::nullopt;
  std::string sizes(*payload);
  auto [needed, capacity] = support::splitOnce(sizes, ' ');
  return CacheCapacity{*support::parseInteger<int64_t>(needed),
                       *support::parseInteger<int64_t>(capacity)};
}

static absl::Status sessionError(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

/// A history owner no session has used.
static uint64_t takeHistoryOwner() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

Session::Session(PieceRunner &runner, const ModelDims &dims)
    : runner(runner), dims(dims), cache(dims),
      historyOwner(takeHistoryOwner()) {
  assert(dims.validate().ok() && "invalid model dims");
}

void Session::reset() {
  cache.clear();
  tokens.clear();
  historyOwner = takeHistoryOwner();
}

void Session::truncate(int64_t length) {
  assert(length >= 0 && length <= getHistoryLength() && "truncating beyond "
                                                        "the history");
  tokens.resize(static_cast<size_t>(length));
  // A runner keeps history rows per piece: a piece that last ran before the
  // truncation holds rows of the forgotten tokens past `length`. A new
  // owner makes each piece take the history again.
  historyOwner = takeHistoryOwner();
}

int64_t Session::getHistorySlots(Phase phase, int64_t length) const {
  switch (phase) {
  case Phase::Prefill:
    return 0;
  case Phase::PrefillKV:
    return dims.seqLength - length;
  case Phase::Decode:
    return dims.seqLength;
  }
  return 0;
}

std::optional<int64_t> Session::chooseChunkLength(int64_t pending) const {
  int64_t history = getHistoryLength();
  int64_t wanted = std::min(pending, dims.maxInputLength);
  std::optional<int64_t> longestWithRoom;
  for (int64_t length :
       pieces::getChunkLengths(dims.prefillLengths, dims.maxInputLength)) {
    if (history > getHistorySlots(Phase::PrefillKV, length))
      continue;
    if (length >= wanted)
      return length;
    longestWithRoom = length;
  }
  return longestWithRoom;
}

std::string_view Session::getPhaseName(Phase phase) {
  switch (phase) {
  case Phase::Prefill:
    return "prefill";
  case Phase::PrefillKV:
    return "prefill_kv";
  case Phase::Decode:
    return "decode";
  }
  return "";
}

/// The history rows a block piece is given from, and for whom.
struct HistoryFrom {
  int64_t firstRow;
  uint64_t owner;
};

/// Runs `piece` (with its history from `history` when given, see
/// PieceRunner::runWithHistoryFrom) and checks that it returned at least
/// `count` outputs.
static absl::StatusOr<std::vector<Tensor>>
runPiece(PieceRunner &runner, std::string_view piece,
         absl::Span<const Tensor> inputs, size_t count,
         std::optional<HistoryFrom> history = std::nullopt) {
  absl::StatusOr<std::vector<Tensor>> outputs =
      history ? runner.runWithHistoryFrom(piece, inputs, history->firstRow,
                                          history->owner)
              : runner.run(piece, inputs);
  if (outputs.ok() && outputs->size() < count)
    return absl::InternalError(strCat("piece ", piece, " returned ",
                                      outputs->size(), " outputs, not ",
                                      count));
  return outputs;
}

absl::Status Session::checkPlaced(const PlacedEmbeddings &placed,
                                  int64_t count) const {
  int64_t rows = static_cast<int64_t>(placed.positions.size());
  if (static_cast<int64_t>(placed.rows.size()) != rows * dims.hiddenSize)
    return sessionError(strCat("the placed embeddings hold ",
                               placed.rows.size(), " values, not ", rows,
                               " rows of ", dims.hiddenSize));
  for (int64_t i = 0; i < rows; ++i) {
    int64_t position = placed.positions[i];
    if (position < 0 || position >= count ||
        (i > 0 && position <= placed.positions[i - 1]))
      return sessionError(strCat("placed embedding position ", position,
                                 " is out of order or outside the ", count,
                                 " tokens fed"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>>
Session::runChunk(absl::Span<const int32_t> chunk, Phase phase, int64_t length,
                  int64_t offset, const PlacedEmbeddings *placed) {
  int64_t history = getHistoryLength();
  int64_t historySlots = getHistorySlots(phase, length);
  int64_t count = static_cast<int64_t>(chunk.size());

  std::vector<int32_t> ids(length, 0), positions(length);
  std::copy(chunk.begin(), chunk.end(), ids.begin());
  for (int64_t i = 0; i < length; ++i)
    positions[i] = static_cast<int32_t>(history + i);
  // Layers with the same sliding window share one mask.
  std::map<int64_t, Tensor> masks;
  for (int64_t layer = 0; layer < dims.numLayers; ++layer) {
    int64_t window = dims.getLayerWindow(layer);
    if (masks.count(window))
      continue;
    masks[window] = Tensor::fromF32(
        {1, length, historySlots + length},
        phase == Phase::Prefill ? pieces::buildPrefillMask(length, window)
        : phase == Phase::PrefillKV
            ? pieces::buildPrefillKVMask(length, historySlots, history, window)
            : pieces::buildDecodeMask(historySlots, history, window));
  }

  auto pieceName = [&](std::string_view base) {
    return phase == Phase::Decode
               ? std::string(base)
               : pieces::getChunkPieceName(base, length, dims.maxInputLength);
  };
  absl::StatusOr<std::vector<Tensor>> embedded = runPiece(
      runner,
      pieceName(phase == Phase::Decode ? "embed.decode" : "embed.prefill"),
      {Tensor::fromI32({1, length}, ids)}, 1);
  if (!embedded.ok())
    return embedded.status();
  if (placed) {
    Tensor &rows = (*embedded)[0];
    if (!rows.isF32() || rows.getNumElements() < count * dims.hiddenSize)
      return absl::InternalError(strCat("the embedding returned ",
                                        rows.describe(), ", fewer than ", count,
                                        " rows of ", dims.hiddenSize));
    auto first = std::lower_bound(placed->positions.begin(),
                                  placed->positions.end(), offset);
    for (auto it = first; it != placed->positions.end() &&
                          *it < offset + count;
         ++it) {
      int64_t row = it - placed->positions.begin();
      auto from = placed->rows.begin() + row * dims.hiddenSize;
      std::copy(from, from + dims.hiddenSize,
                rows.getF32().begin() + (*it - offset) * dims.hiddenSize);
    }
  }
  // A layer's inputs: the hidden state, the positions and the mask, which
  // the layers of one window share (a prefill's mask is a megabyte: copying
  // it a layer cost a fresh allocation and its page faults), then any
  // history.
  enum { kHidden, kPositions, kMask, kSharedInputs };
  std::vector<Tensor> inputs;
  inputs.reserve(kSharedInputs + 2);
  inputs.push_back(std::move((*embedded)[0]));
  inputs.push_back(Tensor::fromI32({1, length}, positions));
  inputs.emplace_back();

  for (int64_t layer = 0; layer < dims.numLayers; ++layer) {
    inputs.resize(kSharedInputs);
    Tensor &layerMask = masks[dims.getLayerWindow(layer)];
    std::swap(inputs[kMask], layerMask);
    std::string name =
        pieceName(strCat("block.", layer, ".", getPhaseName(phase)));
    std::optional<HistoryFrom> historyFrom;
    if (historySlots > 0 && runner.keepsHistory()) {
      // The runner gets the rows of the history it lacks. The slots past
      // the history are masked (docs/pieces.md), so what it holds there
      // weighs nothing.
      int64_t kept = std::min(runner.getKeptHistoryRows(name, historyOwner),
                              history);
      historyFrom = HistoryFrom{kept, historyOwner};
      inputs.push_back(cache.getKeys(layer, kept, history));
      inputs.push_back(cache.getValues(layer, kept, history));
    } else if (historySlots > 0) {
      inputs.push_back(cache.getKeys(layer, 0, historySlots));
      inputs.push_back(cache.getValues(layer, 0, historySlots));
    }
    absl::StatusOr<std::vector<Tensor>> outputs =
        runPiece(runner, name, inputs, 3, historyFrom);
    std::swap(inputs[kMask], layerMask);
    if (!outputs.ok())
      return outputs.status();
    inputs[kHidden] = std::move((*outputs)[0]);
    absl::Status stored =
        cache.store(layer, history, count, (*outputs)[1], (*outputs)[2]);
    if (!stored.ok())
      return absl::Status(stored.code(), strCat("piece ", name, ": ",
                                                std::string(stored.message())));
  }
  const Tensor &hidden = inputs[kHidden];
  if (!hidden.isF32() || hidden.getNumElements() < count * dims.hiddenSize)
    return absl::InternalError(strCat("the hidden state ", hidden.describe(),
                                      " holds fewer than ", count,
                                      " tokens of ", dims.hiddenSize));
  tokens.insert(tokens.end(), chunk.begin(), chunk.end());
  absl::Span<const float> last =
      hidden.getF32().subspan((count - 1) * dims.hiddenSize, dims.hiddenSize);
  return std::vector<float>(last.begin(), last.end());
}

absl::StatusOr<std::vector<float>>
Session::feed(absl::Span<const int32_t> newTokens,
              const PlacedEmbeddings *placed) {
  if (newTokens.empty())
    return sessionError("nothing to feed: the prompt is empty");
  if (placed)
    LLMC_RETURN_IF_ERROR(
        checkPlaced(*placed, static_cast<int64_t>(newTokens.size())));
  for (int32_t token : newTokens)
    if (token < 0 || token >= dims.vocabSize)
      return sessionError(strCat("token id ", token,
                                 " is outside the vocabulary [0, ",
                                 dims.vocabSize, ")"));
  int64_t needed = getHistoryLength() + static_cast<int64_t>(newTokens.size());
  if (needed > dims.seqLength)
    return cacheCapacityError(needed, dims.seqLength);
  std::vector<float> last;
  int64_t offset = 0;
  while (!newTokens.empty()) {
    int64_t pending = static_cast<int64_t>(newTokens.size());
    bool fresh = getHistoryLength() == 0;
    // A single token after history runs through decode, and so does a
    // prompt arriving after more history than any prefill_kv holds.
    std::optional<int64_t> length;
    if (fresh || pending > 1)
      length = chooseChunkLength(pending);
    Phase phase = !length ? Phase::Decode
                  : fresh ? Phase::Prefill
                          : Phase::PrefillKV;
    absl::Span<const int32_t> part = newTokens.first(
        std::min(newTokens.size(), length ? static_cast<size_t>(*length) : 1));
    LLMC_ASSIGN_OR_RETURN(
        last, runChunk(part, phase, length.value_or(1), offset, placed));
    newTokens.remove_prefix(part.size());
    offset += static_cast<int64_t>(part.size());
  }
  LLMC_ASSIGN_OR_RETURN(std::vector<Tensor> logits,
                        runPiece(runner, "lm_head",
                                 {Tensor::fromF32({1, dims.hiddenSize}, last)},
                                 1));
  const Tensor &values = logits[0];
  if (!values.isF32() || values.getNumElements() != dims.vocabSize)
    return absl::InternalError(strCat("lm_head returned ", values.describe(),
                                      ", not ", dims.vocabSize, " logits"));
  return std::vector<float>(values.getF32().begin(), values.getF32().end());
}

absl::StatusOr<int32_t> Session::pickGreedy(absl::Span<const float> logits) {
  if (static_cast<int64_t>(logits.size()) != dims.vocabSize)
    return sessionError(strCat("greedy_head takes ", dims.vocabSize,
                               " logits, not ", logits.size()));
  LLMC_ASSIGN_OR_RETURN(
      std::vector<Tensor> token,
      runPiece(
          runner, "greedy_head",
          {Tensor::fromF32({1, dims.vocabSize},
                           std::vector<float>(logits.begin(), logits.end()))},
          1));
  const Tensor &id = token[0];
  if (!id.isI32() || id.getNumElements() != 1)
    return absl::InternalError(
        strCat("greedy_head returned ", id.describe(), ", not one token id"));
  return id.getI32()[0];
}

} // namespace llmc::session
