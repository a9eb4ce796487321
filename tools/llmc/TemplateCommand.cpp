//===- TemplateCommand.cpp - llmc template: render a chat template --------===//
//
//   llmc template --template-file T --context C.json [--date YYYY-MM-DD]
//
// Renders the Jinja chat template T with the variables of C.json, a JSON
// object as `apply_chat_template` passes them (`messages`,
// `add_generation_prompt`, `bos_token`, `eos_token`, `tools`, extra keywords
// such as `enable_thinking`), and prints the render byte for byte, with no
// newline added. `strftime_now` reports --date (at noon, local time) when
// given, else the current time.
//
//===----------------------------------------------------------------------===//

#include "runtime/chat/ChatTemplate.h"
#include "runtime/chat/JinjaTemplate.h"
#include "support/Strings.h"
#include "tools/llmc/CommandSupport.h"
#include "tools/llmc/RuntimeCommands.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

namespace llmc {

namespace {
struct TemplateOptions {
  std::string templateFile;
  /// --context: a JSON file, `-` for stdin.
  std::string contextFile;
  /// --date: YYYY-MM-DD.
  std::string date;
};
} // namespace

/// The bytes of `path`, or of stdin when it is `-`.
static absl::StatusOr<std::string> readFileOrStdin(const std::string &path) {
  std::FILE *file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!file)
    return absl::NotFoundError(
        support::strCat(path, ": cannot read: ", std::strerror(errno)));
  std::string bytes;
  char buffer[65536];
  while (size_t got = std::fread(buffer, 1, sizeof(buffer), file))
    bytes.append(buffer, got);
  int error = std::ferror(file) ? errno : 0;
  if (file != stdin)
    std::fclose(file);
  if (error)
    return absl::UnavailableError(
        support::strCat(path, ": cannot read: ", std::strerror(error)));
  return bytes;
}

/// Noon of --date in local time, so that any time zone keeps the day.
static absl::StatusOr<std::optional<std::time_t>>
parseDate(const std::string &date) {
  if (date.empty())
    return std::nullopt;
  std::tm day = {};
  char rest = 0;
  if (std::sscanf(date.c_str(), "%4d-%2d-%2d%c", &day.tm_year, &day.tm_mon,
                  &day.tm_mday, &rest) != 3 ||
      day.tm_mon < 1 || day.tm_mon > 12 || day.tm_mday < 1 || day.tm_mday > 31)
    return absl::InvalidArgumentError("--date '" + date +
                                      "' is not a date (YYYY-MM-DD)");
  day.tm_year -= 1900;
  day.tm_mon -= 1;
  day.tm_hour = 12;
  day.tm_isdst = -1;
  return std::optional<std::time_t>(std::mktime(&day));
}

static absl::Status renderTemplate(const TemplateOptions &options) {
  const std::string &contextFile = options.contextFile;
  LLMC_ASSIGN_OR_RETURN(std::optional<std::time_t> now,
                        parseDate(options.date));
  LLMC_ASSIGN_OR_RETURN(chat::JinjaTemplate jinja,
                        chat::JinjaTemplate::fromFile(options.templateFile));
  LLMC_ASSIGN_OR_RETURN(std::string contextText, readFileOrStdin(contextFile));
  nlohmann::ordered_json context = nlohmann::ordered_json::parse(
      contextText, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (context.is_discarded())
    return absl::InvalidArgumentError(contextFile + ": not JSON");
  if (!context.is_object())
    return absl::InvalidArgumentError(
        contextFile + ": not a JSON object of the template's variables");
  LLMC_ASSIGN_OR_RETURN(chat::ChatPrompt prompt, jinja.render(context, now));
  std::cout << prompt.text;
  return absl::OkStatus();
}

CommandAction addTemplateCommand(CLI::App &command) {
  auto options = std::make_shared<TemplateOptions>();
  command
      .add_option("--template-file", options->templateFile,
                  "The Jinja chat template")
      ->type_name("path")
      ->required();
  command
      .add_option("--context", options->contextFile,
                  "A JSON object of the template's variables ('-': stdin)")
      ->type_name("path")
      ->required();
  command
      .add_option("--date", options->date,
                  "The date strftime_now reports (YYYY-MM-DD)")
      ->type_name("date");
  return [options] {
    absl::Status status = renderTemplate(*options);
    return status.ok() ? 0 : reportError(status);
  };
}

} // namespace llmc
