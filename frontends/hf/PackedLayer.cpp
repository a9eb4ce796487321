//===- PackedLayer.cpp - one pre-quantized Linear layer -------------------===//
//
// Bit layouts, as the reference packers write them (`bits` b, `32 / b`
// values per int32 word, the first value in the lowest bits):
// - GPTQ `qweight[k / 8, n]` holds q[n, k] at bits 4 (k % 8) (4-bit);
//   `qzeros[g, n / 8]` the zero of row n at bits 4 (n % 8). v1 stores zero-1.
// - AWQ `qweight[k, n / 8]` holds row n at bits 4 * kAwqNibble[n % 8], the
//   inverse of AutoAWQ's pack order [0, 2, 4, 6, 1, 3, 5, 7]; `qzeros` alike.
// - compressed-tensors `weight_packed[n, k / 8]` holds q[n, k] + 2^(b-1) at
//   bits 4 (k % 8); `weight_zero_point[n / 8, g]` zp[n, g] + 2^(b-1) at bits
//   4 (n % 8).
//
//===----------------------------------------------------------------------===//

#include "frontends/hf/PackedLayer.h"

#include "llvm/ADT/StringExtras.h"

#include <cstring>

using llmc::plugins::StoredQuantizedTensor;
using llmc::plugins::TensorInfo;
using llmc::plugins::WeightType;

namespace llmc::hf {
namespace {

constexpr int kAwqNibble[8] = {0, 4, 1, 5, 2, 6, 3, 7};

std::string printShape(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t dim) { return std::to_string(dim); }),
                    ", ") +
         "]";
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Value `index` of a row of words packing `bits`-bit values.
uint32_t extract(const uint32_t *row, int64_t index, int64_t bits) {
  int64_t perWord = 32 / bits;
  return (row[index / perWord] >> (bits * (index % perWord))) &
         ((1u << bits) - 1);
}

} // namespace

llvm::StringRef PackedLayer::getMarkerPart(PackingFormat format) {
  return format == PackingFormat::PackQuantized ? "weight_packed" : "qweight";
}

llvm::ArrayRef<llvm::StringRef> PackedLayer::getPartNames(PackingFormat format) {
  static const llvm::StringRef gptq[] = {"qweight", "qzeros", "scales",
                                         "g_idx"};
  static const llvm::StringRef packQuantized[] = {
      "weight_packed", "weight_scale", "weight_zero_point", "weight_shape",
      "weight_g_idx"};
  if (format == PackingFormat::PackQuantized)
    return packQuantized;
  return gptq;
}

llvm::Error PackedLayer::fail(llvm::StringRef name,
                              const llvm::Twine &problem) const {
  std::string tensor = part(name);
  llvm::StringRef file = source->getTensorFile(tensor);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      (file.empty() ? llvm::StringRef(source->describe()) : file) +
          ": tensor '" + tensor + "' (" + config.method + ", " +
          std::to_string(config.bits) + "-bit) " + problem);
}

llvm::Error PackedLayer::expect(llvm::StringRef name,
                                llvm::ArrayRef<int64_t> shape,
                                WeightType type) const {
  if (source->getTensorFile(part(name)).empty())
    return fail(name, "is missing");
  TensorInfo info = llvm::cantFail(source->getTensorInfo(part(name)));
  if (info.type != type)
    return fail(name, "has type " + plugins::stringifyWeightType(info.type) +
                          ", expected " + plugins::stringifyWeightType(type));
  if (llvm::ArrayRef<int64_t>(info.shape) != shape)
    return fail(name, "has shape " + printShape(info.shape) + ", expected " +
                          printShape(shape));
  return llvm::Error::success();
}

