//===- BinaryRunner.cpp - a compiled binary's pieces on the cmodel --------===//

#include "runtime/device/BinaryRunner.h"

#include "backends/common/cmodel/StreamBuilder.h"
#include "runtime/device/IoTensors.h"
#include "runtime/session/HostMemory.h"
#include "support/Status.h"
#include "support/Strings.h"

#include "absl/strings/match.h"

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

static uint64_t alignToIo(uint64_t bytes) {
  return (bytes + kIoAlignment - 1) / kIoAlignment * kIoAlignment;
}

BinaryRunner::BinaryRunner(const binary::LoadedBinary &binary,
                           std::unique_ptr<cmodel::StreamDevice> device)
    : binary(binary), device(std::move(device)) {}

BinaryRunner::~BinaryRunner() = default;

absl::StatusOr<std::unique_ptr<BinaryRunner>>
BinaryRunner::create(const binary::LoadedBinary &binary,
                     std::unique_ptr<cmodel::StreamDevice> device) {
  if (!device)
    return absl::FailedPreconditionError(support::strCat(
        binary.name(), ": compiled for chip '", binary.manifest().chip(),
        "', whose backend has no device in this build"));
  std::unique_ptr<BinaryRunner> runner(
      new BinaryRunner(binary, std::move(device)));
  LLMC_RETURN_IF_ERROR(
      support::prefixStatus(binary.name() + ": ", runner->load()));
  return runner;
}

session::ModelDims BinaryRunner::getModelDims() const {
  return device::getModelDims(binary.manifest().model());
}

/// Parses the stream of `piece` into `streams` unless an earlier piece
/// shares it.
static absl::StatusOr<const cmd::CommandStream *>
parsePieceStream(const binary::LoadedBinary &binary, const binary::Piece &piece,
                 std::map<uint64_t, cmd::CommandStream> &streams) {
  auto stream = streams.find(piece.stream_section());
  if (stream == streams.end()) {
    LLMC_ASSIGN_OR_RETURN(std::string_view bytes,
                          binary.streamBytes(piece.stream_section()));
    LLMC_ASSIGN_OR_RETURN(cmd::CommandStream parsed,
                          cmodel::parseStream(bytes));
    stream = streams.emplace(piece.stream_section(), std::move(parsed)).first;
  }
  return &stream->second;
}

/// Checks the sizes and IO slots `piece` declares.
static absl::Status checkPieceLayout(const binary::Piece &piece) {
  for (auto [field, bytes] :
       {std::pair{"io_bytes", piece.io_bytes()},
        std::pair{"activation_bytes", piece.activation_bytes()}})
    if (bytes > kMaxPieceRegionBytes)
      return absl::InvalidArgumentError(
          support::strCat(field, " (", bytes, ") exceeds llmc's limit of ",
                          kMaxPieceRegionBytes));
  for (const auto *tensors : {&piece.inputs(), &piece.outputs()})
    for (const binary::Tensor &tensor : *tensors)
      LLMC_RETURN_IF_ERROR(checkIoTensor(tensor, piece.io_bytes()));
  return absl::OkStatus();
}

absl::Status BinaryRunner::load() {
  const binary::Manifest &manifest = binary.manifest();
  if (!absl::EqualsIgnoreCase(manifest.chip(), device->getChip().id))
    return absl::InvalidArgumentError(
        support::strCat("compiled for chip '", manifest.chip(), "', not for '",
                        device->getChip().id, "'"));
  LLMC_RETURN_IF_ERROR(getModelDims().validate());
  LLMC_RETURN_IF_ERROR(device->getChip().validate());
  uint64_t activationBytes = 0, ioBytes = 0;
  for (const binary::Piece &piece : manifest.pieces()) {
    std::string prefix = support::strCat("piece ", piece.name(), ": ");
    LLMC_RETURN_IF_ERROR(
        support::prefixStatus(prefix, checkPieceLayout(piece)));
    absl::StatusOr<const cmd::CommandStream *> stream =
        parsePieceStream(binary, piece, streams);
    if (!stream.ok())
      return support::prefixStatus(prefix, stream.status());
    LoadedPiece &loaded = pieces[piece.name()];
    loaded.manifest = &piece;
    loaded.stream = *stream;
    activationBytes = std::max(activationBytes, piece.activation_bytes());
    ioBytes += alignToIo(piece.io_bytes());
    if (ioBytes > kMaxIoBytes)
      return absl::InvalidArgumentError(
          support::strCat("the pieces' IO regions exceed llmc's limit of ",
                          kMaxIoBytes, " bytes in all"));
  }
  LLMC_RETURN_IF_ERROR(session::checkFitsInMemory(
      "the pieces' IO and activation regions", ioBytes + activationBytes));
  if (ioBytes > 0) {
    ioMemory = cmodel::HugePageMemory::allocate(ioBytes);
    if (!ioMemory)
      return absl::ResourceExhaustedError(
          support::strCat("the system gives no memory for the pieces' IO "
                          "regions (",
                          ioBytes, " bytes)"));
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
        ioMemory ? absl::MakeSpan(ioMemory->bytes().data() + ioOffset,
                                  piece.io_bytes())
                 : absl::Span<uint8_t>();
    ioOffset += alignToIo(piece.io_bytes());
  }
  cmodel::GlobalMemory &global = device->global();
  device->attachWeights(binary.coeff());
  global.allocate(cmd::REGION_ACTIVATION, activationBytes);
  return absl::OkStatus();
}

