//===- GgufFile.cpp - a memory-mapped GGUF file ---------------------------===//
//
// The parser trusts no count or length in the file: before anything is read
// or allocated it is checked against the bytes that remain, and sizes are
// computed with overflow checks, so a corrupt or hostile file is an error
// that names the file and the key or tensor, never a wild read.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

namespace llmc::gguf {
namespace {

constexpr llvm::StringLiteral kMagic = "GGUF";
constexpr uint64_t kDefaultAlignment = 32;
/// ggml tensors have at most four dimensions (GGML_MAX_DIMS).
constexpr uint32_t kMaxDims = 4;
/// Arrays of arrays recurse; a bound keeps a hostile file off the stack.
constexpr int kMaxArrayDepth = 8;
/// The smallest tensor header entry: empty name, no dims, type, offset.
constexpr uint64_t kMinTensorEntryBytes = 8 + 4 + 4 + 8;
/// The smallest metadata entry: empty key, value type, a one-byte value.
constexpr uint64_t kMinMetadataEntryBytes = 8 + 4 + 1;

/// The fewest bytes an array element of `type` occupies in the file.
uint64_t getMinElementSize(ValueType type) {
  if (type == ValueType::String)
    return 8;
  if (type == ValueType::Array)
    return 4 + 8;
  return getScalarSize(type);
}

} // namespace

//===----------------------------------------------------------------------===//
// TensorEntry
//===----------------------------------------------------------------------===//

llvm::SmallVector<int64_t> TensorEntry::getShape() const {
  return llvm::SmallVector<int64_t>(llvm::reverse(ne));
}

//===----------------------------------------------------------------------===//
// HeaderParser
//===----------------------------------------------------------------------===//

/// Reads the header of a mapped file into its GgufFile.
class HeaderParser {
public:
  explicit HeaderParser(GgufFile &file)
      : file(file), bytes(file.buffer->getBuffer()) {}

  llvm::Error parse();

private:
  llvm::Error fail(const llvm::Twine &where, const llvm::Twine &problem) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   file.path + ": " + where + ": " + problem);
  }
  uint64_t remaining() const { return bytes.size() - cursor; }
  /// An error unless `size` more bytes of `what` fit in the file.
  llvm::Error need(uint64_t size, const llvm::Twine &where,
                   const llvm::Twine &what) const;
  /// A little-endian unsigned integer of `size` bytes.
  llvm::Expected<uint64_t> readUnsigned(unsigned size, const llvm::Twine &where,
                                        const llvm::Twine &what);
  llvm::Expected<llvm::StringRef> readString(const llvm::Twine &where,
                                             const llvm::Twine &what);
  llvm::Expected<ValueType> readValueType(const llvm::Twine &where,
                                          const llvm::Twine &what);
  llvm::Error readValue(ValueType type, Value &value, const llvm::Twine &where,
                        int depth);
  llvm::Error readMetadata(uint64_t count);
  llvm::Error readAlignment();
  llvm::Error readTensorEntries(uint64_t count);
  llvm::Error checkTensorData(TensorEntry &tensor, uint64_t storedOffset);
  llvm::Error checkDisjoint() const;

  GgufFile &file;
  llvm::StringRef bytes;
  uint64_t cursor = 0;
};

llvm::Error HeaderParser::need(uint64_t size, const llvm::Twine &where,
                               const llvm::Twine &what) const {
  if (size <= remaining())
    return llvm::Error::success();
  return fail(where, what + " (" + llvm::Twine(size) +
                         " bytes at offset " + llvm::Twine(cursor) +
                         ") exceeds the file (" + llvm::Twine(bytes.size()) +
                         " bytes)");
}

llvm::Expected<uint64_t> HeaderParser::readUnsigned(unsigned size,
                                                    const llvm::Twine &where,
                                                    const llvm::Twine &what) {
  if (llvm::Error error = need(size, where, what))
    return std::move(error);
  uint64_t value = 0;
  for (unsigned byte = 0; byte < size; ++byte)
    value |= uint64_t(static_cast<uint8_t>(bytes[cursor + byte])) << (8 * byte);
  cursor += size;
  return value;
}

