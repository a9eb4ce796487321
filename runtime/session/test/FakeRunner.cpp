//===- FakeRunner.cpp - a PieceRunner that records what it runs -----------===//

#include "runtime/session/test/FakeRunner.h"

#include "support/Strings.h"

#include <algorithm>

namespace llmc::session {

using top::Tensor;

ModelDims getFakeDims() {
  ModelDims dims;
  dims.numLayers = 2;
  dims.numKvHeads = 2;
  dims.headDim = 3;
  dims.hiddenSize = 5;
  dims.vocabSize = 32;
  dims.seqLength = 16;
  dims.maxInputLength = 4;
  return dims;
}

std::vector<std::string> FakeRunner::getPieceNames() const {
  std::vector<std::string> names;
  for (const RecordedCall &call : calls)
    names.push_back(call.piece);
  return names;
}

absl::StatusOr<std::vector<Tensor>>
FakeRunner::run(std::string_view piece, absl::Span<const Tensor> inputs) {
  calls.push_back(
      {std::string(piece), std::vector<Tensor>(inputs.begin(), inputs.end())});
  if (std::find(failing.begin(), failing.end(), piece) != failing.end())
    return absl::InternalError(support::strCat("piece ", piece, ": fails"));
  int64_t d = dims.hiddenSize;
  if (support::startsWith(piece, "embed.")) {
    absl::Span<const int32_t> ids = inputs[0].getI32();
    int64_t length = static_cast<int64_t>(ids.size());
    std::vector<float> hidden(length * d);
    for (int64_t t = 0; t < length; ++t)
      hidden[t * d] = static_cast<float>(ids[t]);
    return std::vector<Tensor>{Tensor::fromF32({1, length, d}, hidden)};
  }
  if (support::startsWith(piece, "block.")) {
    absl::Span<const float> hidden = inputs[0].getF32();
    absl::Span<const int32_t> positions = inputs[1].getI32();
    int64_t length = static_cast<int64_t>(positions.size());
    int64_t row = dims.getKvRowSize();
    std::vector<float> k(length * row), v(length * row);
    for (int64_t t = 0; t < length; ++t)
      for (int64_t c = 0; c < row; ++c) {
        k[t * row + c] = static_cast<float>(positions[t] + 1);
        v[t * row + c] = hidden[t * d] + 1;
      }
    std::vector<int64_t> kvShape = {1, length, dims.numKvHeads, dims.headDim};
    return std::vector<Tensor>{inputs[0], Tensor::fromF32(kvShape, k),
                               Tensor::fromF32(kvShape, v)};
  }
  if (piece == "lm_head") {
    std::vector<float> logits(dims.vocabSize);
    int64_t id = static_cast<int64_t>(inputs[0].getF32()[0]);
    logits[(id + 1) % dims.vocabSize] = 1;
    return std::vector<Tensor>{Tensor::fromF32({1, dims.vocabSize}, logits)};
  }
  if (piece == "greedy_head") {
    absl::Span<const float> logits = inputs[0].getF32();
    int32_t best = static_cast<int32_t>(
        std::max_element(logits.begin(), logits.end()) - logits.begin());
    return std::vector<Tensor>{Tensor::fromI32({1, 1}, {best})};
  }
  return absl::NotFoundError(support::strCat("no piece named ", piece));
}

int64_t FakeRunner::getKeptHistoryRows(std::string_view piece,
                                       uint64_t owner) const {
  auto found = kept.find(piece);
  return found != kept.end() && found->second.first == owner
             ? found->second.second
             : 0;
}

absl::StatusOr<std::vector<Tensor>>
FakeRunner::runWithHistoryFrom(std::string_view piece,
                               absl::Span<const Tensor> inputs,
                               int64_t firstRow, uint64_t owner) {
  if (firstRow > getKeptHistoryRows(piece, owner))
    return absl::FailedPreconditionError("given history rows it does not hold");
  kept[std::string(piece)] = {owner, firstRow + inputs[3].getShape()[1]};
  absl::StatusOr<std::vector<Tensor>> outputs = run(piece, inputs);
  calls.back().historyFrom = firstRow;
  return outputs;
}

} // namespace llmc::session
