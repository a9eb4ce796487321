//===- ContainedPath.h - file names a checkpoint gives ----------*- C++ -*-===//
//
// A checkpoint names other files of its own (safetensors shards, ONNX
// external data); a name that is absolute or climbs out with ".." would let
// a downloaded checkpoint read any file of the machine.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_COMMON_CONTAINEDPATH_H
#define LLMC_FRONTENDS_COMMON_CONTAINEDPATH_H

#include "llvm/ADT/StringRef.h"

namespace llmc::frontends {

/// True when `name` is relative and has no ".." component, so that it names
/// a file inside the directory it is taken relative to.
bool isContainedPath(llvm::StringRef name);

} // namespace llmc::frontends

#endif // LLMC_FRONTENDS_COMMON_CONTAINEDPATH_H
