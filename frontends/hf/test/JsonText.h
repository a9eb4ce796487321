//===- JsonText.h - config objects written in a test ------------*- C++ -*-===//

#ifndef LLMC_FRONTENDS_HF_TEST_JSONTEXT_H
#define LLMC_FRONTENDS_HF_TEST_JSONTEXT_H

#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

namespace llmc::hf::test {

/// The JSON object `text` holds; a failure of the test when it holds none.
inline llvm::json::Object parseObject(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value) {
    ADD_FAILURE() << toString(value.takeError());
    return {};
  }
  if (!value->getAsObject()) {
    ADD_FAILURE() << "not a JSON object: " << text.str();
    return {};
  }
  return std::move(*value->getAsObject());
}

} // namespace llmc::hf::test

#endif // LLMC_FRONTENDS_HF_TEST_JSONTEXT_H
