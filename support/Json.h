//===- Json.h - JSON text parsed without exceptions -------------*- C++ -*-===//
//
// nlohmann's parser reports a fault by an exception, or, asked not to throw,
// by a discarded value that says nothing of where the text went wrong. The
// runtime reads files that people edit, so an error points at the fault.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_SUPPORT_JSON_H
#define LLMC_SUPPORT_JSON_H

#include "support/Status.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace llmc::support {

/// `text` parsed, or an InvalidArgument error that places the fault as
/// "[line:column, byte=offset]: what is wrong" (a 0-based column).
absl::StatusOr<nlohmann::json> parseJson(std::string_view text);

} // namespace llmc::support

#endif // LLMC_SUPPORT_JSON_H
