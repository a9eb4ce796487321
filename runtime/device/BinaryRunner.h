//===- BinaryRunner.h - a binary's pieces on the cmodel ---------*- C++ -*-===//
//
// Runs the pieces of a `.llmc` binary (docs/binary-format.md) on the device
// of the chip its manifest names (the cmodel of a TPU-class chip, or the
// host CPU), as a PieceRunner for a session::Session:
//
//   - the COEFF section is the device's REGION_COEFF, attached read-only once;
//   - every piece has an IO region of its own (Piece.io_bytes, zeroed once)
//     and all share one activation region as large as the largest needs;
//   - running a piece writes each input at its io_offset, runs its command
//     stream (parsed once, at load) and reads each output back.
//
// The time of every run (modelled on a simulated chip, measured on the
// host) adds up in getTotals(), so callers can report on-chip throughput
// without the chip.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_DEVICE_BINARYRUNNER_H
#define LLMC_RUNTIME_DEVICE_BINARYRUNNER_H

#include "backends/common/cmodel/HugePageMemory.h"
#include "backends/common/cmodel/StreamDevice.h"
#include "runtime/format/BinaryReader.h"
#include "runtime/session/ModelDims.h"
#include "runtime/session/PieceRunner.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace llmc::device {

/// The sizes of the model a manifest describes.
session::ModelDims getModelDims(const binary::ModelInfo &model);

/// What the runs of a BinaryRunner added up to: modelled time when the
/// device models it, else measured time (and no cycles).
struct DeviceTotals {
  uint64_t runs = 0;
  uint64_t cycles = 0;
  double seconds = 0;
};

class BinaryRunner : public session::PieceRunner {
public:
  /// Prepares every piece of `binary` for `device`, whose chip must be the
  /// chip the manifest names: checks the model sizes and each piece's IO
  /// layout and parses its stream. `binary` must outlive the runner.
  static absl::StatusOr<std::unique_ptr<BinaryRunner>>
  create(const binary::LoadedBinary &binary,
         std::unique_ptr<cmodel::StreamDevice> device);
  ~BinaryRunner() override;

  /// Runs `piece`; fails when the binary has no such piece, the inputs do
  /// not match its manifest entry, or the cmodel traps.
  absl::StatusOr<std::vector<top::Tensor>>
  run(std::string_view piece, absl::Span<const top::Tensor> inputs) override;

  /// Every piece's IO region persists between its runs, history included.
  bool keepsHistory() const override { return true; }
  int64_t getKeptHistoryRows(std::string_view piece,
                             uint64_t owner) const override;
  absl::StatusOr<std::vector<top::Tensor>>
  runWithHistoryFrom(std::string_view piece,
                     absl::Span<const top::Tensor> inputs, int64_t firstRow,
                     uint64_t owner) override;

  bool hasPiece(std::string_view piece) const {
    return pieces.find(piece) != pieces.end();
  }
  /// The manifest entry of `piece`, or null when the binary has no such
  /// piece.
  const binary::Piece *getPiece(std::string_view piece) const {
    auto it = pieces.find(piece);
    return it == pieces.end() ? nullptr : it->second.manifest;
  }
  /// The sizes of the binary's model, for a session.
  session::ModelDims getModelDims() const;
  /// Time of every run so far.
  const DeviceTotals &getTotals() const { return totals; }
  /// Whether getTotals() is modelled chip time (else measured host time).
  bool modelsTime() const { return device->modelsTime(); }

private:
  struct LoadedPiece {
    const binary::Piece *manifest = nullptr;
    const cmd::CommandStream *stream = nullptr;
    /// The IO region, the piece's slice of ioMemory.
    absl::Span<uint8_t> io;
    /// Whose history the region holds, and how many rows of it.
    uint64_t historyOwner = 0;
    int64_t historyRows = 0;
  };

  BinaryRunner(const binary::LoadedBinary &binary,
               std::unique_ptr<cmodel::StreamDevice> device);
  absl::Status load();
  /// Writes `inputs` (the history ones from row `historyFrom`, when given,
  /// as `owner`'s) and runs the piece's stream.
  absl::Status runPiece(LoadedPiece &piece,
                        absl::Span<const top::Tensor> inputs,
                        std::optional<int64_t> historyFrom, uint64_t owner);
  absl::StatusOr<std::vector<top::Tensor>>
  runNamed(std::string_view piece, absl::Span<const top::Tensor> inputs,
           std::optional<int64_t> historyFrom, uint64_t owner);

  const binary::LoadedBinary &binary;
  std::unique_ptr<cmodel::StreamDevice> device;
  /// Parsed streams by section index; pieces may share one.
  std::map<uint64_t, cmd::CommandStream> streams;
  std::map<std::string, LoadedPiece, std::less<>> pieces;
  /// Every piece's IO region, zeroed, on huge pages (HugePageMemory.h).
  std::unique_ptr<cmodel::HugePageMemory> ioMemory;
  DeviceTotals totals;
};

} // namespace llmc::device

#endif // LLMC_RUNTIME_DEVICE_BINARYRUNNER_H
