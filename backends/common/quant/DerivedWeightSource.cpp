//===- DerivedWeightSource.cpp - derived tensors served by name -----------===//

#include "backends/common/quant/DerivedWeightSource.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace llmc::quant {

using plugins::TensorInfo;
using plugins::WeightType;

static llvm::Error sourceError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

DerivedWeightSource::DerivedWeightSource(const plugins::WeightSource &base)
    : base(base) {}

std::string DerivedWeightSource::describe() const {
  return base.describe() + " (with derived tensors)";
}

static WeightType storageOf(FloatType type) {
  switch (type) {
  case FloatType::F32: return WeightType::F32;
  case FloatType::F16: return WeightType::F16;
  case FloatType::BF16: return WeightType::BF16;
  }
  llvm_unreachable("unknown float type");
}

/// A weight of rank 2 or more as the matrix it quantizes as: its first
/// dimension's rows of all the rest (a convolution kernel [out, in, h, w]
/// as [out, in·h·w], as the graph reads it).
static std::pair<int64_t, int64_t> getMatrixShape(const TensorInfo &info) {
  int64_t cols = 1;
  for (int64_t dim : llvm::ArrayRef<int64_t>(info.shape).drop_front())
    cols *= dim;
  return {info.shape[0], cols};
}

llvm::Expected<TensorInfo>
DerivedWeightSource::getDerivedInfo(const DerivedWeightName &name) const {
  llvm::Expected<TensorInfo> source = base.getTensorInfo(name.source);
  if (!source)
    return source.takeError();
  TensorInfo info{WeightType::F32, source->shape};
  const std::optional<QuantScheme> &scheme = name.derivation.scheme;
  if (!scheme)
    return info;
  if (info.shape.size() < 2)
    return sourceError("cannot quantize '" + name.source + "' of " +
                       base.describe() + ": it has rank " +
                       llvm::Twine(info.shape.size()) + ", not [N, K]");
  auto [rows, cols] = getMatrixShape(info);
  if (llvm::Error error = checkScheme(*scheme, cols))
    return sourceError("cannot quantize '" + name.source + "': " +
                       llvm::toString(std::move(error)));
  int64_t groups = scheme->groupSize == 0 ? 1 : cols / scheme->groupSize;
  auto packedWidth = [&](int64_t width) {
    return scheme->bits == 4 ? (width + 1) / 2 : width;
  };
  if (!name.part)
    return info;
  switch (*name.part) {
  case WeightPart::QWeight:
    info.type = scheme->bits == 8 && !scheme->asymmetric ? WeightType::I8
                                                          : WeightType::U8;
    info.shape = {rows, packedWidth(cols)};
    break;
  case WeightPart::Scale:
    info.type = storageOf(scheme->scaleType);
    info.shape = {rows, groups};
    break;
  case WeightPart::ZeroPoint:
    info.type = scheme->floatZeroPoints ? WeightType::F32 : WeightType::U8;
    info.shape = {rows, scheme->floatZeroPoints ? groups : packedWidth(groups)};
    break;
  }
  return info;
}

llvm::Error DerivedWeightSource::addDerivedName(llvm::StringRef name) {
  std::optional<DerivedWeightName> parsed = DerivedWeightName::parse(name);
  if (!parsed)
    return sourceError("'" + name + "' is not a derived tensor name");
  llvm::Expected<TensorInfo> info = getDerivedInfo(*parsed);
  if (!info)
    return info.takeError();
  if (!llvm::is_contained(listed, name))
    listed.push_back(name.str());
  return llvm::Error::success();
}

std::vector<std::string> DerivedWeightSource::getTensorNames() const {
  std::vector<std::string> names = base.getTensorNames();
  names.insert(names.end(), listed.begin(), listed.end());
  llvm::sort(names);
  return names;
}

llvm::Expected<TensorInfo>
DerivedWeightSource::getTensorInfo(llvm::StringRef name) const {
  std::optional<DerivedWeightName> parsed = DerivedWeightName::parse(name);
  if (!parsed)
    return base.getTensorInfo(name);
  return getDerivedInfo(*parsed);
}

/// True when `stored` is `scheme` for a weight of `cols` columns.
static bool isStoredAs(const plugins::StoredQuantization &stored,
                       const QuantScheme &scheme, int64_t cols) {
  int64_t groupSize = stored.groupSize == cols ? 0 : stored.groupSize;
  return stored.bits == scheme.bits && groupSize == scheme.groupSize &&
         stored.asymmetric == scheme.asymmetric &&
         stored.floatZeroPoints == scheme.floatZeroPoints &&
         stored.scaleType == storageOf(scheme.scaleType);
}

