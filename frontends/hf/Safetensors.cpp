//===- Safetensors.cpp - memory-mapped safetensors weights ----------------===//
//
// The format: an 8-byte little-endian header length N, N bytes of JSON that
// map each tensor name to {dtype, shape, data_offsets: [begin, end]} (offsets
// relative to the data section that follows the header), optionally a
// `__metadata__` object of strings, then the data section. Every header field
// is checked against the file before any tensor is handed out, so a corrupt
// or truncated file is an error here rather than a wild read later.
//
//===----------------------------------------------------------------------===//

#include "frontends/hf/Safetensors.h"

#include "frontends/common/ContainedPath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <sys/mman.h>

#include <map>
#include <optional>
#include <tuple>

using llmc::plugins::TensorInfo;
using llmc::plugins::WeightType;

namespace llmc::hf {
namespace {

/// The largest header the format's reference reader accepts (safetensors'
/// MAX_HEADER_SIZE): JSON beyond it is refused before it is parsed.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

llvm::Error fail(llvm::StringRef file, const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 file + ": " + problem);
}

llvm::Error failTensor(llvm::StringRef file, llvm::StringRef tensor,
                       const llvm::Twine &problem) {
  return fail(file, "tensor '" + tensor + "': " + problem);
}

/// Safetensors dtype names; the integer types are accepted for quantized
/// checkpoints, whose scales and packed values are stored as integers.
std::optional<WeightType> parseDtype(llvm::StringRef dtype) {
  return llvm::StringSwitch<std::optional<WeightType>>(dtype)
      .Case("F32", WeightType::F32)
      .Case("F16", WeightType::F16)
      .Case("BF16", WeightType::BF16)
      .Case("I8", WeightType::I8)
      .Case("I16", WeightType::I16)
      .Case("I32", WeightType::I32)
      .Case("I64", WeightType::I64)
      .Case("U8", WeightType::U8)
      .Default(std::nullopt);
}

std::string printJson(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

/// One validated header entry; offsets are relative to the data section.
struct Entry {
  std::string name;
  TensorInfo info;
  uint64_t begin = 0;
  uint64_t end = 0;
};

llvm::Expected<Entry> parseEntry(llvm::StringRef file, llvm::StringRef name,
                                 const llvm::json::Value &value,
                                 uint64_t dataSize) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return failTensor(file, name, "the header entry is not a JSON object");
  Entry entry;
  entry.name = name.str();

  std::optional<llvm::StringRef> dtype = object->getString("dtype");
  if (!dtype)
    return failTensor(file, name, "missing 'dtype' string");
  std::optional<WeightType> type = parseDtype(*dtype);
  if (!type)
    return failTensor(file, name, "unsupported dtype '" + *dtype + "'");
  entry.info.type = *type;

  const llvm::json::Value *shapeValue = object->get("shape");
  const llvm::json::Array *shape =
      shapeValue ? shapeValue->getAsArray() : nullptr;
  if (!shape)
    return failTensor(file, name, "missing 'shape' array");
  std::optional<int64_t> numBytes = plugins::getWeightTypeSize(*type);
  for (const llvm::json::Value &dim : *shape) {
    std::optional<int64_t> size = dim.getAsInteger();
    if (!size || *size < 0)
      return failTensor(file, name,
                        "shape " + printJson(*shapeValue) +
                            " must hold non-negative integers");
    entry.info.shape.push_back(*size);
    numBytes = numBytes ? llvm::checkedMul(*numBytes, *size) : std::nullopt;
  }
  if (!numBytes)
    return failTensor(file, name,
                      "shape " + printJson(*shapeValue) + " is too large");

  const llvm::json::Value *offsetsValue = object->get("data_offsets");
  const llvm::json::Array *offsets =
      offsetsValue ? offsetsValue->getAsArray() : nullptr;
  std::optional<uint64_t> begin, end;
  if (offsets && offsets->size() == 2) {
    begin = (*offsets)[0].getAsUINT64();
    end = (*offsets)[1].getAsUINT64();
  }
  if (!begin || !end)
    return failTensor(file, name,
                      "'data_offsets' must be two non-negative integers");
  auto range = [&] { return "data_offsets " + printJson(*offsetsValue); };
  if (*begin > *end)
    return failTensor(file, name, range() + " begin after they end");
  if (*end > dataSize)
    return failTensor(file, name,
                      range() + " exceed the data section (" +
                          llvm::Twine(dataSize) + " bytes)");
  if (*end - *begin != static_cast<uint64_t>(*numBytes))
    return failTensor(file, name,
                      range() + " hold " + llvm::Twine(*end - *begin) +
                          " bytes, but dtype " + *dtype + " and shape " +
                          printJson(*shapeValue) + " need " +
                          llvm::Twine(*numBytes));
  entry.begin = *begin;
  entry.end = *end;
  return entry;
}

/// Two tensors sharing bytes would alias silently (and make a hand-edited
/// or corrupt header look valid), so they are rejected.
llvm::Error checkDisjoint(llvm::StringRef file, std::vector<Entry> &entries) {
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
  });
  const Entry *reach = nullptr;
  for (const Entry &entry : entries) {
    if (entry.begin == entry.end)
      continue;
    if (reach && entry.begin < reach->end)
      return fail(file, "tensors '" + reach->name + "' (data_offsets [" +
                            llvm::Twine(reach->begin) + "," +
                            llvm::Twine(reach->end) + "]) and '" + entry.name +
                            "' (data_offsets [" + llvm::Twine(entry.begin) +
                            "," + llvm::Twine(entry.end) +
                            "]) overlap in the data section");
    if (!reach || entry.end > reach->end)
      reach = &entry;
  }
  return llvm::Error::success();
}

