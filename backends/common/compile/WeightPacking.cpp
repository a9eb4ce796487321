//===- WeightPacking.cpp - weights as a binary stores them ----------------===//

#include "backends/common/compile/WeightPacking.h"

#include "backends/common/codegen/GlobalViews.h"
#include "backends/common/cmodel/DType.h"

#include "plugins/Float16.h"

#include <cstring>

namespace llmc::compile {

static llvm::Error packError(const plugins::WeightSource &weights,
                             llvm::StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 weights.describe() + ": weight '" + name +
                                     "': " + message);
}

std::string getDTypeName(mlir::RankedTensorType type) {
  llvm::Expected<cmd::DType> dtype = codegen::getDType(type.getElementType());
  if (!dtype) {
    llvm::consumeError(dtype.takeError());
    return "unknown";
  }
  return llvm::StringRef(cmodel::getDTypeName(*dtype)).lower();
}

llvm::Expected<std::vector<uint8_t>>
packWeight(const plugins::WeightSource &weights, llvm::StringRef name,
           mlir::RankedTensorType type) {
  llvm::Expected<cmd::DType> dtype = codegen::getDType(type.getElementType());
  if (!dtype)
    return packError(weights, name, llvm::toString(dtype.takeError()));
  llvm::Expected<plugins::TensorInfo> info = weights.getTensorInfo(name);
  if (!info)
    return info.takeError();
  int64_t elements = type.getNumElements();
  if (info->getNumElements() != elements &&
      !(cmodel::isQuantWeightDType(*dtype)))
    return packError(weights, name,
                     "has " + llvm::Twine(info->getNumElements()) +
                         " elements but the piece reads " +
                         llvm::Twine(elements));
  if (!cmodel::isFloatDType(*dtype)) {
    // Integer parts are stored as derived; check the size matches the type.
    llvm::Expected<llvm::ArrayRef<uint8_t>> data = weights.getTensorData(name);
    if (!data)
      return data.takeError();
    int64_t cols = type.getRank() ? type.getShape().back() : 1;
    int64_t expected = elements / std::max<int64_t>(cols, 1) *
                       cmodel::getDTypeBytes(*dtype, cols);
    if (static_cast<int64_t>(data->size()) != expected)
      return packError(weights, name,
                       "holds " + llvm::Twine(data->size()) +
                           " bytes but the piece reads " +
                           llvm::Twine(expected));
    return std::vector<uint8_t>(data->begin(), data->end());
  }
  std::vector<float> values(elements);
  if (llvm::Error error = weights.readAsF32(name, values))
    return std::move(error);
  std::vector<uint8_t> bytes(cmodel::getDTypeBytes(*dtype, elements));
  if (*dtype == cmd::DTYPE_F32) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  auto *out = reinterpret_cast<uint16_t *>(bytes.data());
  for (int64_t i = 0; i < elements; ++i)
    out[i] = *dtype == cmd::DTYPE_F16 ? llmc::floatToHalf(values[i])
                                      : llmc::floatToBFloat16(values[i]);
  return bytes;
}

} // namespace llmc::compile
