//===- DerivedWeightName.h - names of tensors llmc derives -----*- C++ -*-===//
//
// Lowering turns a checkpoint tensor into tensors the chip reads: a weight
// rounded to f16, or a quantized weight with its scales and zero points.
// Those derived tensors are named after their source and how they derive
// from it, so a name alone says how to compute the bytes (from the original
// checkpoint, on demand), and equal names mean equal bytes (every piece that
// reads a derived tensor shares one copy in the binary):
//
//   <source>#<derivation>[.<part>]
//
//   derivation  f16 | bf16                          the source rounded
//             | w<bits>_<g<G>|ch>_<sym|asym|asymf>_<s>
//                                                   quantized: 4 or 8 bits,
//                                                   group G along K or per
//                                                   channel, integer (asym)
//                                                   or float (asymf, only
//                                                   stored checkpoints) zero
//                                                   points, scales stored
//                                                   as <s> (f32, f16, bf16)
//   part        qweight | scale | zp                a quantized weight's
//                                                   stored tensors
//
// e.g. `model.layers.0.mlp.up_proj.weight#w4_g64_asym_bf16.scale`. A
// quantized derivation without a part names the logical tensor, the
// dequantized float32 weight: the reference interpreter reads it. The `#`
// never occurs in Hugging Face or GGUF tensor names; the last one splits.
//
// A weight the checkpoint already stores quantized in exactly the scheme of
// a derivation (WeightSource::getStoredQuantization) derives by taking its
// stored integers, scales and zero points as they are: no requantization.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_QUANT_DERIVEDWEIGHTNAME_H
#define LLMC_BACKENDS_COMMON_QUANT_DERIVEDWEIGHTNAME_H

#include "backends/common/quant/GroupQuantizer.h"

#include <optional>
#include <string>

namespace llmc::quant {

/// How a derived tensor follows from its source.
struct Derivation {
  /// Set for a quantized weight.
  std::optional<QuantScheme> scheme;
  /// The type the source is rounded to, when not quantized.
  FloatType roundTo = FloatType::F32;

  static Derivation rounded(FloatType type) { return {std::nullopt, type}; }
  static Derivation quantized(QuantScheme scheme) { return {scheme}; }

  /// `f16`, `w4_g64_sym_f16`, ...
  std::string str() const;
  /// Parses str()'s output; std::nullopt for anything else (including
  /// `f32`, which derives nothing).
  static std::optional<Derivation> parse(llvm::StringRef text);

  bool operator==(const Derivation &other) const {
    return scheme == other.scheme && roundTo == other.roundTo;
  }
};

/// The stored tensors of a quantized weight.
enum class WeightPart { QWeight, Scale, ZeroPoint };
llvm::StringRef stringifyWeightPart(WeightPart part);

struct DerivedWeightName {
  std::string source;
  Derivation derivation;
  /// Only for quantized derivations; none names the dequantized tensor.
  std::optional<WeightPart> part;

  std::string str() const;
  /// Splits `name` at its last `#`; std::nullopt when it is not a derived
  /// name (no `#`, an unknown derivation or part, or a part of a rounded
  /// tensor).
  static std::optional<DerivedWeightName> parse(llvm::StringRef name);
};

} // namespace llmc::quant

#endif // LLMC_BACKENDS_COMMON_QUANT_DERIVEDWEIGHTNAME_H
