//===- TokenModel.cpp - the model section of a tokenizer.json -------------===//

#include "runtime/tokenizer/TokenModel.h"

#include "absl/strings/str_format.h"

namespace llmc::tokenizer {

std::string getByteFallbackToken(unsigned char byte) {
  return absl::StrFormat("<0x%02X>", byte);
}

TokenModel::~TokenModel() = default;

} // namespace llmc::tokenizer
