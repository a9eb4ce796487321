//===- TokenModel.cpp - the model section of a tokenizer.json -------------===//

#include "runtime/tokenizer/TokenModel.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace llmc::tokenizer {

std::string getByteFallbackToken(unsigned char byte) {
  std::string name;
  llvm::raw_string_ostream(name)
      << "<0x" << llvm::format_hex_no_prefix(byte, 2, /*Upper=*/true) << ">";
  return name;
}

TokenModel::~TokenModel() = default;

} // namespace llmc::tokenizer