/// A stored quantized weight as a QuantizedTensor of `scheme`, checked for
/// consistent sizes and values in range (a frontend's unpacking bug must not
/// reach a binary).
static llvm::Expected<QuantizedTensor>
fromStored(plugins::StoredQuantizedTensor stored, const QuantScheme &scheme) {
  QuantizedTensor result;
  result.rows = stored.rows;
  result.cols = stored.cols;
  result.scheme = scheme;
  result.groupSize = scheme.groupSize == 0 ? stored.cols : scheme.groupSize;
  result.groups = stored.cols / result.groupSize;
  size_t groupCount = result.rows * result.groups;
  if (stored.values.size() != size_t(result.rows * result.cols) ||
      stored.scales.size() != groupCount ||
      stored.zeroPoints.size() !=
          (scheme.asymmetric && !scheme.floatZeroPoints ? groupCount : 0) ||
      stored.floatZeroPoints.size() !=
          (scheme.floatZeroPoints ? groupCount : 0))
    return sourceError("its stored values, scales or zero points do not fit [" +
                       llvm::Twine(result.rows) + ", " +
                       llvm::Twine(result.cols) + "] in groups of " +
                       llvm::Twine(result.groupSize));
  result.values = std::move(stored.values);
  result.scales = std::move(stored.scales);
  result.zeroPoints = std::move(stored.zeroPoints);
  result.floatZeroPoints = std::move(stored.floatZeroPoints);
  for (float zeroPoint : result.floatZeroPoints)
    if (!std::isfinite(zeroPoint))
      return sourceError("stored zero point " + std::to_string(zeroPoint) +
                         " is not finite");
  for (int64_t row = 0; row < result.rows; ++row)
    for (int64_t col = 0; col < result.cols; ++col) {
      int64_t value = result.getValue(row, col);
      if (value < scheme.minValue() || value > scheme.maxValue())
        return sourceError("stored value " + llvm::Twine(value) +
                           " is out of the " + llvm::Twine(scheme.bits) +
                           "-bit range");
    }
  for (uint8_t zeroPoint : result.zeroPoints)
    if (zeroPoint > scheme.maxValue())
      return sourceError("stored zero point " + llvm::Twine(int(zeroPoint)) +
                         " is out of the " + llvm::Twine(scheme.bits) +
                         "-bit range");
  // Stored scales may be zero or negative (ggml's Q4_0 takes the sign of the
  // group's extreme value).
  for (float value : result.scales)
    if (!std::isfinite(value) ||
        roundToFloatType(value, scheme.scaleType) != value)
      return sourceError("stored scale " + std::to_string(value) +
                         " is not a finite " +
                         stringifyFloatType(scheme.scaleType));
  return std::move(result);
}

/// Quantizes float tensor `name` of `base` a block of rows at a time, so
/// its float32 copy never holds more than a block: a large vocabulary's
/// embedding is gigabytes as float32.
static llvm::Expected<QuantizedTensor>
quantizeByRows(const plugins::WeightSource &base, llvm::StringRef name,
               const TensorInfo &info, const QuantScheme &scheme) {
  constexpr int64_t kBlockElements = int64_t{1} << 22;
  auto [rows, cols] = getMatrixShape(info);
  llvm::Expected<llvm::ArrayRef<uint8_t>> data = base.getTensorData(name);
  if (!data)
    return data.takeError();
  int64_t elementBytes = plugins::getWeightTypeSize(info.type);
  if (static_cast<int64_t>(data->size()) != rows * cols * elementBytes)
    return sourceError("tensor '" + name + "' holds " +
                       llvm::Twine(data->size()) + " bytes, not " +
                       llvm::Twine(rows * cols * elementBytes));
  QuantizedTensor result;
  result.rows = rows;
  result.cols = cols;
  result.scheme = scheme;
  int64_t blockRows = std::max<int64_t>(1, kBlockElements / cols);
  std::vector<float> values;
  // At least one block, so an empty tensor gets its group layout too.
  int64_t first = 0;
  do {
    int64_t count = std::min(blockRows, rows - first);
    values.resize(count * cols);
    plugins::convertToF32(info.type,
                          data->data() + first * cols * elementBytes,
                          count * cols, values.data());
    llvm::Expected<QuantizedTensor> block =
        quantize(values, count, cols, scheme, first);
    if (!block)
      return block.takeError();
    if (first == 0) {
      result.groupSize = block->groupSize;
      result.groups = block->groups;
      result.values.reserve(rows * cols);
      result.scales.reserve(rows * result.groups);
      result.zeroPoints.reserve(block->zeroPoints.empty() ? 0
                                                          : rows * result.groups);
    }
    llvm::append_range(result.values, block->values);
    llvm::append_range(result.scales, block->scales);
    llvm::append_range(result.zeroPoints, block->zeroPoints);
    first += blockRows;
  } while (first < rows);
  return result;
}

