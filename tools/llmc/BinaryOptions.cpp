//===- BinaryOptions.cpp - the compiled model of run and chat -------------===//

#include "tools/llmc/BinaryOptions.h"

#include "tools/llmc/Commands.h"
#include "tools/llmc/GenerationOptions.h"

#include "llvm/Support/Format.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> binaryPath("model",
                                       cl::desc("The compiled model to run"),
                                       cl::value_desc("model.llmc"),
                                       cl::Required, cl::sub(getRunCommand()),
                                       cl::sub(getChatCommand()),
                                       cl::sub(getServeCommand()));
static cl::alias binaryPathShort("m", cl::desc("Alias for --model"),
                                 cl::aliasopt(binaryPath));

llvm::Expected<std::unique_ptr<Model>>
loadBinaryModel(llvm::StringRef path) {
  ModelOptions options;
  options.threads = getThreadCount();
  return Model::load(path.empty() ? llvm::StringRef(binaryPath) : path,
                     options);
}

void printVisionTimings(llvm::raw_ostream &os, uint64_t tiles,
                        double hostSeconds, double deviceSeconds,
                        llvm::StringRef chip, bool modelled) {
  os << llvm::format("vision: %llu tile%s in %.1f ms on the host",
                     static_cast<unsigned long long>(tiles),
                     tiles == 1 ? "" : "s", hostSeconds * 1e3);
  if (modelled)
    os << llvm::format(" (modelled on %s: %.3f ms)", chip.str().c_str(),
                       deviceSeconds * 1e3);
  os << "\n";
}

void printTimings(llvm::raw_ostream &os, const GenerateTimings &timings,
                  llvm::StringRef chip, bool modelled) {
  os << llvm::format("prompt: %lld tokens, first token after %.1f ms",
                     static_cast<long long>(timings.promptTokens),
                     timings.firstTokenSeconds * 1e3);
  if (modelled)
    os << llvm::format(" (modelled on %s: %.3f ms)", chip.str().c_str(),
                       timings.promptModelledSeconds * 1e3);
  os << "\n";
  if (timings.decodeTokens == 0) {
    os << "decode: no decode steps (one token generated)\n";
    return;
  }
  os << llvm::format("decode: %lld tokens, %.1f tokens/s on the host",
                     static_cast<long long>(timings.decodeTokens),
                     timings.getHostTokensPerSecond());
  if (modelled)
    os << llvm::format(", %.1f tokens/s modelled on %s",
                       timings.getModelledTokensPerSecond(),
                       chip.str().c_str());
  os << "\n";
}

} // namespace llmc
