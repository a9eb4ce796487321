//===- MergeCommand.cpp - llmc merge --------------------------------------===//
//
// `llmc merge a.llmc b.llmc ... -o model.llmc`: merges binaries of some
// pieces each (`llmc convert --pieces`) into the binary one `llmc convert`
// of them all writes, byte for byte, given in the model's piece order
// (compile/BinaryMerge.h).
//
//===----------------------------------------------------------------------===//

#include "backends/common/compile/BinaryMerge.h"
#include "tools/llmc/Commands.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::list<std::string>
    mergeInputs(cl::Positional, cl::OneOrMore,
                cl::desc("<piece binaries, in the model's piece order>"),
                cl::sub(getMergeCommand()));
static cl::opt<std::string> mergeOutput("output",
                                        cl::desc("The binary to write"),
                                        cl::value_desc("model.llmc"),
                                        cl::Required,
                                        cl::sub(getMergeCommand()));
static cl::alias mergeOutputShort("o", cl::desc("Alias for --output"),
                                  cl::aliasopt(mergeOutput));

int runMergeCommand() {
  std::vector<std::string> inputs(mergeInputs.begin(), mergeInputs.end());
  llvm::Expected<compile::MergeReport> report =
      compile::mergeBinaries(inputs, mergeOutput);
  if (!report)
    return reportError(report.takeError());
  llvm::outs() << llvm::format(
      "%s: %lld pieces from %zu binaries, weights %.1f MiB\n",
      mergeOutput.c_str(), static_cast<long long>(report->pieces),
      inputs.size(), report->coeffBytes / 1048576.0);
  return 0;
}

} // namespace llmc