std::vector<uint32_t> PackedLayer::readWords(llvm::StringRef name) const {
  llvm::ArrayRef<uint8_t> bytes =
      llvm::cantFail(source->getTensorData(part(name)));
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

llvm::Expected<PackedLayer>
PackedLayer::open(const PackedQuantizationConfig &config,
                  const SafetensorsSource &source, llvm::StringRef prefix) {
  PackedLayer layer(config, source, prefix.str());
  int64_t bits = config.bits;
  int64_t perWord = 32 / bits;
  llvm::StringRef marker = getMarkerPart(config.format);
  TensorInfo packed = llvm::cantFail(source.getTensorInfo(layer.part(marker)));
  if (packed.type != WeightType::I32 || packed.shape.size() != 2)
    return layer.fail(marker, "must be a 2-d i32 tensor, got " +
                                  plugins::stringifyWeightType(packed.type) +
                                  " " + printShape(packed.shape));
  llvm::StringRef scales =
      config.format == PackingFormat::PackQuantized ? "weight_scale" : "scales";
  switch (config.format) {
  case PackingFormat::Gptq:
    layer.cols = packed.shape[0] * perWord;
    layer.rows = packed.shape[1];
    break;
  case PackingFormat::Awq:
    layer.cols = packed.shape[0];
    layer.rows = packed.shape[1] * perWord;
    break;
  case PackingFormat::PackQuantized: {
    layer.rows = packed.shape[0];
    layer.cols = packed.shape[1] * perWord;
    // The packed row is padded to whole words; `weight_shape` says how many
    // input channels it holds.
    if (!source.getTensorFile(layer.part("weight_shape")).empty()) {
      if (llvm::Error error = layer.expect("weight_shape", {2}, WeightType::I64))
        return std::move(error);
      int64_t shape[2];
      std::memcpy(shape,
                  llvm::cantFail(source.getTensorData(layer.part("weight_shape")))
                      .data(),
                  sizeof(shape));
      if (shape[0] != layer.rows || ceilDiv(shape[1], perWord) != packed.shape[1])
        return layer.fail("weight_shape",
                          "is " + printShape(shape) + ", which " + marker +
                              " " + printShape(packed.shape) +
                              " cannot hold");
      layer.cols = shape[1];
    }
    break;
  }
  }

  if (config.groupSize > 0 && layer.cols % config.groupSize != 0)
    return layer.fail(marker, "has " + std::to_string(layer.cols) +
                                  " input channels, which group size " +
                                  std::to_string(config.groupSize) +
                                  " does not divide");
  layer.groups = config.groupSize > 0 ? layer.cols / config.groupSize : 1;

  if (source.getTensorFile(layer.part(scales)).empty())
    return layer.fail(scales, "is missing");
  TensorInfo scaleInfo = llvm::cantFail(source.getTensorInfo(layer.part(scales)));
  if (scaleInfo.type != WeightType::F32 && scaleInfo.type != WeightType::F16 &&
      scaleInfo.type != WeightType::BF16)
    return layer.fail(scales, "has type " +
                                  plugins::stringifyWeightType(scaleInfo.type) +
                                  ", expected f32, f16 or bf16");

  llvm::Error error = llvm::Error::success();
  if (config.format == PackingFormat::PackQuantized) {
    error = layer.expect(scales, {layer.rows, layer.groups}, scaleInfo.type);
    if (!error && !config.symmetric)
      error = layer.expect("weight_zero_point",
                           {ceilDiv(layer.rows, perWord), layer.groups});
    if (!error && !source.getTensorFile(layer.part("weight_g_idx")).empty())
      error = layer.expect("weight_g_idx", {layer.cols});
  } else {
    error = layer.expect(scales, {layer.groups, layer.rows}, scaleInfo.type);
    if (!error && layer.rows % perWord != 0)
      error = layer.fail(marker, "has " + std::to_string(layer.rows) +
                                     " output channels, not a multiple of " +
                                     std::to_string(perWord));
    if (!error)
      error = layer.expect("qzeros", {layer.groups, layer.rows / perWord});
    if (!error && !source.getTensorFile(layer.part("g_idx")).empty())
      error = layer.expect("g_idx", {layer.cols});
  }
  if (error)
    return std::move(error);

  layer.quantization.bits = bits;
  layer.quantization.groupSize = config.groupSize;
  layer.quantization.asymmetric = !config.symmetric;
  layer.quantization.scaleType = scaleInfo.type;
  if (llvm::Error error = layer.readGroupIndex(
          config.format == PackingFormat::PackQuantized ? "weight_g_idx"
                                                        : "g_idx"))
    return std::move(error);
  return layer;
}

llvm::Error PackedLayer::readGroupIndex(llvm::StringRef name) {
  if (source->getTensorFile(part(name)).empty())
    return llvm::Error::success();
  std::vector<uint32_t> words = readWords(name);
  std::vector<int32_t> index(words.begin(), words.end());
  bool consecutive = true;
  for (int64_t k = 0; k < cols; ++k) {
    if (index[k] < 0 || index[k] >= groups)
      return fail(name, "puts input channel " + std::to_string(k) +
                            " in group " + std::to_string(index[k]) +
                            ", outside [0, " + std::to_string(groups) + ")");
    consecutive &= index[k] == (config.groupSize > 0 ? k / config.groupSize : 0);
  }
  if (!consecutive) {
    actOrderGroups = std::move(index);
    quantization.groupSize = 1;
  }
  return llvm::Error::success();
}

llvm::Expected<StoredQuantizedTensor> PackedLayer::unpackGroups() const {
  bool packQuantized = config.format == PackingFormat::PackQuantized;

  int64_t bits = config.bits;
  int64_t perWord = 32 / bits;
  uint32_t half = 1u << (bits - 1);
  uint32_t maximum = (1u << bits) - 1;
  StoredQuantizedTensor result;
  result.quantization = quantization;
  result.rows = rows;
  result.cols = cols;
  result.values.resize(rows * cols);
  result.scales.resize(rows * groups);

  // Unsigned integers first, in each format's layout.
  std::vector<uint32_t> words = readWords(getMarkerPart(config.format));
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t k = 0; k < cols; ++k) {
      uint32_t value;
      switch (config.format) {
      case PackingFormat::Gptq:
        value = (words[(k / perWord) * rows + n] >> (bits * (k % perWord))) &
                maximum;
        break;
      case PackingFormat::Awq:
        value = (words[k * (rows / 8) + n / 8] >> (4 * kAwqNibble[n % 8])) &
                maximum;
        break;
      case PackingFormat::PackQuantized:
        value = extract(words.data() + n * ceilDiv(cols, perWord), k, bits);
        break;
      }
      // Symmetric values are served signed, two's complement in a byte.
      result.values[n * cols + k] =
          static_cast<uint8_t>(config.symmetric ? value - half : value);
    }

  llvm::StringRef scales = packQuantized ? "weight_scale" : "scales";
  std::vector<float> stored(rows * groups);
  if (llvm::Error error = source->readAsF32(part(scales), stored))
    return std::move(error);
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t g = 0; g < groups; ++g)
      result.scales[n * groups + g] =
          packQuantized ? stored[n * groups + g] : stored[g * rows + n];

  if (packQuantized && config.symmetric)
    return result;
  llvm::StringRef zerosName = packQuantized ? "weight_zero_point" : "qzeros";
  std::vector<uint32_t> zeros = readWords(zerosName);
  if (!config.symmetric)
    result.zeroPoints.resize(rows * groups);
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t g = 0; g < groups; ++g) {
      uint32_t zero;
      if (packQuantized)
        zero = (zeros[(n / perWord) * groups + g] >> (bits * (n % perWord))) &
               maximum;
      else if (config.format == PackingFormat::Awq)
        zero = (zeros[g * (rows / 8) + n / 8] >> (4 * kAwqNibble[n % 8])) &
               maximum;
      else
        zero = extract(zeros.data() + g * (rows / perWord), n, bits);
      if (config.zerosMinusOne)
        ++zero;
      auto where = [&] {
        return " in group " + std::to_string(g) + " of output channel " +
               std::to_string(n);
      };
      if (config.symmetric && zero != half)
        return fail(zerosName, "holds zero point " + std::to_string(zero) +
                                   where() + "; a symmetric scheme's is " +
                                   std::to_string(half));
      if (zero > maximum)
        return fail(zerosName,
                    "holds zero point " + std::to_string(zero) + where() +
                        ", which " + std::to_string(bits) +
                        " bits cannot hold (a GPTQ v1 zero point of 0)");
      if (!config.symmetric)
        result.zeroPoints[n * groups + g] = static_cast<uint8_t>(zero);
    }
  return result;
}

llvm::Expected<StoredQuantizedTensor> PackedLayer::unpack() const {
  llvm::Expected<StoredQuantizedTensor> grouped = unpackGroups();
  if (!grouped || actOrderGroups.empty())
    return grouped;
  // One group per input channel, holding the parameters of its group.
  StoredQuantizedTensor result = std::move(*grouped);
  std::vector<float> scales(rows * cols);
  std::vector<uint8_t> zeroPoints(result.zeroPoints.empty() ? 0 : rows * cols);
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t k = 0; k < cols; ++k) {
      int64_t group = n * groups + actOrderGroups[k];
      scales[n * cols + k] = result.scales[group];
      if (!zeroPoints.empty())
        zeroPoints[n * cols + k] = result.zeroPoints[group];
    }
  result.scales = std::move(scales);
  result.zeroPoints = std::move(zeroPoints);
  return result;
}

} // namespace llmc::hf
