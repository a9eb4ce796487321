//===- NpyFile.cpp - NumPy .npy files of interpreter tensors --------------===//

#include "dialects/top/Interpreter/NpyFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

namespace llmc::top {

static constexpr llvm::StringLiteral kMagic("\x93NUMPY");

static llvm::Error npyError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 ".npy: " + message);
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// The text after `'key':` in a header dictionary, or an empty string.
static llvm::StringRef findHeaderValue(llvm::StringRef header,
                                       llvm::StringRef key) {
  std::string quoted = "'" + key.str() + "'";
  size_t at = header.find(quoted);
  if (at == llvm::StringRef::npos)
    return {};
  llvm::StringRef rest = header.drop_front(at + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return {};
  return rest.ltrim();
}

/// Parses the `(2, 3)` of a header's shape entry.
static llvm::Expected<llvm::SmallVector<int64_t, 4>>
parseShapeTuple(llvm::StringRef text) {
  if (!text.consume_front("("))
    return npyError("header has no shape tuple");
  size_t close = text.find(')');
  if (close == llvm::StringRef::npos)
    return npyError("header's shape tuple is not closed");
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<llvm::StringRef> items;
  text.take_front(close).split(items, ',');
  for (llvm::StringRef item : items) {
    item = item.trim();
    if (item.empty())
      continue;
    uint64_t dim;
    if (item.getAsInteger(10, dim) ||
        dim > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
      return npyError("bad dimension '" + item + "' in the header");
    shape.push_back(static_cast<int64_t>(dim));
  }
  return shape;
}

llvm::Expected<Tensor> parseNpy(llvm::StringRef contents) {
  if (!contents.consume_front(kMagic) || contents.size() < 2)
    return npyError("not a NumPy file (bad magic)");
  uint8_t major = contents[0];
  contents = contents.drop_front(2);
  size_t headerSizeBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    return npyError("unsupported format version " + llvm::Twine(major));
  if (contents.size() < headerSizeBytes)
    return npyError("truncated header length");
  uint64_t headerSize = major == 1
                            ? llvm::support::endian::read16le(contents.data())
                            : llvm::support::endian::read32le(contents.data());
  contents = contents.drop_front(headerSizeBytes);
  if (contents.size() < headerSize)
    return npyError("truncated header");
  llvm::StringRef header = contents.take_front(headerSize);
  llvm::StringRef data = contents.drop_front(headerSize);

  llvm::StringRef descr = findHeaderValue(header, "descr");
  llvm::StringRef order = findHeaderValue(header, "fortran_order");
  if (descr.empty() || order.empty())
    return npyError("header lacks 'descr' or 'fortran_order'");
  if (!order.starts_with("False"))
    return npyError("Fortran-order arrays are not supported");
  llvm::Expected<llvm::SmallVector<int64_t, 4>> shape =
      parseShapeTuple(findHeaderValue(header, "shape"));
  if (!shape)
    return shape.takeError();

  int64_t count = getElementCount(*shape);
  auto checkSize = [&](uint64_t elementBytes) -> llvm::Error {
    if (data.size() != static_cast<uint64_t>(count) * elementBytes)
      return npyError("shape " + formatShape(*shape) + " needs " +
                      llvm::Twine(count * elementBytes) +
                      " data bytes, the "
                      "file has " +
                      llvm::Twine(data.size()));
    return llvm::Error::success();
  };
  const char *bytes = data.data();
  if (descr.starts_with("'<f4'")) {
    if (llvm::Error error = checkSize(4))
      return std::move(error);
    std::vector<float> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] =
          llvm::bit_cast<float>(llvm::support::endian::read32le(bytes + 4 * i));
    return Tensor::fromF32(*shape, std::move(values));
  }
  if (descr.starts_with("'<i4'")) {
    if (llvm::Error error = checkSize(4))
      return std::move(error);
    std::vector<int32_t> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] =
          static_cast<int32_t>(llvm::support::endian::read32le(bytes + 4 * i));
    return Tensor::fromI32(*shape, std::move(values));
  }
  if (descr.starts_with("'<i8'")) {
    if (llvm::Error error = checkSize(8))
      return std::move(error);
    std::vector<int32_t> values(count);
    for (int64_t i = 0; i < count; ++i) {
      auto value =
          static_cast<int64_t>(llvm::support::endian::read64le(bytes + 8 * i));
      if (value < std::numeric_limits<int32_t>::min() ||
          value > std::numeric_limits<int32_t>::max())
        return npyError("int64 value " + llvm::Twine(value) + " at element " +
                        llvm::Twine(i) + " does not fit in int32");
      values[i] = static_cast<int32_t>(value);
    }
    return Tensor::fromI32(*shape, std::move(values));
  }
  return npyError("unsupported element type " + descr.take_until([](char c) {
    return c == ',';
  }) + " (float32, int32 and int64 are supported)");
}

llvm::Expected<Tensor> readNpyFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s': %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  llvm::Expected<Tensor> tensor = parseNpy((*buffer)->getBuffer());
  if (!tensor)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                   path.str().c_str(),
                                   llvm::toString(tensor.takeError()).c_str());
  return tensor;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

std::string serializeNpy(const Tensor &tensor) {
  std::string header = "{'descr': '";
  header += tensor.isF32() ? "<f4" : "<i4";
  header += "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.getShape())
    header += std::to_string(dim) + ", ";
  if (tensor.getRank() > 0)
    header.pop_back();
  if (tensor.getRank() > 1)
    header.pop_back();
  header += "), }";
  // numpy.save leaves room to grow the first dimension in place (up to 21
  // digits), then pads so that the data starts 64-byte aligned; doing the
  // same keeps our files byte-identical to NumPy's.
  if (tensor.getRank() > 0)
    header.append(21 - std::to_string(tensor.getDim(0)).size(), ' ');
  size_t prefix = kMagic.size() + 2 + 2;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string out;
  out.reserve(prefix + header.size() + 4 * tensor.getNumElements());
  out += kMagic;
  out += '\x01';
  out += '\x00';
  char length[2];
  llvm::support::endian::write16le(length,
                                   static_cast<uint16_t>(header.size()));
  out.append(length, 2);
  out += header;
  char word[4];
  auto append = [&](uint32_t bits) {
    llvm::support::endian::write32le(word, bits);
    out.append(word, 4);
  };
  if (tensor.isF32())
    for (float value : tensor.getF32())
      append(llvm::bit_cast<uint32_t>(value));
  else
    for (int32_t value : tensor.getI32())
      append(static_cast<uint32_t>(value));
  return out;
}

llvm::Error writeNpyFile(llvm::StringRef path, const Tensor &tensor) {
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << serializeNpy(tensor);
    return llvm::Error::success();
  });
}

} // namespace llmc::top
