//===- WeightSource.h - named tensors of a model, read on demand -*- C++ -*-===//
//
// A frontend exposes a checkpoint's tensors through a WeightSource: names,
// element types and shapes up front, bytes only when asked for. Sources over
// files memory-map them, so nothing loads a whole model into memory; the
// returned byte ranges stay valid for the source's lifetime.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PLUGINS_WEIGHTSOURCE_H
#define LLMC_PLUGINS_WEIGHTSOURCE_H

#include "plugins/Float16.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmc::plugins {

/// Element types a checkpoint tensor may be stored in.
enum class WeightType { F32, F16, BF16, I8, I16, I32, I64, U8 };

/// `f32`, `f16`, `bf16`, ... for messages and IR.
llvm::StringRef stringifyWeightType(WeightType type);
/// Bytes per element.
int64_t getWeightTypeSize(WeightType type);

/// How a checkpoint stores a weight [N, K] quantized group-wise along K (a
/// GGUF Q8_0/Q4_0 tensor, a GPTQ or AWQ layer): each group of `groupSize`
/// consecutive elements of a row holds integers q with one scale and, when
/// asymmetric, one integer zero point zp, and stands for (q - zp) * scale.
struct StoredQuantization {
  /// 4 or 8.
  int64_t bits = 4;
  /// Elements per group along K; 0 means one group spans K (per channel).
  int64_t groupSize = 32;
  /// Symmetric values are signed ([-2^(bits-1), 2^(bits-1) - 1]) with no zero
  /// point; asymmetric ones are unsigned ([0, 2^bits - 1]).
  bool asymmetric = false;
  /// F32, F16 or BF16: the scales are exactly representable in it.
  WeightType scaleType = WeightType::F16;
  /// Asymmetric only: the zero points are floats, not integers (GGUF Q4_1,
  /// whose `d * q + m` is (q - (-m / d)) * d).
  bool floatZeroPoints = false;

  bool operator==(const StoredQuantization &other) const {
    return bits == other.bits && groupSize == other.groupSize &&
           asymmetric == other.asymmetric &&
           floatZeroPoints == other.floatZeroPoints &&
           scaleType == other.scaleType;
  }
};

/// A stored quantized weight, unpacked.
struct StoredQuantizedTensor {
  StoredQuantization quantization;
  int64_t rows = 0;
  int64_t cols = 0;
  /// [rows, cols] integers, one per byte: two's complement when symmetric.
  std::vector<uint8_t> values;
  /// [rows, groups] scales.
  std::vector<float> scales;
  /// [rows, groups] zero points; empty when symmetric or float.
  std::vector<uint8_t> zeroPoints;
  /// [rows, groups] float zero points (floatZeroPoints only).
  std::vector<float> floatZeroPoints;
};

struct TensorInfo {
  WeightType type = WeightType::F32;
  llvm::SmallVector<int64_t> shape;

  int64_t getNumElements() const;
  int64_t getNumBytes() const {
    return getNumElements() * getWeightTypeSize(type);
  }
};

class WeightSource {
public:
  virtual ~WeightSource();

  /// Every tensor name, sorted.
  virtual std::vector<std::string> getTensorNames() const = 0;
  /// The type and shape of `name`; an error naming the source and the tensor
  /// when it does not exist.
  virtual llvm::Expected<TensorInfo> getTensorInfo(llvm::StringRef name) const = 0;
  /// The stored bytes of `name` (little endian, row major), valid while the
  /// source lives.
  virtual llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const = 0;
  /// Where the tensors come from (a directory or file), for messages.
  virtual std::string describe() const = 0;

  /// How the checkpoint stores `name` when it is a quantized weight that
  /// compiles without requantization; std::nullopt for every other tensor
  /// (whose getTensorData are its values). A stored quantized tensor's
  /// getTensorData are its dequantized float32 values.
  virtual std::optional<StoredQuantization>
  getStoredQuantization(llvm::StringRef name) const;
  /// The stored integers, scales and zero points of `name`, for which
  /// getStoredQuantization is set.
  virtual llvm::Expected<StoredQuantizedTensor>
  getStoredQuantized(llvm::StringRef name) const;

  /// Converts tensor `name` of a floating-point or integer type to float32;
  /// `out` must hold exactly its element count.
  llvm::Error readAsF32(llvm::StringRef name,
                        llvm::MutableArrayRef<float> out) const;

  /// Tells the source its caller is done with tensor `name` and everything
  /// derived from it for now, so it may give back the memory they hold:
  /// caches of computed tensors, mapped pages (which read back from the
  /// file if asked for again). Bytes getTensorData returned for them before
  /// may no longer be valid. A hint: the default keeps everything.
  virtual void releaseTensor(llvm::StringRef name) const;
};

/// Converts `count` stored elements of `type` to float32.
void convertToF32(WeightType type, const uint8_t *data, int64_t count,
                  float *out);

/// A source with no tensors: what a piece that reads no weights runs on, or
/// the base of an overlay holding only generated tensors. `description`
/// names it in errors.
class EmptyWeightSource : public WeightSource {
public:
  explicit EmptyWeightSource(std::string description)
      : description(std::move(description)) {}

  std::vector<std::string> getTensorNames() const override { return {}; }
  llvm::Expected<TensorInfo> getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return description; }

private:
  std::string description;
};

/// A source over tensors that llmc computes itself (rotary tables, unpacked
/// quantization parameters), layered over a checkpoint's source: its own
/// tensors come first, everything else is looked up in `base`.
class OverlayWeightSource : public WeightSource {
public:
  explicit OverlayWeightSource(std::unique_ptr<WeightSource> base);

  /// Adds an F32 tensor. Names must be new to both this overlay and the base
  /// (generated names use the `llmc.` prefix).
  llvm::Error addTensor(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                        std::vector<float> values);

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<TensorInfo> getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override;
  std::optional<StoredQuantization>
  getStoredQuantization(llvm::StringRef name) const override;
  llvm::Expected<StoredQuantizedTensor>
  getStoredQuantized(llvm::StringRef name) const override;
  void releaseTensor(llvm::StringRef name) const override;

  const WeightSource &getBase() const { return *base; }

private:
  struct OwnedTensor {
    TensorInfo info;
    std::vector<float> values;
  };
  std::unique_ptr<WeightSource> base;
  llvm::StringMap<OwnedTensor> own;
};

} // namespace llmc::plugins

#endif // LLMC_PLUGINS_WEIGHTSOURCE_H
