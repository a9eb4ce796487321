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
#include "support/LlvmStatus.h"
#include "tools/llmc/Commands.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string>
    templateFile("template-file", cl::desc("The Jinja chat template"),
                 cl::value_desc("path"), cl::Required,
                 cl::sub(getTemplateCommand()));
static cl::opt<std::string> contextFile(
    "context",
    cl::desc("A JSON object of the template's variables ('-': stdin)"),
    cl::value_desc("path"), cl::Required, cl::sub(getTemplateCommand()));
static cl::opt<std::string>
    date("date", cl::desc("The date strftime_now reports (YYYY-MM-DD)"),
         cl::value_desc("date"), cl::sub(getTemplateCommand()));

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

static llvm::Expected<std::string> readFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false);
  if (!buffer)
    return makeError(path + ": cannot read: " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// Noon of --date in local time, so that any time zone keeps the day.
static llvm::Expected<std::optional<std::time_t>> parseDate() {
  if (date.empty())
    return std::nullopt;
  std::tm day = {};
  char rest = 0;
  if (std::sscanf(date.c_str(), "%4d-%2d-%2d%c", &day.tm_year, &day.tm_mon,
                  &day.tm_mday, &rest) != 3 ||
      day.tm_mon < 1 || day.tm_mon > 12 || day.tm_mday < 1 ||
      day.tm_mday > 31)
    return makeError("--date '" + date + "' is not a date (YYYY-MM-DD)");
  day.tm_year -= 1900;
  day.tm_mon -= 1;
  day.tm_hour = 12;
  day.tm_isdst = -1;
  return std::optional<std::time_t>(std::mktime(&day));
}

static llvm::Error renderTemplate() {
  llvm::Expected<std::optional<std::time_t>> now = parseDate();
  if (!now)
    return now.takeError();
  llvm::Expected<chat::JinjaTemplate> jinja =
      support::toExpected(chat::JinjaTemplate::fromFile(templateFile));
  if (!jinja)
    return jinja.takeError();
  llvm::Expected<std::string> contextText = readFile(contextFile);
  if (!contextText)
    return contextText.takeError();
  nlohmann::ordered_json context = nlohmann::ordered_json::parse(
      *contextText, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (context.is_discarded())
    return makeError(contextFile + ": not JSON");
  if (!context.is_object())
    return makeError(contextFile + ": not a JSON object of the template's "
                                   "variables");
  llvm::Expected<chat::ChatPrompt> prompt =
      support::toExpected(jinja->render(context, *now));
  if (!prompt)
    return prompt.takeError();
  llvm::outs() << prompt->text;
  return llvm::Error::success();
}

int runTemplateCommand() {
  if (llvm::Error error = renderTemplate())
    return reportError(std::move(error));
  return 0;
}

} // namespace llmc