absl::Status BinaryRunner::runPiece(LoadedPiece &piece,
                                    absl::Span<const Tensor> inputs,
                                    std::optional<int64_t> historyFrom,
                                    uint64_t owner) {
  const binary::Piece &manifest = *piece.manifest;
  if (static_cast<int>(inputs.size()) != manifest.inputs_size())
    return absl::InvalidArgumentError(support::strCat(
        "takes ", manifest.inputs_size(), " inputs, not ", inputs.size()));
  // What the region holds of a history is unknown until the writes end.
  piece.historyOwner = 0;
  int64_t historyRows = 0;
  for (int i = 0; i < manifest.inputs_size(); ++i) {
    const binary::Tensor &slot = manifest.inputs(i);
    bool history = support::startsWith(slot.role(), "history_");
    LLMC_RETURN_IF_ERROR(
        history && historyFrom
            ? writeIoTensorRows(slot, inputs[i], *historyFrom, piece.io)
            : writeIoTensor(slot, inputs[i], piece.io));
    if (history && historyFrom)
      historyRows = *historyFrom + inputs[i].getShape()[1];
  }
  if (historyFrom) {
    piece.historyOwner = owner;
    piece.historyRows = historyRows;
  }
  device->global().attach(cmd::REGION_IO, piece.io);
  LLMC_ASSIGN_OR_RETURN(cmodel::RunStats stats, device->run(*piece.stream));
  totals.runs += 1;
  totals.cycles += stats.totalCycles;
  totals.seconds += stats.seconds;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>>
BinaryRunner::run(std::string_view name, absl::Span<const Tensor> inputs) {
  return runNamed(name, inputs, std::nullopt, 0);
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
  if (firstRow > getKeptHistoryRows(piece, owner))
    return absl::FailedPreconditionError(support::strCat(
        "piece ", piece, ": holds ", getKeptHistoryRows(piece, owner),
        " history rows, not the ", firstRow, " its new rows follow"));
  return runNamed(piece, inputs, firstRow, owner);
}

absl::StatusOr<std::vector<Tensor>>
BinaryRunner::runNamed(std::string_view name, absl::Span<const Tensor> inputs,
                       std::optional<int64_t> historyFrom, uint64_t owner) {
  auto found = pieces.find(name);
  if (found == pieces.end()) {
    const binary::Manifest &manifest = binary.manifest();
    return absl::NotFoundError(support::strCat(
        "piece ", name, " is not in ", binary.name(), " (", manifest.chip(),
        " ", manifest.precision(), ": the compiler left it out)"));
  }
  LoadedPiece &piece = found->second;
  LLMC_RETURN_IF_ERROR(
      support::prefixStatus(support::strCat("piece ", name, ": "),
                            runPiece(piece, inputs, historyFrom, owner)));
  std::vector<Tensor> outputs;
  // Reserved: Tensor's move may throw, so growing the vector would copy.
  outputs.reserve(piece.manifest->outputs_size());
  for (const binary::Tensor &slot : piece.manifest->outputs())
    outputs.push_back(readIoTensor(slot, piece.io));
  return outputs;
}

} // namespace llmc::device
