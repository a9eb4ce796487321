//===- BinaryOptions.h - the compiled model of run and chat -----*- C++ -*-===//
//
// `-m/--model model.llmc` of `llmc run`, `llmc chat` and `llmc serve`,
// opened through the C++ API (runtime/llmc.h) on the device of its chip,
// and the timing lines run and chat print after generating.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_BINARYOPTIONS_H
#define LLMC_TOOLS_LLMC_BINARYOPTIONS_H

#include "runtime/llmc.h"

#include <ostream>
#include <string>
#include <string_view>

namespace CLI {
class App;
} // namespace CLI

namespace llmc {

struct BinaryOptions {
  /// --model.
  std::string path;
};

/// Adds -m/--model to `command`.
void addBinaryOptions(CLI::App &command, BinaryOptions &options);

/// Opens `path` on the device of its chip with `threads` kernel threads
/// (0: every CPU the process may run on).
absl::StatusOr<std::unique_ptr<Model>> loadBinaryModel(const std::string &path,
                                                       unsigned threads);

/// Prints how long the vision pieces took on `tiles` tiles: `hostSeconds`
/// measured and, when the device `modelled` its time, `deviceSeconds` on
/// `chip`.
void printVisionTimings(std::ostream &os, uint64_t tiles, double hostSeconds,
                        double deviceSeconds, std::string_view chip,
                        bool modelled);

/// Prints where the time of `timings` went: the prompt's tokens, the time to
/// the first token, and the decode throughput on the host and, when the
/// device `modelled` its time, on `chip`.
void printTimings(std::ostream &os, const GenerateTimings &timings,
                  std::string_view chip, bool modelled);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_BINARYOPTIONS_H