llvm::Expected<llvm::StringRef>
HeaderParser::readString(const llvm::Twine &where, const llvm::Twine &what) {
  llvm::Expected<uint64_t> length = readUnsigned(8, where, what + " length");
  if (!length)
    return length.takeError();
  if (llvm::Error error = need(*length, where, what))
    return std::move(error);
  llvm::StringRef text = bytes.substr(cursor, *length);
  cursor += *length;
  return text;
}

llvm::Expected<ValueType>
HeaderParser::readValueType(const llvm::Twine &where, const llvm::Twine &what) {
  llvm::Expected<uint64_t> id = readUnsigned(4, where, what);
  if (!id)
    return id.takeError();
  if (*id > static_cast<uint32_t>(ValueType::F64))
    return fail(where, "unknown " + what + " " + llvm::Twine(*id));
  return static_cast<ValueType>(*id);
}

llvm::Error HeaderParser::readValue(ValueType type, Value &value,
                                    const llvm::Twine &where, int depth) {
  value.type = type;
  if (type == ValueType::String) {
    llvm::Expected<llvm::StringRef> text = readString(where, "string");
    if (!text)
      return text.takeError();
    value.string = *text;
    return llvm::Error::success();
  }
  if (type != ValueType::Array) {
    llvm::Expected<uint64_t> raw =
        readUnsigned(getScalarSize(type), where, stringifyValueType(type));
    if (!raw)
      return raw.takeError();
    value.raw = *raw;
    return llvm::Error::success();
  }

  llvm::Expected<ValueType> elementType =
      readValueType(where, "array element type");
  if (!elementType)
    return elementType.takeError();
  llvm::Expected<uint64_t> count = readUnsigned(8, where, "array length");
  if (!count)
    return count.takeError();
  if (*elementType == ValueType::Array && depth + 1 >= kMaxArrayDepth)
    return fail(where, "arrays are nested more than " +
                           llvm::Twine(kMaxArrayDepth) + " deep");
  // Checked before allocating, so a huge count cannot exhaust memory.
  uint64_t minSize = getMinElementSize(*elementType);
  if (*count > remaining() / minSize)
    return fail(where, "array of " + llvm::Twine(*count) + " " +
                           stringifyValueType(*elementType) +
                           " elements exceeds the file (" +
                           llvm::Twine(remaining()) + " bytes left at offset " +
                           llvm::Twine(cursor) + ")");
  value.elementType = *elementType;
  value.arraySize = *count;
  if (*elementType == ValueType::String) {
    value.strings.reserve(*count);
    for (uint64_t i = 0; i < *count; ++i) {
      llvm::Expected<llvm::StringRef> text =
          readString(where, "array element " + llvm::Twine(i));
      if (!text)
        return text.takeError();
      value.strings.push_back(*text);
    }
  } else if (*elementType == ValueType::Array) {
    value.nested.resize(*count);
    for (Value &element : value.nested)
      if (llvm::Error error =
              readValue(ValueType::Array, element, where, depth + 1))
        return error;
  } else {
    value.elementBytes = bytes.bytes_begin() + cursor;
    cursor += *count * minSize;
  }
  return llvm::Error::success();
}

llvm::Error HeaderParser::readMetadata(uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    std::string entry = ("metadata entry " + llvm::Twine(i)).str();
    llvm::Expected<llvm::StringRef> key = readString(entry, "key");
    if (!key)
      return key.takeError();
    std::string where = "metadata '" + key->str() + "'";
    if (file.metadata.count(*key))
      return fail(where, "appears twice");
    llvm::Expected<ValueType> type = readValueType(where, "value type");
    if (!type)
      return type.takeError();
    Value value;
    if (llvm::Error error = readValue(*type, value, where, 0))
      return error;
    file.keys.push_back(key->str());
    file.metadata.try_emplace(*key, std::move(value));
  }
  return llvm::Error::success();
}

llvm::Error HeaderParser::readAlignment() {
  const Value *value = file.lookup("general.alignment");
  if (!value)
    return llvm::Error::success();
  // llama.cpp reads only a u32 here; anything else is a broken writer.
  if (value->getType() != ValueType::U32)
    return fail("metadata 'general.alignment'",
                "must be a u32, got " + value->print());
  uint64_t alignment = static_cast<uint64_t>(*value->getAsInteger());
  if (!llvm::isPowerOf2_64(alignment))
    return fail("metadata 'general.alignment'",
                "must be a power of two, got " + llvm::Twine(alignment));
  file.alignment = alignment;
  return llvm::Error::success();
}

