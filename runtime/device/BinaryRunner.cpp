//===- BinaryRunner.cpp - a compiled binary's pieces on the cmodel --------===//

#include "runtime/device/BinaryRunner.h"

#include "backends/common/cmodel/StreamBuilder.h"
#include "runtime/device/IoTensors.h"
#include "runtime/session/HostMemory.h"
#include "support/LlvmStatus.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>

namespace llmc::device {

using top::Tensor;

session::ModelDims getModelDims(const binary::ModelInfo &model) {
  session::ModelDims dims;
  dims.numLayers = model.num_layers();
  dims.numKvHeads = model.num_kv_heads();
  dims.headDim = model.head_dim();
  dims.hiddenSize = model.hidden_size();
  dims.vocabSize = model.vocab_size();
  dims.seqLength = model.seq_length();
  dims.maxInputLength = model.max_input_length();
  dims.prefillLengths.assign(model.prefill_lengths().begin(),
                             model.prefill_lengths().end());
  dims.layerWindows.assign(model.layer_windows().begin(),
                           model.layer_windows().end());
  return dims;
}

/// Where each piece's IO region starts in the runner's one mapping: a
/// cache line of its own.
static constexpr uint64_t kIoAlignment = 64;

/// The largest IO or activation region one piece may ask for, and the
/// largest sum of IO regions: far above any real model (a 70B model's
/// prefill of 8192 tokens moves about 0.3 GB), low enough that no sum of
/// regions overflows.
static constexpr uint64_t kMaxPieceRegionBytes = uint64_t(1) << 36;
static constexpr uint64_t kMaxIoBytes = uint64_t(1) << 40;

static llvm::Error runnerError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

BinaryRunner::BinaryRunner(const binary::LoadedBinary &binary,
                           std::unique_ptr<cmodel::StreamDevice> device)
    : binary(binary), device(std::move(device)) {}

BinaryRunner::~BinaryRunner() = default;

llvm::Expected<std::unique_ptr<BinaryRunner>>
BinaryRunner::create(const binary::LoadedBinary &binary,
                     std::unique_ptr<cmodel::StreamDevice> device) {
  if (!device)
    return runnerError(binary.name() + ": compiled for chip '" +
                       binary.manifest().chip() +
                       "', whose backend has no device in this build");
  std::unique_ptr<BinaryRunner> runner(
      new BinaryRunner(binary, std::move(device)));
  if (llvm::Error error = runner->load())
    return runnerError(binary.name() + ": " + llvm::toString(std::move(error)));
  return std::move(runner);
}

session::ModelDims BinaryRunner::getModelDims() const {
  return device::getModelDims(binary.manifest().model());
}

llvm::Error BinaryRunner::load() {
  const binary::Manifest &manifest = binary.manifest();
  if (!llvm::StringRef(manifest.chip())
           .equals_insensitive(device->getChip().id))
    return runnerError("compiled for chip '" + manifest.chip() +
                       "', not for '" + device->getChip().id + "'");
  if (llvm::Error error = support::toLlvmError(getModelDims().validate()))
    return error;
  if (llvm::Error error = support::toLlvmError(device->getChip().validate()))
    return error;
  uint64_t activationBytes = 0, ioBytes = 0;
  for (const binary::Piece &piece : manifest.pieces()) {
    auto prefix = [&](llvm::Error error) {
      return runnerError("piece " + piece.name() + ": " +
                         llvm::toString(std::move(error)));
    };
    for (auto [field, bytes] :
         {std::pair{"io_bytes", piece.io_bytes()},
          std::pair{"activation_bytes", piece.activation_bytes()}})
      if (bytes > kMaxPieceRegionBytes)
        return prefix(runnerError(llvm::Twine(field) + " (" +
                                  llvm::Twine(bytes) +
                                  ") exceeds llmc's limit of " +
                                  llvm::Twine(kMaxPieceRegionBytes)));
    for (const auto *tensors : {&piece.inputs(), &piece.outputs()})
      for (const binary::Tensor &tensor : *tensors)
        if (llvm::Error error = checkIoTensor(tensor, piece.io_bytes()))
          return prefix(std::move(error));
    auto stream = streams.find(piece.stream_section());
    if (stream == streams.end()) {
      llvm::Expected<std::string_view> bytes =
          support::toExpected(binary.streamBytes(piece.stream_section()));
      if (!bytes)
        return prefix(bytes.takeError());
      llvm::Expected<cmd::CommandStream> parsed =
          support::toExpected(cmodel::parseStream(*bytes));
      if (!parsed)
        return prefix(parsed.takeError());
      stream =
          streams.emplace(piece.stream_section(), std::move(*parsed)).first;
    }
    LoadedPiece &loaded = pieces[piece.name()];
    loaded.manifest = &piece;
    loaded.stream = &stream->second;
    activationBytes = std::max(activationBytes, piece.activation_bytes());
    ioBytes += llvm::alignTo(piece.io_bytes(), kIoAlignment);
    if (ioBytes > kMaxIoBytes)
      return runnerError("the pieces' IO regions exceed llmc's limit of " +
                         llvm::Twine(kMaxIoBytes) + " bytes in all");
  }
  if (llvm::Error error = support::toLlvmError(session::checkFitsInMemory(
          "the pieces' IO and activation regions", ioBytes + activationBytes)))
    return error;
  if (ioBytes > 0) {
    ioMemory = cmodel::HugePageMemory::allocate(ioBytes);
    if (!ioMemory)
      return runnerError("the system gives no memory for the pieces' IO "
                         "regions (" +
                         llvm::Twine(ioBytes) + " bytes)");
    // Touched now rather than on each piece's first run: a fresh page
    // costs a fault and its zeroing (on a VM, its backing too). On the
    // host, Qwen2.5-0.5B shape, the first 16-token turn after 128 decode
    // steps took 225 ms against 73 ms once touched; loading pays it once
    // (40 to 150 ms for that binary's 267 MB of IO regions).
    std::memset(ioMemory->bytes().data(), 0, ioBytes);
  }
  uint64_t ioOffset = 0;
  for (const binary::Piece &piece : manifest.pieces()) {
    pieces[piece.name()].io =
        ioMemory ? llvm::MutableArrayRef<uint8_t>(
                       ioMemory->bytes().data() + ioOffset, piece.io_bytes())
                 : llvm::MutableArrayRef<uint8_t>();
    ioOffset += llvm::alignTo(piece.io_bytes(), kIoAlignment);
  }
  cmodel::GlobalMemory &global = device->global();
  device->attachWeights(binary.coeff());
  global.allocate(cmd::REGION_ACTIVATION, activationBytes);
  return llvm::Error::success();
}

llvm::Error BinaryRunner::runPiece(LoadedPiece &piece,
                                   llvm::ArrayRef<Tensor> inputs,
                                   std::optional<int64_t> historyFrom,
                                   uint64_t owner) {
  const binary::Piece &manifest = *piece.manifest;
  if (static_cast<int>(inputs.size()) != manifest.inputs_size())
    return runnerError("takes " + llvm::Twine(manifest.inputs_size()) +
                       " inputs, not " + llvm::Twine(inputs.size()));
  // What the region holds of a history is unknown until the writes end.
  piece.historyOwner = 0;
  int64_t historyRows = 0;
  for (int i = 0; i < manifest.inputs_size(); ++i) {
    const binary::Tensor &slot = manifest.inputs(i);
    bool history = llvm::StringRef(slot.role()).starts_with("history_");
    if (llvm::Error error =
            history && historyFrom
                ? writeIoTensorRows(slot, inputs[i], *historyFrom, piece.io)
                : writeIoTensor(slot, inputs[i], piece.io))
      return error;
    if (history && historyFrom)
      historyRows = *historyFrom + inputs[i].getShape()[1];
  }
  if (historyFrom) {
    piece.historyOwner = owner;
    piece.historyRows = historyRows;
  }
  device->global().attach(cmd::REGION_IO,
                          absl::MakeSpan(piece.io.data(), piece.io.size()));
  llvm::Expected<cmodel::RunStats> stats =
      support::toExpected(device->run(*piece.stream));
  if (!stats)
    return stats.takeError();
  totals.runs += 1;
  totals.cycles += stats->totalCycles;
  totals.seconds += stats->seconds;
  return llvm::Error::success();
}

absl::StatusOr<std::vector<Tensor>>
BinaryRunner::run(std::string_view name, absl::Span<const Tensor> inputs) {
  return support::toStatusOr(runNamed(name, inputs, std::nullopt, 0));
}

int64_t BinaryRunner::getKeptHistoryRows(std::string_view name,
                                         uint64_t owner) const {
  auto found = pieces.find(name);
  if (found == pieces.end() || found->second.historyOwner != owner)
    return 0;
  return found->second.historyRows;
}

absl::StatusOr<std::vector<Tensor>>
BinaryRunner::runWithHistoryFrom(std::string_view piece,
                                 absl::Span<const Tensor> inputs,
                                 int64_t firstRow, uint64_t owner) {
  llvm::StringRef name = piece;
  if (firstRow > getKeptHistoryRows(name, owner))
    return support::toStatus(
        runnerError("piece " + name + ": holds " +
                    llvm::Twine(getKeptHistoryRows(name, owner)) +
                    " history rows, not the " + llvm::Twine(firstRow) +
                    " its new rows follow"));
  return support::toStatusOr(runNamed(name, inputs, firstRow, owner));
}

llvm::Expected<std::vector<Tensor>>
BinaryRunner::runNamed(llvm::StringRef name, llvm::ArrayRef<Tensor> inputs,
                       std::optional<int64_t> historyFrom, uint64_t owner) {
  auto found = pieces.find(name);
  if (found == pieces.end()) {
    const binary::Manifest &manifest = binary.manifest();
    return runnerError("piece " + name + " is not in " + binary.name() + " (" +
                       manifest.chip() + " " + manifest.precision() +
                       ": the compiler left it out)");
  }
  LoadedPiece &piece = found->second;
  if (llvm::Error error = runPiece(piece, inputs, historyFrom, owner))
    return runnerError("piece " + name + ": " +
                       llvm::toString(std::move(error)));
  std::vector<Tensor> outputs;
  // Reserved: Tensor's move may throw, so growing the vector would copy.
  outputs.reserve(piece.manifest->outputs_size());
  for (const binary::Tensor &slot : piece.manifest->outputs())
    outputs.push_back(readIoTensor(slot, piece.io));
  return outputs;
}

} // namespace llmc::device
