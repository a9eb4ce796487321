//===- ContainedPath.cpp - file names a checkpoint gives ------------------===//

#include "frontends/common/ContainedPath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"

namespace llmc::frontends {

bool isContainedPath(llvm::StringRef name) {
  return !llvm::sys::path::is_absolute(name) &&
         !llvm::is_contained(llvm::make_range(llvm::sys::path::begin(name),
                                              llvm::sys::path::end(name)),
                             "..");
}

} // namespace llmc::frontends
