//===- LoweringOptions.h - how top lowers to tpu ---------------*- C++ -*-===//
//
// The precision decisions of the top -> tpu lowering: a quantization mode for
// the whole model, the group size and symmetry of weight-only quantization,
// and a qtable that keeps chosen ops in another mode. Plain data, parsed from
// command-line strings and qtable files; the lowering patterns read it.
//
// A qtable file holds one rule per line, `<name or glob> <mode>`:
//
//   # keep the MLPs of every layer in f16, the LM head in f32
//   model.layers.*.mlp*   F16
//   lm_head               F32
//
// A rule applies to an op when its pattern (llvm::GlobPattern: `*`, `?`,
// `[a-z]`, `{a,b}`) matches the op's location name (the checkpoint name
// the graph builder gave it: `model.layers.0.self_attn.q_proj`,
// `layers.0.mlp`, `lm_head`) or the name of a weight the op reads
// (`model.layers.0.mlp.gate_proj.weight`). When several rules apply, the
// last one in the file wins, so general rules go first. `#` starts a
// comment; blank lines are ignored.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_LOWERINGOPTIONS_H
#define LLMC_BACKENDS_COMMON_LOWERING_LOWERINGOPTIONS_H

#include "backends/common/quant/CalibrationTable.h"
#include "backends/common/quant/FloatRounding.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llmc::lowering {

/// The precision of a piece: activations in F32, F16 or BF16, and for the
/// `W<bits><act>` modes Linear weights quantized weight-only to 8 or 4 bits.
/// INT8 computes Linear layers and MLPs on 8-bit activations (calibrated,
/// per tensor) and per-channel 8-bit weights, everything else in f16.
enum class QuantMode { F32, F16, BF16, W8F16, W8BF16, W4F16, W4BF16, INT8 };

/// Every mode, in the order messages list them.
llvm::ArrayRef<QuantMode> getAllQuantModes();
/// `F32`, `W4BF16`, ...
llvm::StringRef stringifyQuantMode(QuantMode mode);
/// Parses a mode name, ignoring case; the error lists the valid modes.
llvm::Expected<QuantMode> parseQuantMode(llvm::StringRef name);

/// The element type activations (and float weights) have in `mode`.
quant::FloatType getActivationType(QuantMode mode);
/// 8 or 4 for weight-only modes, 0 when weights stay float (and for INT8,
/// whose weights are not weight-only).
int64_t getWeightBits(QuantMode mode);
/// The mode that computes in `mode`'s activation type with float weights
/// and activations: W8F16, W4F16 and INT8 give F16, W8BF16 and W4BF16 BF16;
/// a float mode itself.
QuantMode getFloatMode(QuantMode mode);
/// True for modes that quantize activations: they need a calibration table.
bool quantizesActivations(QuantMode mode);

/// One line of a qtable.
struct QTableRule {
  /// A name or llvm::GlobPattern.
  std::string pattern;
  QuantMode mode = QuantMode::F32;
  /// `file:line`, for messages.
  std::string origin;
};

/// Parses qtable `text`; errors name `fileName` and the line.
llvm::Expected<std::vector<QTableRule>> parseQTable(llvm::StringRef text,
                                                    llvm::StringRef fileName);
/// Reads and parses the qtable file at `path`.
llvm::Expected<std::vector<QTableRule>> readQTableFile(llvm::StringRef path);

struct LoweringOptions {
  QuantMode mode = QuantMode::F32;
  /// Weight-only quantization: elements per group along K; 0 (or K) means
  /// per-channel. Must divide every quantized weight's K.
  int64_t groupSize = 64;
  /// Asymmetric weight-only quantization (unsigned values, zero points); in
  /// INT8, asymmetric (unsigned, zero-point) activations.
  bool asymmetric = false;
  /// Rules that put chosen ops in another mode.
  std::vector<QTableRule> qtable;
  /// The file `qtable` came from, if any (to print the options).
  std::string qtablePath;
  /// The calibrated activation ranges INT8 quantizes with (shared: the
  /// options are copied per piece).
  std::shared_ptr<const quant::CalibrationTable> calibration;
  /// The file `calibration` came from, for messages.
  std::string calibrationPath;
  /// Cores to split weight-heavy ops across (tpu-core-split); 0 means all
  /// the chip has.
  int64_t cores = 0;
  /// Ops whose weights take fewer bytes stay on one core: at the BM1688's
  /// 24 GB/s, 256 KiB stream in about 11 µs, ten times the barrier a split
  /// costs.
  int64_t coreSplitMinWeightBytes = 256 * 1024;

  /// `mode` and every mode of the qtable, without repeats.
  std::vector<QuantMode> getUsedModes() const;
  /// Checks the group size, the core options and the qtable's patterns,
  /// and that a mode quantizing activations has a calibration table.
  llvm::Error validate() const;
};

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_LOWERINGOPTIONS_H
