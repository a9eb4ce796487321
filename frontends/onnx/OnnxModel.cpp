//===- OnnxModel.cpp - an ONNX model file and its initializers ------------===//

#include "frontends/onnx/OnnxModel.h"

#include "frontends/common/ContainedPath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Path.h"

#include "google/protobuf/io/coded_stream.h"

#include <climits>
#include <cstring>

namespace llmc::onnx {

using plugins::TensorInfo;
using plugins::WeightType;

static llvm::Error modelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The element type of an ONNX TensorProto data type llmc reads.
static std::optional<WeightType> getWeightType(int32_t dataType) {
  switch (dataType) {
  case ::onnx::TensorProto::FLOAT:
    return WeightType::F32;
  case ::onnx::TensorProto::FLOAT16:
    return WeightType::F16;
  case ::onnx::TensorProto::BFLOAT16:
    return WeightType::BF16;
  case ::onnx::TensorProto::INT8:
    return WeightType::I8;
  case ::onnx::TensorProto::UINT8:
    return WeightType::U8;
  case ::onnx::TensorProto::INT16:
    return WeightType::I16;
  case ::onnx::TensorProto::INT32:
    return WeightType::I32;
  case ::onnx::TensorProto::INT64:
    return WeightType::I64;
  default:
    return std::nullopt;
  }
}

llvm::Expected<std::unique_ptr<OnnxModel>>
OnnxModel::open(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return modelError(path + ": " + buffer.getError().message());
  return parse(**buffer);
}

llvm::Expected<std::unique_ptr<OnnxModel>>
OnnxModel::parse(llvm::MemoryBufferRef buffer) {
  llvm::StringRef path = buffer.getBufferIdentifier();
  std::unique_ptr<OnnxModel> model(new OnnxModel(path.str()));
  // protobuf reads at most INT_MAX bytes; larger models keep their weights
  // in external data files, as ONNX's own exporter writes them.
  if (buffer.getBufferSize() > size_t(INT_MAX))
    return modelError(path + ": " + llvm::Twine(buffer.getBufferSize()) +
                      " bytes, more than protobuf's limit of " +
                      llvm::Twine(INT_MAX) +
                      " for one message; store the weights as external data");
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(buffer.getBufferStart()),
      static_cast<int>(buffer.getBufferSize()));
  stream.SetTotalBytesLimit(INT_MAX);
  if (!model->proto.ParseFromCodedStream(&stream) ||
      !stream.ConsumedEntireMessage())
    return modelError(path +
                      ": not an ONNX model (the protobuf does not parse)");
  if (!model->proto.has_graph())
    return modelError(path + ": the ONNX model has no graph");
  for (const ::onnx::OperatorSetIdProto &opset : model->proto.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      model->opsetVersion = opset.version();
  if (model->opsetVersion == 0)
    return modelError(path + ": the model imports no ai.onnx opset");
  for (const ::onnx::TensorProto &tensor : model->getGraph().initializer())
    if (llvm::Error error = model->indexInitializer(tensor))
      return std::move(error);
  return std::move(model);
}

llvm::Error OnnxModel::indexInitializer(const ::onnx::TensorProto &tensor) {
  auto fail = [&](const llvm::Twine &problem) {
    return modelError(path + ": initializer '" + tensor.name() + "' " +
                      problem);
  };
  if (tensor.name().empty())
    return modelError(path + ": an initializer has no name");
  std::optional<WeightType> type = getWeightType(tensor.data_type());
  if (!type)
    return fail("has ONNX data type " + llvm::Twine(tensor.data_type()) +
                ", which llmc does not read");
  TensorInfo info;
  info.type = *type;
  // Counted with overflow checks: the dimensions are the file's word.
  int64_t bytes = getWeightTypeSize(*type);
  for (int64_t dim : tensor.dims()) {
    if (dim < 0)
      return fail("has a negative dimension");
    std::optional<int64_t> product = llvm::checkedMul(bytes, dim);
    if (!product)
      return fail("has dimensions whose product overflows int64");
    bytes = *product;
    info.shape.push_back(dim);
  }
  llvm::ArrayRef<uint8_t> data;
  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL) {
    llvm::Expected<llvm::ArrayRef<uint8_t>> external =
        getExternalBytes(tensor, bytes);
    if (!external)
      return external.takeError();
    data = *external;
  } else if (tensor.has_raw_data()) {
    data = llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(tensor.raw_data().data()),
        tensor.raw_data().size());
  } else {
    // The typed fields: float_data for FLOAT, int64_data for INT64, and
    // int32_data for every narrower integer and the 16-bit floats.
    // The values are counted before anything is sized by the shape.
    int64_t count = info.getNumElements(), size = getWeightTypeSize(*type);
    int64_t available = *type == WeightType::F32   ? tensor.float_data_size()
                        : *type == WeightType::I64 ? tensor.int64_data_size()
                                                   : tensor.int32_data_size();
    if (available != count)
      return fail("holds " + llvm::Twine(available) + " values, its shape " +
                  llvm::Twine(count));
    std::vector<uint8_t> owned(bytes);
    for (int64_t i = 0; i < count; ++i) {
      if (*type == WeightType::F32) {
        float value = tensor.float_data(i);
        std::memcpy(&owned[i * 4], &value, 4);
      } else if (*type == WeightType::I64) {
        int64_t value = tensor.int64_data(i);
        std::memcpy(&owned[i * 8], &value, 8);
      } else {
        int32_t value = tensor.int32_data(i);
        std::memcpy(&owned[i * size], &value, size); // little endian
      }
    }
    converted.push_back(std::move(owned));
    data = converted.back();
  }
  if (static_cast<int64_t>(data.size()) != bytes)
    return fail("holds " + llvm::Twine(data.size()) +
                " bytes, its type and "
                "shape need " +
                llvm::Twine(bytes));
  if (!tensors.try_emplace(tensor.name(), Tensor{info, data}).second)
    return fail("is defined twice");
  return llvm::Error::success();
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
OnnxModel::getExternalBytes(const ::onnx::TensorProto &tensor,
                            int64_t expected) {
  auto fail = [&](const llvm::Twine &problem) {
    return modelError(path + ": initializer '" + tensor.name() + "' " +
                      problem);
  };
  std::string location;
  int64_t offset = 0, length = -1;
  for (const ::onnx::StringStringEntryProto &entry : tensor.external_data()) {
    llvm::StringRef value = entry.value();
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" && value.getAsInteger(10, offset))
      return fail("has external offset '" + value + "', not a number");
    else if (entry.key() == "length" && value.getAsInteger(10, length))
      return fail("has external length '" + value + "', not a number");
  }
  if (location.empty())
    return fail("is external but names no location");
  if (!frontends::isContainedPath(location))
    return fail("has external location '" + location +
                "' outside the model's directory");
  if (length < 0)
    length = expected;
  auto &file = externalFiles[location];
  if (!file) {
    llvm::SmallString<256> full = llvm::sys::path::parent_path(path);
    llvm::sys::path::append(full, location);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(full, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("reads external file " + full + ": " +
                  buffer.getError().message());
    file = std::move(*buffer);
  }
  int64_t size = file->getBufferSize();
  if (offset < 0 || length > size || offset > size - length)
    return fail("reads bytes [" + llvm::Twine(offset) + ", " +
                llvm::Twine(offset + length) + ") of '" + location +
                "', which has " + llvm::Twine(size));
  return llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(file->getBufferStart()) + offset,
      length);
}

bool OnnxModel::addComputedTensor(llvm::StringRef name,
                                  llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<float> values) {
  if (tensors.count(name))
    return false;
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  converted.push_back(std::move(bytes));
  TensorInfo info;
  info.type = WeightType::F32;
  info.shape.assign(shape.begin(), shape.end());
  tensors.try_emplace(name, Tensor{info, converted.back()});
  return true;
}

std::vector<std::string> OnnxModel::getTensorNames() const {
  std::vector<std::string> names;
  for (const auto &entry : tensors)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

llvm::Expected<TensorInfo>
OnnxModel::getTensorInfo(llvm::StringRef name) const {
  auto found = tensors.find(name);
  if (found == tensors.end())
    return modelError(path + ": no initializer '" + name + "'");
  return found->second.info;
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
OnnxModel::getTensorData(llvm::StringRef name) const {
  auto found = tensors.find(name);
  if (found == tensors.end())
    return modelError(path + ": no initializer '" + name + "'");
  return found->second.bytes;
}

} // namespace llmc::onnx
