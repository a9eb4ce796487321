//===- SetChip.cpp - a binary for a chip no plugin provides ---------------===//
//
//   set_chip IN.llmc OUT.llmc CHIP
//
// Writes a copy of IN whose manifest names CHIP (as long as the old name),
// with a valid checksum, for tests of the runtime's and the CLI's errors.
//
//===----------------------------------------------------------------------===//

#include "runtime/api/test/TestModels.h"

#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    llvm::errs() << "usage: set_chip IN.llmc OUT.llmc CHIP\n";
    return 2;
  }
  if (llvm::Error error = llmc::test::rewriteChip(argv[1], argv[2], argv[3])) {
    llvm::errs() << "set_chip: " << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}