llvm::Expected<const QuantizedTensor *>
DerivedWeightSource::getQuantized(const DerivedWeightName &name) const {
  DerivedWeightName logical{name.source, name.derivation, std::nullopt};
  std::string key = logical.str();
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = quantized.find(key);
    if (found != quantized.end())
      return &found->second;
  }
  // Quantized without the lock, so different weights quantize in parallel;
  // StringMap values stay where they are as the map grows.
  llvm::Expected<TensorInfo> info = base.getTensorInfo(name.source);
  if (!info)
    return info.takeError();
  const QuantScheme &scheme = *name.derivation.scheme;
  llvm::Expected<QuantizedTensor> result = QuantizedTensor();
  std::optional<plugins::StoredQuantization> stored =
      base.getStoredQuantization(name.source);
  auto [rows, cols] = getMatrixShape(*info);
  if (stored && isStoredAs(*stored, scheme, cols)) {
    llvm::Expected<plugins::StoredQuantizedTensor> tensor =
        base.getStoredQuantized(name.source);
    if (!tensor)
      return tensor.takeError();
    result = fromStored(std::move(*tensor), scheme);
  } else {
    result = quantizeByRows(base, name.source, *info, scheme);
  }
  if (!result)
    return sourceError("cannot quantize '" + name.source + "': " +
                       llvm::toString(result.takeError()));
  std::lock_guard<std::mutex> lock(mutex);
  return &quantized.try_emplace(key, std::move(*result)).first->second;
}

/// The little-endian bytes of `values` stored as `type`.
static std::vector<uint8_t> storeFloats(llvm::ArrayRef<float> values,
                                        FloatType type) {
  if (type == FloatType::F32) {
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  std::vector<uint8_t> bytes(values.size() * 2);
  for (auto [index, value] : llvm::enumerate(values)) {
    uint16_t bits = type == FloatType::F16 ? floatToHalf(value)
                                           : floatToBFloat16(value);
    bytes[2 * index] = bits & 0xff;
    bytes[2 * index + 1] = bits >> 8;
  }
  return bytes;
}

llvm::Expected<std::vector<uint8_t>>
DerivedWeightSource::computeBytes(const DerivedWeightName &name) const {
  if (!name.derivation.scheme) {
    llvm::Expected<TensorInfo> info = base.getTensorInfo(name.source);
    if (!info)
      return info.takeError();
    std::vector<float> values(info->getNumElements());
    if (llvm::Error error = base.readAsF32(name.source, values))
      return std::move(error);
    for (float &value : values)
      value = roundToFloatType(value, name.derivation.roundTo);
    return storeFloats(values, FloatType::F32);
  }
  llvm::Expected<const QuantizedTensor *> tensor = getQuantized(name);
  if (!tensor)
    return tensor.takeError();
  const QuantizedTensor &q = **tensor;
  if (!name.part)
    return storeFloats(dequantize(q), FloatType::F32);
  bool packed = q.scheme.bits == 4;
  switch (*name.part) {
  case WeightPart::QWeight:
    return packed ? packInt4(q.values, q.rows, q.cols) : q.values;
  case WeightPart::Scale:
    return storeFloats(q.scales, q.scheme.scaleType);
  case WeightPart::ZeroPoint:
    if (q.scheme.floatZeroPoints)
      return storeFloats(q.floatZeroPoints, FloatType::F32);
    return packed ? packInt4(q.zeroPoints, q.rows, q.groups) : q.zeroPoints;
  }
  llvm_unreachable("unknown weight part");
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
DerivedWeightSource::getTensorData(llvm::StringRef name) const {
  std::optional<DerivedWeightName> parsed = DerivedWeightName::parse(name);
  if (!parsed)
    return base.getTensorData(name);
  if (llvm::Expected<TensorInfo> info = getDerivedInfo(*parsed); !info)
    return info.takeError();
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = served.find(name);
    if (found != served.end())
      return llvm::ArrayRef<uint8_t>(found->second);
  }
  llvm::Expected<std::vector<uint8_t>> bytes = computeBytes(*parsed);
  if (!bytes)
    return bytes.takeError();
  // A racing caller may have served it first: both computed the same bytes.
  std::lock_guard<std::mutex> lock(mutex);
  return llvm::ArrayRef<uint8_t>(
      served.try_emplace(name, std::move(*bytes)).first->second);
}

void DerivedWeightSource::releaseTensor(llvm::StringRef name) const {
  auto derivedFrom = [&](llvm::StringRef key) {
    std::optional<DerivedWeightName> parsed = DerivedWeightName::parse(key);
    return parsed && parsed->source == name;
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = served.begin(); it != served.end();) {
      auto current = it++;
      if (derivedFrom(current->first()))
        served.erase(current);
    }
    for (auto it = quantized.begin(); it != quantized.end();) {
      auto current = it++;
      if (derivedFrom(current->first()))
        quantized.erase(current);
    }
  }
  base.releaseTensor(name);
}

} // namespace llmc::quant