/// Validates the header of `contents` (a whole safetensors file) and returns
/// its entries and the offset of the data section.
llvm::Expected<std::pair<std::vector<Entry>, uint64_t>>
parseHeader(llvm::StringRef file, llvm::StringRef contents) {
  if (contents.size() < 8)
    return fail(file, "truncated: " + llvm::Twine(contents.size()) +
                          " bytes cannot hold the 8-byte header length");
  uint64_t headerSize = llvm::support::endian::read64le(contents.data());
  uint64_t available = contents.size() - 8;
  if (headerSize > kMaxHeaderBytes)
    return fail(file, "header length " + llvm::Twine(headerSize) +
                          " exceeds the format's limit of " +
                          llvm::Twine(kMaxHeaderBytes) + " bytes");
  if (headerSize > available)
    return fail(file, "header length " + llvm::Twine(headerSize) +
                          " exceeds the file (" + llvm::Twine(contents.size()) +
                          " bytes)");
  llvm::Expected<llvm::json::Value> header =
      llvm::json::parse(contents.substr(8, headerSize));
  if (!header)
    return fail(file, "the header is not valid JSON: " +
                          llvm::toString(header.takeError()));
  const llvm::json::Object *root = header->getAsObject();
  if (!root)
    return fail(file, "the header is not a JSON object");

  // Sorted, so the first error reported does not depend on hashing.
  std::vector<llvm::StringRef> names;
  for (const auto &member : *root)
    if (member.first != "__metadata__")
      names.push_back(member.first);
  llvm::sort(names);

  uint64_t dataSize = available - headerSize;
  std::vector<Entry> entries;
  for (llvm::StringRef name : names) {
    llvm::Expected<Entry> entry =
        parseEntry(file, name, *root->get(name), dataSize);
    if (!entry)
      return entry.takeError();
    entries.push_back(std::move(*entry));
  }
  if (llvm::Error error = checkDisjoint(file, entries))
    return std::move(error);
  return std::make_pair(std::move(entries), 8 + headerSize);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
openBuffer(llvm::StringRef path) {
  // No null terminator, so LLVM maps large files instead of copying them.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(path, "cannot read: " + buffer.getError().message());
  return std::move(*buffer);
}

} // namespace

//===----------------------------------------------------------------------===//
// SafetensorsSource
//===----------------------------------------------------------------------===//

llvm::Expected<llvm::StringMap<SafetensorsSource::Tensor>>
SafetensorsSource::mapFile(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = openBuffer(path);
  if (!buffer)
    return buffer.takeError();
  llvm::StringRef contents = (*buffer)->getBuffer();
  auto header = parseHeader(path, contents);
  if (!header)
    return header.takeError();

  auto bytes = llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(contents.data()), contents.size());
  uint64_t dataStart = header->second;
  llvm::StringMap<Tensor> parsed;
  for (Entry &entry : header->first) {
    Tensor tensor;
    tensor.info = std::move(entry.info);
    tensor.file = files.size();
    tensor.data = bytes.slice(dataStart + entry.begin, entry.end - entry.begin);
    parsed.try_emplace(entry.name, std::move(tensor));
  }
  files.push_back({path.str(), std::move(*buffer)});
  return parsed;
}

