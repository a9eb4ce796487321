//===- DType.cpp - element types of the command stream --------------------===//

#include "backends/common/cmodel/DType.h"

namespace llmc::cmodel {

int64_t getDTypeBits(DType type) {
  switch (type) {
  case cmd::DTYPE_F32:
  case cmd::DTYPE_I32:
    return 32;
  case cmd::DTYPE_F16:
  case cmd::DTYPE_BF16:
    return 16;
  case cmd::DTYPE_I8:
  case cmd::DTYPE_U8:
    return 8;
  case cmd::DTYPE_I4:
  case cmd::DTYPE_U4:
    return 4;
  default:
    return 0;
  }
}

std::string_view getDTypeName(DType type) {
  switch (type) {
  case cmd::DTYPE_F32:
    return "f32";
  case cmd::DTYPE_F16:
    return "f16";
  case cmd::DTYPE_BF16:
    return "bf16";
  case cmd::DTYPE_I8:
    return "i8";
  case cmd::DTYPE_U8:
    return "u8";
  case cmd::DTYPE_I4:
    return "i4";
  case cmd::DTYPE_U4:
    return "u4";
  case cmd::DTYPE_I32:
    return "i32";
  default:
    return "invalid";
  }
}

} // namespace llmc::cmodel
