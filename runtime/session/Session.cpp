//===- Session.cpp - a conversation scheduled onto a model's pieces -------===//

#include "runtime/session/Session.h"

#include "pieces/ChunkLengths.h"
#include "pieces/Masks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cassert>
#include <map>
#include <optional>

namespace llmc::session {

using top::Tensor;

char CacheCapacityError::ID = 0;

void CacheCapacityError::log(llvm::raw_ostream &os) const {
  os << "the conversation needs " << needed << " tokens but the KV cache holds "
     << capacity;
}

std::error_code CacheCapacityError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

static llvm::Error sessionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A history owner no session has used.
static uint64_t takeHistoryOwner() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

Session::Session(PieceRunner &runner, const ModelDims &dims)
    : runner(runner), dims(dims), cache(dims),
      historyOwner(takeHistoryOwner()) {
  assert(!llvm::errorToBool(dims.validate()) && "invalid model dims");
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

llvm::StringRef Session::getPhaseName(Phase phase) {
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
static llvm::Expected<std::vector<Tensor>>
runPiece(PieceRunner &runner, llvm::StringRef piece,
         llvm::ArrayRef<Tensor> inputs, size_t count,
         std::optional<HistoryFrom> history = std::nullopt) {
  llvm::Expected<std::vector<Tensor>> outputs =
      history ? runner.runWithHistoryFrom(piece, inputs, history->firstRow,
                                          history->owner)
              : runner.run(piece, inputs);
  if (outputs && outputs->size() < count)
    return sessionError("piece " + piece + " returned " +
                        llvm::Twine(outputs->size()) + " outputs, not " +
                        llvm::Twine(count));
  return outputs;
}

llvm::Error Session::checkPlaced(const PlacedEmbeddings &placed,
                                 int64_t count) const {
  int64_t rows = static_cast<int64_t>(placed.positions.size());
  if (static_cast<int64_t>(placed.rows.size()) != rows * dims.hiddenSize)
    return sessionError("the placed embeddings hold " +
                        llvm::Twine(placed.rows.size()) + " values, not " +
                        llvm::Twine(rows) + " rows of " +
                        llvm::Twine(dims.hiddenSize));
  for (int64_t i = 0; i < rows; ++i) {
    int64_t position = placed.positions[i];
    if (position < 0 || position >= count ||
        (i > 0 && position <= placed.positions[i - 1]))
      return sessionError("placed embedding position " +
                          llvm::Twine(position) +
                          " is out of order or outside the " +
                          llvm::Twine(count) + " tokens fed");
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<float>>
Session::runChunk(llvm::ArrayRef<int32_t> chunk, Phase phase, int64_t length,
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

  auto pieceName = [&](llvm::StringRef base) {
    return phase == Phase::Decode
               ? base.str()
               : pieces::getChunkPieceName(base, length, dims.maxInputLength);
  };
  llvm::Expected<std::vector<Tensor>> embedded = runPiece(
      runner,
      pieceName(phase == Phase::Decode ? "embed.decode" : "embed.prefill"),
      {Tensor::fromI32({1, length}, ids)}, 1);
  if (!embedded)
    return embedded.takeError();
  if (placed) {
    Tensor &rows = (*embedded)[0];
    if (!rows.isF32() || rows.getNumElements() < count * dims.hiddenSize)
      return sessionError("the embedding returned " + rows.describe() +
                          ", fewer than " + llvm::Twine(count) +
                          " rows of " + llvm::Twine(dims.hiddenSize));
    auto first = llvm::lower_bound(placed->positions, offset);
    for (auto it = first; it != placed->positions.end() &&
                          *it < offset + count;
         ++it) {
      int64_t row = it - placed->positions.begin();
      llvm::copy(llvm::ArrayRef<float>(placed->rows)
                     .slice(row * dims.hiddenSize, dims.hiddenSize),
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
    std::string name = pieceName("block." + std::to_string(layer) + "." +
                                 getPhaseName(phase).str());
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
    llvm::Expected<std::vector<Tensor>> outputs =
        runPiece(runner, name, inputs, 3, historyFrom);
    std::swap(inputs[kMask], layerMask);
    if (!outputs)
      return outputs.takeError();
    inputs[kHidden] = std::move((*outputs)[0]);
    if (llvm::Error error =
            cache.store(layer, history, count, (*outputs)[1], (*outputs)[2]))
      return sessionError("piece " + name + ": " +
                          llvm::toString(std::move(error)));
  }
  const Tensor &hidden = inputs[kHidden];
  if (!hidden.isF32() || hidden.getNumElements() < count * dims.hiddenSize)
    return sessionError("the hidden state " + hidden.describe() +
                        " holds fewer than " + llvm::Twine(count) +
                        " tokens of " + llvm::Twine(dims.hiddenSize));
  tokens.insert(tokens.end(), chunk.begin(), chunk.end());
  llvm::ArrayRef<float> last =
      hidden.getF32().slice((count - 1) * dims.hiddenSize, dims.hiddenSize);
  return std::vector<float>(last.begin(), last.end());
}

llvm::Expected<std::vector<float>>
Session::feed(llvm::ArrayRef<int32_t> newTokens,
              const PlacedEmbeddings *placed) {
  if (newTokens.empty())
    return sessionError("nothing to feed: the prompt is empty");
  if (placed)
    if (llvm::Error error =
            checkPlaced(*placed, static_cast<int64_t>(newTokens.size())))
      return std::move(error);
  for (int32_t token : newTokens)
    if (token < 0 || token >= dims.vocabSize)
      return sessionError("token id " + llvm::Twine(token) +
                          " is outside the vocabulary [0, " +
                          llvm::Twine(dims.vocabSize) + ")");
  int64_t needed = getHistoryLength() + static_cast<int64_t>(newTokens.size());
  if (needed > dims.seqLength)
    return llvm::make_error<CacheCapacityError>(needed, dims.seqLength);
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
    llvm::ArrayRef<int32_t> part =
        newTokens.take_front(length ? static_cast<size_t>(*length) : 1);
    llvm::Expected<std::vector<float>> hidden =
        runChunk(part, phase, length.value_or(1), offset, placed);
    if (!hidden)
      return hidden.takeError();
    last = std::move(*hidden);
    newTokens = newTokens.drop_front(part.size());
    offset += static_cast<int64_t>(part.size());
  }
  llvm::Expected<std::vector<Tensor>> logits = runPiece(
      runner, "lm_head", {Tensor::fromF32({1, dims.hiddenSize}, last)}, 1);
  if (!logits)
    return logits.takeError();
  const Tensor &values = (*logits)[0];
  if (!values.isF32() || values.getNumElements() != dims.vocabSize)
    return sessionError("lm_head returned " + values.describe() + ", not " +
                        llvm::Twine(dims.vocabSize) + " logits");
  return std::vector<float>(values.getF32().begin(), values.getF32().end());
}

llvm::Expected<int32_t> Session::pickGreedy(llvm::ArrayRef<float> logits) {
  if (static_cast<int64_t>(logits.size()) != dims.vocabSize)
    return sessionError("greedy_head takes " + llvm::Twine(dims.vocabSize) +
                        " logits, not " + llvm::Twine(logits.size()));
  llvm::Expected<std::vector<Tensor>> token = runPiece(
      runner, "greedy_head",
      {Tensor::fromF32({1, dims.vocabSize},
                       std::vector<float>(logits.begin(), logits.end()))},
      1);
  if (!token)
    return token.takeError();
  const Tensor &id = (*token)[0];
  if (!id.isI32() || id.getNumElements() != 1)
    return sessionError("greedy_head returned " + id.describe() +
                        ", not one token id");
  return id.getI32()[0];
}

} // namespace llmc::session
