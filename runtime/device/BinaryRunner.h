//===- BinaryRunner.h - a binary's pieces on the cmodel ---------*- C++ -*-===//
//
// Runs the pieces of a `.llmc` binary (docs/binary-format.md) on the cmodel
// of the chip its manifest names, as a PieceRunner for a session::Session:
//
//   - the COEFF section is the device's REGION_COEFF, attached read-only once;
//   - every piece has an IO region of its own (Piece.io_bytes, zeroed once)
//     and all share one activation region as large as the largest needs;
//   - running a piece writes each input at its io_offset, runs its command
//     stream (parsed once, at load) and reads each output back.
//
// The modelled time of every run adds up in getTotals(), so callers can
// report on-chip throughput without the chip.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_DEVICE_BINARYRUNNER_H
#define LLMC_RUNTIME_DEVICE_BINARYRUNNER_H

#include "backends/common/cmodel/CModel.h"
#include "runtime/format/BinaryReader.h"
#include "runtime/session/ModelDims.h"
#include "runtime/session/PieceRunner.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>

namespace llmc::device {

/// The sizes of the model a manifest describes.
session::ModelDims getModelDims(const binary::ModelInfo &model);

/// What the runs of a BinaryRunner added up to, in modelled time.
struct DeviceTotals {
  uint64_t runs = 0;
  uint64_t cycles = 0;
  double seconds = 0;
};

class BinaryRunner : public session::PieceRunner {
public:
  /// Prepares every piece of `binary` for a cmodel of `chip`, which must be
  /// the chip the manifest names: checks the model sizes and each piece's IO
  /// layout and parses its stream. `binary` must outlive the runner.
  static llvm::Expected<std::unique_ptr<BinaryRunner>>
  create(const binary::LoadedBinary &binary,
         const plugins::ChipDescriptor &chip,
         const cmodel::CModelOptions &options = {});
  ~BinaryRunner() override;

  /// Runs `piece`; fails when the binary has no such piece, the inputs do
  /// not match its manifest entry, or the cmodel traps.
  llvm::Expected<std::vector<top::Tensor>>
  run(llvm::StringRef piece, llvm::ArrayRef<top::Tensor> inputs) override;

  bool hasPiece(llvm::StringRef piece) const { return pieces.count(piece); }
  /// The manifest entry of `piece`, or null when the binary has no such
  /// piece.
  const binary::Piece *getPiece(llvm::StringRef piece) const {
    auto it = pieces.find(piece);
    return it == pieces.end() ? nullptr : it->second.manifest;
  }
  /// The sizes of the binary's model, for a session.
  session::ModelDims getModelDims() const;
  /// Modelled time of every run so far.
  const DeviceTotals &getTotals() const { return totals; }

private:
  struct LoadedPiece {
    const binary::Piece *manifest = nullptr;
    const cmd::CommandStream *stream = nullptr;
    /// The IO region; allocated at the first run.
    std::vector<uint8_t> io;
  };

  BinaryRunner(const binary::LoadedBinary &binary,
               const plugins::ChipDescriptor &chip,
               const cmodel::CModelOptions &options);
  llvm::Error load();
  llvm::Error runPiece(LoadedPiece &piece, llvm::ArrayRef<top::Tensor> inputs);

  const binary::LoadedBinary &binary;
  cmodel::CModel device;
  /// Parsed streams by section index; pieces may share one.
  std::map<uint64_t, cmd::CommandStream> streams;
  llvm::StringMap<LoadedPiece> pieces;
  DeviceTotals totals;
};

} // namespace llmc::device

#endif // LLMC_RUNTIME_DEVICE_BINARYRUNNER_H
