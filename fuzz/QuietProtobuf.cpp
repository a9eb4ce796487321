//===- QuietProtobuf.cpp - no protobuf log lines in a campaign ------------===//
//
// Mutated messages make protobuf log a line for every string field that is
// not UTF-8; in a campaign those lines bury the findings. Linked into the
// targets that parse protobuf, before their first input.
//
//===----------------------------------------------------------------------===//

#include <google/protobuf/stubs/logging.h>

namespace {
const bool quiet = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();
} // namespace