llvm::Error HeaderParser::readTensorEntries(uint64_t count) {
  std::vector<uint64_t> storedOffsets;
  for (uint64_t i = 0; i < count; ++i) {
    std::string entry = ("tensor entry " + llvm::Twine(i)).str();
    llvm::Expected<llvm::StringRef> name = readString(entry, "name");
    if (!name)
      return name.takeError();
    std::string where = "tensor '" + name->str() + "'";
    if (file.tensorIndex.count(*name))
      return fail(where, "appears twice");
    TensorEntry tensor;
    tensor.name = name->str();
    llvm::Expected<uint64_t> dims = readUnsigned(4, where, "dimension count");
    if (!dims)
      return dims.takeError();
    if (*dims > kMaxDims)
      return fail(where, "has " + llvm::Twine(*dims) +
                             " dimensions; ggml allows at most " +
                             llvm::Twine(kMaxDims));
    for (uint64_t d = 0; d < *dims; ++d) {
      llvm::Expected<uint64_t> size =
          readUnsigned(8, where, "ne[" + llvm::Twine(d) + "]");
      if (!size)
        return size.takeError();
      if (*size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return fail(where, "ne[" + llvm::Twine(d) + "] = " +
                               llvm::Twine(*size) + " is out of range");
      tensor.ne.push_back(static_cast<int64_t>(*size));
    }
    llvm::Expected<uint64_t> typeId = readUnsigned(4, where, "ggml type");
    if (!typeId)
      return typeId.takeError();
    std::optional<GgmlType> type = lookupGgmlType(*typeId);
    if (!type)
      return fail(where, "unknown ggml type id " + llvm::Twine(*typeId));
    tensor.type = *type;
    llvm::Expected<uint64_t> offset = readUnsigned(8, where, "data offset");
    if (!offset)
      return offset.takeError();
    file.tensorIndex.try_emplace(*name, file.tensors.size());
    file.tensors.push_back(std::move(tensor));
    storedOffsets.push_back(*offset);
  }
  // The data section starts at the first aligned offset after the header.
  file.dataOffset = llvm::alignTo(cursor, file.alignment);
  for (auto [tensor, offset] : llvm::zip_equal(file.tensors, storedOffsets))
    if (llvm::Error error = checkTensorData(tensor, offset))
      return error;
  return checkDisjoint();
}

llvm::Error HeaderParser::checkTensorData(TensorEntry &tensor,
                                          uint64_t storedOffset) {
  std::string where = "tensor '" + tensor.name + "'";
  const GgmlTypeTraits &traits = getGgmlTypeTraits(tensor.type);
  int64_t rowLength = tensor.ne.empty() ? 1 : tensor.ne.front();
  if (rowLength % traits.blockSize != 0)
    return fail(where, "row length ne[0] = " + llvm::Twine(rowLength) +
                           " is not a multiple of the " + traits.name +
                           " block size " + llvm::Twine(traits.blockSize));
  // Elements outnumber bytes in sub-byte types, so both products are
  // checked.
  std::optional<int64_t> size =
      llvm::checkedMul(rowLength / traits.blockSize, traits.blockBytes);
  std::optional<int64_t> elements = rowLength;
  for (size_t d = 1; d < tensor.ne.size() && size && elements; ++d) {
    size = llvm::checkedMul(*size, tensor.ne[d]);
    elements = llvm::checkedMul(*elements, tensor.ne[d]);
  }
  if (!size || !elements)
    return fail(where, "its size overflows (" + traits.name + ", " +
                           llvm::Twine(tensor.ne.size()) + " dimensions)");
  if (storedOffset % file.alignment != 0)
    return fail(where, "data offset " + llvm::Twine(storedOffset) +
                           " is not a multiple of the alignment " +
                           llvm::Twine(file.alignment));
  std::optional<uint64_t> begin =
      llvm::checkedAddUnsigned(file.dataOffset, storedOffset);
  std::optional<uint64_t> end =
      begin ? llvm::checkedAddUnsigned(*begin, static_cast<uint64_t>(*size))
            : std::nullopt;
  if (!end || *end > bytes.size()) {
    uint64_t section =
        bytes.size() - std::min<uint64_t>(bytes.size(), file.dataOffset);
    return fail(where, "data at offset " + llvm::Twine(storedOffset) + " (" +
                           llvm::Twine(*size) +
                           " bytes) exceeds the file's data section (" +
                           llvm::Twine(section) + " bytes)");
  }
  tensor.fileOffset = *begin;
  tensor.numBytes = static_cast<uint64_t>(*size);
  tensor.numElements = *elements;
  return llvm::Error::success();
}

/// Two tensors sharing bytes would alias silently; a valid writer never
/// produces that.
llvm::Error HeaderParser::checkDisjoint() const {
  std::vector<const TensorEntry *> order;
  for (const TensorEntry &tensor : file.tensors)
    if (tensor.numBytes)
      order.push_back(&tensor);
  // Stable, so the pair reported does not depend on the sort. Comparing
  // neighbours suffices: the first tensor overlapping any earlier one also
  // overlaps its predecessor.
  std::stable_sort(order.begin(), order.end(),
                   [](const TensorEntry *a, const TensorEntry *b) {
                     return a->fileOffset < b->fileOffset;
                   });
  for (size_t i = 1; i < order.size(); ++i) {
    const TensorEntry &previous = *order[i - 1];
    if (order[i]->fileOffset < previous.fileOffset + previous.numBytes)
      return fail("tensor '" + order[i]->name + "'",
                  "its data overlaps tensor '" + previous.name + "'");
  }
  return llvm::Error::success();
}

llvm::Error HeaderParser::parse() {
  if (bytes.size() < 4 || !bytes.starts_with(kMagic))
    return fail("header", "not a GGUF file (it does not start with 'GGUF')");
  cursor = 4;
  llvm::Expected<uint64_t> version = readUnsigned(4, "header", "version");
  if (!version)
    return version.takeError();
  if (*version != 2 && *version != 3) {
    if ((*version & 0xffff) == 0 && *version != 0)
      return fail("header", "version field " + llvm::Twine(*version) +
                                " looks byte-swapped; big-endian GGUF is not "
                                "supported");
    return fail("header", "GGUF version " + llvm::Twine(*version) +
                              " is not supported (llmc reads versions 2 "
                              "and 3)");
  }
  file.version = static_cast<uint32_t>(*version);
  llvm::Expected<uint64_t> tensorCount =
      readUnsigned(8, "header", "tensor count");
  if (!tensorCount)
    return tensorCount.takeError();
  llvm::Expected<uint64_t> metadataCount =
      readUnsigned(8, "header", "metadata count");
  if (!metadataCount)
    return metadataCount.takeError();
  if (*metadataCount > remaining() / kMinMetadataEntryBytes)
    return fail("header", "metadata count " + llvm::Twine(*metadataCount) +
                              " exceeds the file (" + llvm::Twine(remaining()) +
                              " bytes left)");
  if (*tensorCount > remaining() / kMinTensorEntryBytes)
    return fail("header", "tensor count " + llvm::Twine(*tensorCount) +
                              " exceeds the file (" + llvm::Twine(remaining()) +
                              " bytes left)");
  if (llvm::Error error = readMetadata(*metadataCount))
    return error;
  if (llvm::Error error = readAlignment())
    return error;
  return readTensorEntries(*tensorCount);
}

//===----------------------------------------------------------------------===//
// GgufFile
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<GgufFile>>
GgufFile::parse(llvm::StringRef path,
                std::unique_ptr<llvm::MemoryBuffer> buffer) {
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->path = path.str();
  file->buffer = std::move(buffer);
  file->alignment = kDefaultAlignment;
  if (llvm::Error error = HeaderParser(*file).parse())
    return std::move(error);
  return file;
}

llvm::Expected<std::unique_ptr<GgufFile>> GgufFile::open(llvm::StringRef path) {
  // No null terminator, so LLVM maps large files instead of copying them.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": cannot read: " +
                                       buffer.getError().message());
  return parse(path, std::move(*buffer));
}

const Value *GgufFile::lookup(llvm::StringRef key) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

const TensorEntry *GgufFile::findTensor(llvm::StringRef name) const {
  auto it = tensorIndex.find(name);
  return it == tensorIndex.end() ? nullptr : &tensors[it->second];
}

llvm::ArrayRef<uint8_t> GgufFile::getBytes(const TensorEntry &tensor) const {
  return llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(buffer->getBufferStart()) +
          tensor.fileOffset,
      tensor.numBytes);
}

} // namespace llmc::gguf
