//===- RuntimeCommands.cpp - the subcommands that need no compiler --------===//
//
// run, chat, serve, inspect and template work on compiled binaries and chat
// templates alone: llmc and llmc-run both serve them, and llmc-run links
// nothing of the compiler (runtime/test:no_compiler_test).
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/RuntimeCommands.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <utility>

namespace llmc {

const std::vector<RuntimeCommand> &getRuntimeCommands() {
  static const std::vector<RuntimeCommand> commands = {
      {"run", "Generate with a compiled .llmc binary on its chip's cmodel",
       addRunCommand},
      {"chat", "Chat with a compiled .llmc binary, a line of stdin per turn",
       addChatCommand},
      {"serve", "Serve a compiled .llmc binary over OpenAI's HTTP API",
       addServeCommand},
      {"inspect", "Print what a compiled .llmc binary holds",
       addInspectCommand},
      {"template",
       "Render a Jinja chat template with the variables of a JSON file, as "
       "apply_chat_template does",
       addTemplateCommand},
  };
  return commands;
}

bool isRuntimeCommand(std::string_view name) {
  for (const RuntimeCommand &command : getRuntimeCommands())
    if (name == command.name)
      return true;
  return false;
}

int runRuntimeCommandLine(int argc, char **argv, std::string_view toolName) {
  std::string name(toolName);
  CLI::App app(name + ": runs compiled .llmc binaries", name);
  app.require_subcommand(0, 1);
  std::vector<std::pair<CLI::App *, CommandAction>> actions;
  for (const RuntimeCommand &command : getRuntimeCommands()) {
    CLI::App *subcommand =
        app.add_subcommand(command.name, command.description);
    actions.emplace_back(subcommand, command.add(*subcommand));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    // --help is an "error" of exit code 0; every other one gives 1.
    return app.exit(error) == 0 ? 0 : 1;
  }
  for (const auto &[subcommand, action] : actions)
    if (subcommand->parsed())
      return action();
  std::cout << app.help();
  return 1;
}

} // namespace llmc
