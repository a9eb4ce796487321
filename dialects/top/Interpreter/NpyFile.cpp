//===- NpyFile.cpp - NumPy .npy files of interpreter tensors --------------===//

#include "dialects/top/Interpreter/NpyFile.h"

#include "support/File.h"
#include "support/Strings.h"

#include <cstring>
#include <limits>

namespace llmc::top {

using support::readLittleEndian;
using support::strCat;
using support::writeLittleEndian;

static constexpr std::string_view kMagic("\x93NUMPY");

static absl::Status npyError(std::string_view message) {
  return absl::InvalidArgumentError(strCat(".npy: ", message));
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// `text` without its leading whitespace.
static std::string_view trimLeft(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\n\v\f\r");
  return start == std::string_view::npos ? std::string_view()
                                         : text.substr(start);
}

/// The text after `'key':` in a header dictionary, or an empty string.
static std::string_view findHeaderValue(std::string_view header,
                                        std::string_view key) {
  std::string quoted = strCat("'", key, "'");
  size_t at = header.find(quoted);
  if (at == std::string_view::npos)
    return {};
  std::string_view rest = trimLeft(header.substr(at + quoted.size()));
  if (!support::consumePrefix(rest, ":"))
    return {};
  return trimLeft(rest);
}

/// Parses the `(2, 3)` of a header's shape entry.
static absl::StatusOr<std::vector<int64_t>>
parseShapeTuple(std::string_view text) {
  if (!support::consumePrefix(text, "("))
    return npyError("header has no shape tuple");
  size_t close = text.find(')');
  if (close == std::string_view::npos)
    return npyError("header's shape tuple is not closed");
  std::vector<int64_t> shape;
  for (std::string_view item : support::split(text.substr(0, close), ',')) {
    item = support::trim(item);
    if (item.empty())
      continue;
    std::optional<uint64_t> dim = support::parseInteger<uint64_t>(item);
    if (!dim ||
        *dim > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
      return npyError(strCat("bad dimension '", item, "' in the header"));
    shape.push_back(static_cast<int64_t>(*dim));
  }
  return shape;
}

absl::StatusOr<Tensor> parseNpy(std::string_view contents) {
  if (!support::consumePrefix(contents, kMagic) || contents.size() < 2)
    return npyError("not a NumPy file (bad magic)");
  uint8_t major = contents[0];
  contents.remove_prefix(2);
  size_t headerSizeBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    return npyError(strCat("unsupported format version ", major));
  if (contents.size() < headerSizeBytes)
    return npyError("truncated header length");
  uint64_t headerSize = major == 1
                            ? readLittleEndian<uint16_t>(contents.data())
                            : readLittleEndian<uint32_t>(contents.data());
  contents.remove_prefix(headerSizeBytes);
  if (contents.size() < headerSize)
    return npyError("truncated header");
  std::string_view header = contents.substr(0, headerSize);
  std::string_view data = contents.substr(headerSize);

  std::string_view descr = findHeaderValue(header, "descr");
  std::string_view order = findHeaderValue(header, "fortran_order");
  if (descr.empty() || order.empty())
    return npyError("header lacks 'descr' or 'fortran_order'");
  if (!support::startsWith(order, "False"))
    return npyError("Fortran-order arrays are not supported");
  absl::StatusOr<std::vector<int64_t>> shape =
      parseShapeTuple(findHeaderValue(header, "shape"));
  if (!shape.ok())
    return shape.status();

  int64_t count = getElementCount(*shape);
  auto checkSize = [&](uint64_t elementBytes) -> absl::Status {
    if (data.size() != static_cast<uint64_t>(count) * elementBytes)
      return npyError(strCat("shape ", formatShape(*shape), " needs ",
                             count * elementBytes, " data bytes, the file has ",
                             data.size()));
    return absl::OkStatus();
  };
  const char *bytes = data.data();
  if (support::startsWith(descr, "'<f4'")) {
    LLMC_RETURN_IF_ERROR(checkSize(4));
    std::vector<float> values(count);
    for (int64_t i = 0; i < count; ++i) {
      auto bits = readLittleEndian<uint32_t>(bytes + 4 * i);
      std::memcpy(&values[i], &bits, sizeof(bits));
    }
    return Tensor::fromF32(*shape, std::move(values));
  }
  if (support::startsWith(descr, "'<i4'")) {
    LLMC_RETURN_IF_ERROR(checkSize(4));
    std::vector<int32_t> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] =
          static_cast<int32_t>(readLittleEndian<uint32_t>(bytes + 4 * i));
    return Tensor::fromI32(*shape, std::move(values));
  }
  if (support::startsWith(descr, "'<i8'")) {
    LLMC_RETURN_IF_ERROR(checkSize(8));
    std::vector<int32_t> values(count);
    for (int64_t i = 0; i < count; ++i) {
      auto value =
          static_cast<int64_t>(readLittleEndian<uint64_t>(bytes + 8 * i));
      if (value < std::numeric_limits<int32_t>::min() ||
          value > std::numeric_limits<int32_t>::max())
        return npyError(strCat("int64 value ", value, " at element ", i,
                               " does not fit in int32"));
      values[i] = static_cast<int32_t>(value);
    }
    return Tensor::fromI32(*shape, std::move(values));
  }
  return npyError(strCat("unsupported element type ",
                         descr.substr(0, descr.find(',')),
                         " (float32, int32 and int64 are supported)"));
}

absl::StatusOr<Tensor> readNpyFile(const std::string &path) {
  absl::StatusOr<std::string> contents = support::readFile(path);
  if (!contents.ok())
    return absl::Status(contents.status().code(),
                        strCat("cannot read '", path, "': ",
                               support::errorReason(contents.status())));
  absl::StatusOr<Tensor> tensor = parseNpy(*contents);
  if (!tensor.ok())
    return absl::Status(
        tensor.status().code(),
        strCat(path, ": ", std::string(tensor.status().message())));
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
  writeLittleEndian<uint16_t>(length, static_cast<uint16_t>(header.size()));
  out.append(length, 2);
  out += header;
  char word[4];
  auto append = [&](uint32_t bits) {
    writeLittleEndian<uint32_t>(word, bits);
    out.append(word, 4);
  };
  if (tensor.isF32())
    for (float value : tensor.getF32()) {
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      append(bits);
    }
  else
    for (int32_t value : tensor.getI32())
      append(static_cast<uint32_t>(value));
  return out;
}

absl::Status writeNpyFile(const std::string &path, const Tensor &tensor) {
  return support::writeFileAtomically(path, [&](std::ostream &os) {
    os << serializeNpy(tensor);
    return absl::OkStatus();
  });
}

} // namespace llmc::top
