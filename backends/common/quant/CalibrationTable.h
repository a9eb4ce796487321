//===- CalibrationTable.h - calibrated activation ranges --------*- C++ -*-===//
//
// INT8 lowering quantizes activations per tensor with ranges measured by
// running the reference interpreter over sample prompts (`llmc calibrate`).
// The table holds one line per tensor:
//
//   # comment
//   <name> <min> <max> <threshold>
//
// `name` is the location name of the op whose input is quantized: a Linear
// matmul (`model.layers.3.self_attn.q_proj`, `lm_head`), a gated MLP's input
// (`model.layers.3.mlp`) or its intermediate before the down projection
// (`model.layers.3.mlp.down_proj`). Those names are the same in the prefill,
// prefill_kv and decode pieces, so one table serves every piece. `min` and
// `max` bound the range asymmetric quantization maps onto [0, 255];
// `threshold` (> 0) is the clipping bound |x| <= threshold that symmetric
// quantization maps onto [-127, 127]. Numbers are printed with 9
// significant digits, so floats read back exactly.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_QUANT_CALIBRATIONTABLE_H
#define LLMC_BACKENDS_COMMON_QUANT_CALIBRATIONTABLE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llmc::quant {

/// The calibrated range of one activation tensor.
struct TensorRange {
  float min = 0;
  float max = 0;
  float threshold = 0;
};

/// How a float activation maps to 8-bit integers:
/// `q = clamp(round(x / scale) + zeroPoint, qmin, qmax)` (round half away
/// from zero, float32 division); `x' = (q - zeroPoint) * scale`.
struct ActivationQuant {
  /// Positive, a float32 value.
  float scale = 1;
  int32_t zeroPoint = 0;
  /// i8 [-128, 127] or u8 [0, 255].
  bool isSigned = true;
  int32_t qmin() const { return isSigned ? -128 : 0; }
  int32_t qmax() const { return isSigned ? 127 : 255; }
};

/// The 8-bit quantization of a tensor calibrated to `range`: symmetric,
/// scale = threshold / 127 and zero point 0; asymmetric (unsigned), the
/// range [min(min, 0), max(max, 0)] over 255 steps with the zero point that
/// keeps 0 exact. An empty range gets scale 1.
ActivationQuant getActivationQuant(const TensorRange &range, bool asymmetric);

class CalibrationTable {
public:
  /// Parses table `text`; errors name `fileName` and the line.
  static llvm::Expected<CalibrationTable> parse(llvm::StringRef text,
                                                llvm::StringRef fileName);
  /// Reads and parses the table at `path`.
  static llvm::Expected<CalibrationTable> read(llvm::StringRef path);

  /// Adds or replaces the entry of `name`.
  void set(llvm::StringRef name, const TensorRange &range);
  /// The entry of `name`, or null.
  const TensorRange *lookup(llvm::StringRef name) const;
  /// Names in the order they were added (a parsed table: file order).
  llvm::ArrayRef<std::string> getNames() const { return names; }
  bool empty() const { return names.empty(); }

  /// Writes the table, `header` first as `#` comment lines.
  void print(llvm::raw_ostream &os, llvm::StringRef header = "") const;

private:
  llvm::StringMap<TensorRange> entries;
  std::vector<std::string> names;
};

} // namespace llmc::quant

#endif // LLMC_BACKENDS_COMMON_QUANT_CALIBRATIONTABLE_H
