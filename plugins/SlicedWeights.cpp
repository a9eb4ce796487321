//===- SlicedWeights.cpp - tensors made of another tensor's rows ----------===//

#include "plugins/SlicedWeights.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

namespace llmc::plugins {

int64_t RowSlice::getRows() const {
  int64_t rows = 0;
  for (auto [first, count] : rowRanges)
    rows += count;
  return rows;
}

std::string getSliceName(llvm::StringRef fused, llvm::StringRef part) {
  return (fused + ":" + part).str();
}

llvm::StringRef getStoredTensorName(const WeightSource &weights,
                                    llvm::StringRef name) {
  auto *sliced = dynamic_cast<const SlicedWeightSource *>(&weights);
  const RowSlice *slice = sliced ? sliced->findSlice(name) : nullptr;
  return slice ? llvm::StringRef(slice->source) : name;
}

static llvm::Error sliceError(const WeightSource &base, const RowSlice &slice,
                              const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 base.describe() + ": tensor '" + slice.name +
                                     "' (rows of '" + slice.source + "') " +
                                     problem);
}

SlicedWeightSource::SlicedWeightSource(std::unique_ptr<WeightSource> base,
                                       std::vector<RowSlice> slices)
    : base(std::move(base)), slices(std::move(slices)) {
  for (size_t i = 0; i < this->slices.size(); ++i)
    sliceIndex[this->slices[i].name] = i;
}

llvm::Expected<std::unique_ptr<SlicedWeightSource>>
SlicedWeightSource::create(std::unique_ptr<WeightSource> base,
                           std::vector<RowSlice> slices) {
  llvm::StringMap<bool> names;
  // A fused tensor's parts must take all of it: rows left over mean the
  // checkpoint holds more than its config says.
  llvm::StringMap<int64_t> rowsTaken;
  for (const RowSlice &slice : slices) {
    llvm::Expected<TensorInfo> source = base->getTensorInfo(slice.source);
    if (!source) {
      llvm::consumeError(source.takeError());
      return sliceError(*base, slice, "cannot be made: the checkpoint has no "
                                      "tensor '" +
                                          slice.source + "'");
    }
    if (source->shape.empty())
      return sliceError(*base, slice, "cannot be made: the source is a "
                                      "scalar");
    for (auto [first, count] : slice.rowRanges)
      if (first < 0 || count <= 0 || first > source->shape[0] - count)
        return sliceError(*base, slice,
                          "needs rows [" + llvm::Twine(first) + ", " +
                              llvm::Twine(first + count) + ") of " +
                              llvm::Twine(source->shape[0]));
    llvm::Expected<TensorInfo> clash = base->getTensorInfo(slice.name);
    if (clash || !names.try_emplace(slice.name, true).second) {
      if (!clash)
        llvm::consumeError(clash.takeError());
      return sliceError(*base, slice, "is named twice");
    }
    llvm::consumeError(clash.takeError());
    rowsTaken[slice.source] += slice.getRows();
  }
  for (const auto &[source, rows] : rowsTaken) {
    int64_t stored = llvm::cantFail(base->getTensorInfo(source)).shape[0];
    if (rows != stored)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          base->describe() + ": tensor '" + source + "' has " +
              llvm::Twine(stored) + " rows; its parts take " +
              llvm::Twine(rows));
  }
  return std::unique_ptr<SlicedWeightSource>(
      new SlicedWeightSource(std::move(base), std::move(slices)));
}

const RowSlice *SlicedWeightSource::findSlice(llvm::StringRef name) const {
  auto it = sliceIndex.find(name);
  return it == sliceIndex.end() ? nullptr : &slices[it->second];
}

std::vector<std::string> SlicedWeightSource::getTensorNames() const {
  std::vector<std::string> names = base->getTensorNames();
  for (const RowSlice &slice : slices)
    names.push_back(slice.name);
  llvm::sort(names);
  return names;
}

llvm::Expected<TensorInfo>
SlicedWeightSource::getTensorInfo(llvm::StringRef name) const {
  const RowSlice *slice = findSlice(name);
  if (!slice)
    return base->getTensorInfo(name);
  llvm::Expected<TensorInfo> info = base->getTensorInfo(slice->source);
  if (info)
    info->shape[0] = slice->getRows();
  return info;
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
SlicedWeightSource::getTensorData(llvm::StringRef name) const {
  const RowSlice *slice = findSlice(name);
  if (!slice)
    return base->getTensorData(name);
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<std::vector<uint8_t>> &copy = copies[name];
  if (!copy) {
    llvm::Expected<TensorInfo> info = base->getTensorInfo(slice->source);
    if (!info)
      return info.takeError();
    llvm::Expected<llvm::ArrayRef<uint8_t>> source =
        base->getTensorData(slice->source);
    if (!source)
      return source.takeError();
    size_t rowBytes = source->size() / info->shape[0];
    auto bytes = std::make_unique<std::vector<uint8_t>>();
    bytes->reserve(rowBytes * slice->getRows());
    for (auto [first, count] : slice->rowRanges) {
      const uint8_t *begin = source->data() + first * rowBytes;
      bytes->insert(bytes->end(), begin, begin + count * rowBytes);
    }
    copy = std::move(bytes);
  }
  return llvm::ArrayRef<uint8_t>(*copy);
}

std::optional<StoredQuantization>
SlicedWeightSource::getStoredQuantization(llvm::StringRef name) const {
  const RowSlice *slice = findSlice(name);
  return base->getStoredQuantization(slice ? llvm::StringRef(slice->source)
                                           : name);
}

/// The rows `slice` takes of a [rows, width] table.
template <typename T>
static std::vector<T> takeRows(const std::vector<T> &table, int64_t rows,
                               const RowSlice &slice) {
  if (table.empty())
    return {};
  size_t width = table.size() / rows;
  std::vector<T> result;
  result.reserve(width * slice.getRows());
  for (auto [first, count] : slice.rowRanges)
    result.insert(result.end(), table.begin() + first * width,
                  table.begin() + (first + count) * width);
  return result;
}

llvm::Expected<StoredQuantizedTensor>
SlicedWeightSource::getStoredQuantized(llvm::StringRef name) const {
  const RowSlice *slice = findSlice(name);
  if (!slice)
    return base->getStoredQuantized(name);
  llvm::Expected<StoredQuantizedTensor> fused =
      base->getStoredQuantized(slice->source);
  if (!fused)
    return fused.takeError();
  StoredQuantizedTensor part;
  part.quantization = fused->quantization;
  part.rows = slice->getRows();
  part.cols = fused->cols;
  part.values = takeRows(fused->values, fused->rows, *slice);
  part.scales = takeRows(fused->scales, fused->rows, *slice);
  part.zeroPoints = takeRows(fused->zeroPoints, fused->rows, *slice);
  part.floatZeroPoints = takeRows(fused->floatZeroPoints, fused->rows, *slice);
  return part;
}

void SlicedWeightSource::releaseTensor(llvm::StringRef name) const {
  const RowSlice *slice = findSlice(name);
  if (!slice)
    return base->releaseTensor(name);
  {
    std::lock_guard<std::mutex> lock(mutex);
    copies.erase(name);
  }
  base->releaseTensor(slice->source);
}

} // namespace llmc::plugins
