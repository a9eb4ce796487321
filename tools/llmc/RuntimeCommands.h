//===- RuntimeCommands.h - the subcommands that need no compiler -*- C++
//-*-===//
//
// run, chat, serve, inspect and template work on compiled binaries and chat
// templates alone: llmc and llmc-run both serve them, on CLI11 (llmc-run
// links no LLVM's command line). Each command adds its options to its
// CLI::App and returns what runs it once the command line is parsed.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_RUNTIMECOMMANDS_H
#define LLMC_TOOLS_LLMC_RUNTIMECOMMANDS_H

#include <functional>
#include <string_view>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace llmc {

/// Runs a parsed command; its exit code.
using CommandAction = std::function<int()>;

struct RuntimeCommand {
  const char *name;
  /// What `--help` says of it.
  const char *description;
  /// Adds the command's options to `command`.
  CommandAction (*add)(CLI::App &command);
};

/// run, chat, serve, inspect and template.
const std::vector<RuntimeCommand> &getRuntimeCommands();
bool isRuntimeCommand(std::string_view name);

/// Parses `argv` (`<toolName> <command> <options>`) and runs the command;
/// its exit code. Command-line errors print a message and give 1.
int runRuntimeCommandLine(int argc, char **argv, std::string_view toolName);

/// `run`: generates with a compiled binary on its chip's device.
CommandAction addRunCommand(CLI::App &command);
/// `chat`: an interactive chat with a compiled binary.
CommandAction addChatCommand(CLI::App &command);
/// `serve`: an OpenAI-compatible HTTP server over a compiled binary.
CommandAction addServeCommand(CLI::App &command);
/// `inspect`: what a compiled binary holds.
CommandAction addInspectCommand(CLI::App &command);
/// `template`: renders a Jinja chat template with given variables.
CommandAction addTemplateCommand(CLI::App &command);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_RUNTIMECOMMANDS_H
