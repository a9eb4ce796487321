//===- ErrorMessage.h - the text of an expected error in tests -*- C++ -*-===//

#ifndef LLMC_FRONTENDS_GGUF_TEST_ERRORMESSAGE_H
#define LLMC_FRONTENDS_GGUF_TEST_ERRORMESSAGE_H

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <string>

namespace llmc::gguf::test {

/// The message of `error`; records a test failure when there is no error.
inline std::string errorMessage(llvm::Error error) {
  if (!error) {
    ADD_FAILURE() << "expected an error, got success";
    return {};
  }
  return llvm::toString(std::move(error));
}

template <typename T> std::string errorMessage(llvm::Expected<T> value) {
  if (value) {
    ADD_FAILURE() << "expected an error, got a value";
    return {};
  }
  return llvm::toString(value.takeError());
}

} // namespace llmc::gguf::test

#endif // LLMC_FRONTENDS_GGUF_TEST_ERRORMESSAGE_H
