//===- QuantizationConfig.h - a checkpoint's quantization_config -*- C++ -*-===//
//
// Checkpoints made by GPTQ, AWQ, AutoRound or llm-compressor store their
// Linear weights packed into int32 words and describe the scheme in the
// `quantization_config` of config.json. This reads that description; which
// layers are quantized is read from the tensors themselves
// (PrequantizedWeights.h), so `modules_to_not_convert` and `ignore` lists
// need no interpretation.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_QUANTIZATIONCONFIG_H
#define LLMC_FRONTENDS_HF_QUANTIZATIONCONFIG_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace llmc::hf {

/// How the integers of a quantized Linear weight [N, K] are packed.
enum class PackingFormat {
  /// GPTQ (AutoGPTQ, GPTQModel, AutoRound's gptq packings): `qweight` int32
  /// [K * bits / 32, N] packed along K, `qzeros` int32 [groups, N * bits / 32]
  /// packed along N, `scales` [groups, N], `g_idx` int32 [K].
  Gptq,
  /// AWQ GEMM (AutoAWQ, AutoRound's awq packing): `qweight` int32
  /// [K, N / 8] packed along N in AWQ's nibble order, `qzeros` int32
  /// [groups, N / 8] likewise, `scales` [groups, N].
  Awq,
  /// compressed-tensors `pack-quantized`: `weight_packed` int32
  /// [N, K * bits / 32] packed along K, `weight_scale` [N, groups],
  /// `weight_zero_point` int32 [N * bits / 32, groups] packed along N (asymmetric
  /// only), optionally `weight_shape` and `weight_g_idx`. Integers are stored
  /// offset by 2^(bits-1).
  PackQuantized,
};

struct PackedQuantizationConfig {
  /// `quant_method` as written, for messages.
  std::string method;
  PackingFormat format = PackingFormat::Gptq;
  /// 4 or 8.
  int64_t bits = 4;
  /// Input channels per group; 0 means one group per output channel.
  int64_t groupSize = 128;
  bool symmetric = true;
  /// GPTQ v1 checkpoints (`checkpoint_format: gptq`, AutoGPTQ, AutoRound's
  /// `auto_gptq` packing) store every zero point minus one.
  bool zerosMinusOne = false;
};

/// The `quantization_config` of `config` (read from `file`), or std::nullopt
/// when it has none. Methods, packings, bit widths or activation
/// quantization llmc cannot compile as stored are errors naming the file and
/// the field.
llvm::Expected<std::optional<PackedQuantizationConfig>>
readQuantizationConfig(const llvm::json::Object &config, llvm::StringRef file);

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_QUANTIZATIONCONFIG_H