llvm::Expected<std::unique_ptr<SafetensorsSource>>
SafetensorsSource::openFile(llvm::StringRef path) {
  std::unique_ptr<SafetensorsSource> source(new SafetensorsSource(path.str()));
  llvm::Expected<llvm::StringMap<Tensor>> tensors = source->mapFile(path);
  if (!tensors)
    return tensors.takeError();
  source->tensors = std::move(*tensors);
  return source;
}

llvm::Expected<std::unique_ptr<SafetensorsSource>>
SafetensorsSource::openSharded(llvm::StringRef indexPath) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text =
      openBuffer(indexPath);
  if (!text)
    return text.takeError();
  llvm::Expected<llvm::json::Value> index =
      llvm::json::parse((*text)->getBuffer());
  if (!index)
    return fail(indexPath,
                "not valid JSON: " + llvm::toString(index.takeError()));
  const llvm::json::Object *root = index->getAsObject();
  const llvm::json::Object *weightMap =
      root ? root->getObject("weight_map") : nullptr;
  if (!weightMap)
    return fail(indexPath, "missing 'weight_map' object");
  if (weightMap->empty())
    return fail(indexPath, "'weight_map' lists no tensors");

  // Shard name -> the tensors the index places in it; ordered, so shards are
  // mapped and errors reported in a stable order.
  std::map<std::string, std::vector<std::string>> shards;
  for (const auto &[name, shard] : *weightMap) {
    std::optional<llvm::StringRef> shardName = shard.getAsString();
    if (!shardName || shardName->empty())
      return fail(indexPath, "weight_map entry for tensor '" + name.str() +
                                 "' is not a file name");
    if (!frontends::isContainedPath(*shardName))
      return fail(indexPath, "weight_map entry for tensor '" + name.str() +
                                 "' names '" + *shardName +
                                 "', outside the checkpoint's directory");
    shards[shardName->str()].push_back(name.str());
  }

  std::unique_ptr<SafetensorsSource> source(
      new SafetensorsSource(indexPath.str()));
  llvm::StringRef directory = llvm::sys::path::parent_path(indexPath);
  for (auto &[shardName, names] : shards) {
    llvm::sort(names);
    llvm::SmallString<256> shardPath(directory);
    llvm::sys::path::append(shardPath, shardName);
    llvm::Expected<llvm::StringMap<Tensor>> parsed = source->mapFile(shardPath);
    if (!parsed)
      return fail(indexPath, "shard '" + shardName + "' of tensor '" +
                                 names.front() +
                                 "': " + llvm::toString(parsed.takeError()));
    for (const std::string &name : names) {
      auto it = parsed->find(name);
      if (it == parsed->end())
        return failTensor(shardPath, name,
                          "listed in " + indexPath +
                              " but missing from this shard");
      source->tensors.try_emplace(name, std::move(it->second));
    }
  }
  return source;
}

std::vector<std::string> SafetensorsSource::getTensorNames() const {
  std::vector<std::string> names;
  names.reserve(tensors.size());
  for (const auto &entry : tensors)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

llvm::Expected<TensorInfo>
SafetensorsSource::getTensorInfo(llvm::StringRef name) const {
  auto it = tensors.find(name);
  if (it == tensors.end())
    return fail(description, "no tensor '" + name + "'");
  return it->second.info;
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
SafetensorsSource::getTensorData(llvm::StringRef name) const {
  auto it = tensors.find(name);
  if (it == tensors.end())
    return fail(description, "no tensor '" + name + "'");
  return it->second.data;
}

void SafetensorsSource::releaseTensor(llvm::StringRef name) const {
  auto it = tensors.find(name);
  if (it == tensors.end() || it->second.data.empty())
    return;
  // A small file is read into the heap, where dropping pages would zero
  // them: only mapped files give pages back.
  if (files[it->second.file].buffer->getBufferKind() !=
      llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  // Only pages the tensor covers entirely: its neighbours may be in use.
  uint64_t page = llvm::sys::Process::getPageSizeEstimate();
  auto begin = reinterpret_cast<uintptr_t>(it->second.data.begin());
  auto end = reinterpret_cast<uintptr_t>(it->second.data.end());
  uintptr_t first = llvm::alignTo(begin, page), last = llvm::alignDown(end, page);
  if (first < last)
    ::madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
}

llvm::StringRef SafetensorsSource::getTensorFile(llvm::StringRef name) const {
  auto it = tensors.find(name);
  if (it == tensors.end())
    return {};
  return files[it->second.file].path;
}

} // namespace llmc::hf
