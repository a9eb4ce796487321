//===- BinaryOptions.cpp - the compiled model of run and chat -------------===//

#include "tools/llmc/BinaryOptions.h"

#include "tools/llmc/GenerationOptions.h"

#include "absl/strings/str_format.h"

#include <CLI/CLI.hpp>

namespace llmc {

void addBinaryOptions(CLI::App &command, BinaryOptions &options) {
  command.add_option("-m,--model", options.path, "The compiled model to run")
      ->type_name("model.llmc")
      ->required();
}

absl::StatusOr<std::unique_ptr<Model>> loadBinaryModel(const std::string &path,
                                                       unsigned threads) {
  ModelOptions options;
  options.threads = getThreadCount(threads);
  return Model::load(path, options);
}

void printVisionTimings(std::ostream &os, uint64_t tiles, double hostSeconds,
                        double deviceSeconds, std::string_view chip,
                        bool modelled) {
  os << absl::StrFormat("vision: %u tile%s in %.1f ms on the host", tiles,
                        tiles == 1 ? "" : "s", hostSeconds * 1e3);
  if (modelled)
    os << absl::StrFormat(" (modelled on %s: %.3f ms)", chip,
                          deviceSeconds * 1e3);
  os << "\n";
}

void printTimings(std::ostream &os, const GenerateTimings &timings,
                  std::string_view chip, bool modelled) {
  os << absl::StrFormat("prompt: %d tokens, first token after %.1f ms",
                        timings.promptTokens, timings.firstTokenSeconds * 1e3);
  if (modelled)
    os << absl::StrFormat(" (modelled on %s: %.3f ms)", chip,
                          timings.promptModelledSeconds * 1e3);
  os << "\n";
  if (timings.decodeTokens == 0) {
    os << "decode: no decode steps (one token generated)\n";
    return;
  }
  os << absl::StrFormat("decode: %d tokens, %.1f tokens/s on the host",
                        timings.decodeTokens, timings.getHostTokensPerSecond());
  if (modelled)
    os << absl::StrFormat(", %.1f tokens/s modelled on %s",
                          timings.getModelledTokensPerSecond(), chip);
  os << "\n";
}

} // namespace llmc
