//===- ChatCommand.cpp - llmc chat: a conversation with a binary ----------===//
//
//   llmc chat -m model.llmc [--system "You are terse."]
//             [--template chatml | --template-file T.jinja]
//             [--template-vars '{"enable_thinking": false}']
//             [--max-new-tokens N] [--temperature 0.7 ...] [--ids-out F]
//
// Reads one user turn per line of stdin, until its end or a line `/exit`;
// `/reset` starts the conversation over; `/image F` (a vision-language
// binary) reads an image that goes with the next message, where its
// `<image>` marker stands (in front of it when it has none). Each turn is
// rendered with the binary's chat template and generated on one ChatSession
// (runtime/llmc.h), so the KV cache keeps the history and a turn feeds only its
// new tokens. The reply streams to stdout; then stderr gets the turn's time to
// the first token and its decode tokens/s, on the host and modelled on the
// chip.
//
// A message that would overflow the KV cache starts a new conversation (and
// says so); a reply that fills it ends there, and the next message starts
// over. Works the same with stdin from a pipe, where each message is echoed
// after "> " so the transcript reads as a conversation.
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/BinaryOptions.h"
#include "tools/llmc/CommandSupport.h"
#include "tools/llmc/GenerationOptions.h"
#include "tools/llmc/RuntimeCommands.h"
#include "tools/llmc/SamplingOptions.h"

#include "runtime/session/Session.h"
#include "runtime/vision/ImageFile.h"
#include "support/Status.h"
#include "support/Strings.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

namespace llmc {

namespace {
struct ChatOptions {
  BinaryOptions binary;
  GenerationOptions generation;
  SamplingOptions sampling;
  /// --system.
  std::string systemPrompt;
  /// --template: a built-in chat format.
  std::string templateName;
  std::string templateFile;
  /// --template-vars: a JSON object.
  std::string templateVariables;
};
} // namespace

/// Sends `text`; when the conversation has grown too long for the KV cache
/// to take it but a new one would, says so, starts over and sends it again.
/// A message too long even for a new conversation is refused with an error
/// message, and none is returned.
static absl::StatusOr<std::optional<GenerateResult>>
sendOrStartOver(ChatSession &chat, std::string_view text,
                const TokenCallback &print, const GenerateOptions &options,
                const std::vector<vision::Image> &images) {
  absl::StatusOr<GenerateResult> reply =
      chat.send(text, print, options, images);
  if (reply.ok())
    return *std::move(reply);
  if (!session::getCacheCapacity(reply.status()))
    return reply.status();
  std::string full(reply.status().message());
  LLMC_ASSIGN_OR_RETURN(bool fits, chat.fitsNewConversation(text, options));
  if (!fits) {
    printError(support::strCat(
        "this message does not fit: ", full,
        ", and a new conversation holds too few tokens for it (send a "
        "shorter one, or convert with a larger --seq-length)"));
    return std::nullopt;
  }
  std::cerr << "note: " << full
            << ": starting a new conversation (the system message is "
               "kept)\n";
  chat.reset();
  LLMC_ASSIGN_OR_RETURN(GenerateResult again,
                        chat.send(text, print, options, images));
  return again;
}

/// The options the flags give; the binary's defaults for the rest.
static absl::StatusOr<GenerateOptions>
getChatOptions(const ChatOptions &chatOptions, const Model &model) {
  GenerateOptions options;
  if (chatOptions.generation.maxNewTokens) {
    LLMC_ASSIGN_OR_RETURN(options.maxNewTokens,
                          getMaxNewTokens(chatOptions.generation));
  }
  LLMC_ASSIGN_OR_RETURN(options.sampling,
                        getSamplingParams(chatOptions.sampling, model));
  options.parseSpecialTokens = chatOptions.generation.allowSpecial;
  return options;
}

/// The template --template-file names, rendering with the binary's tokens.
static absl::StatusOr<chat::ChatTemplate>
readTemplateFile(const std::string &templateFile, const Model &model) {
  LLMC_ASSIGN_OR_RETURN(chat::JinjaTemplate jinja,
                        chat::JinjaTemplate::fromFile(templateFile));
  return model.makeJinjaChatTemplate(std::move(jinja));
}

static absl::StatusOr<std::unique_ptr<ChatSession>>
startChat(const ChatOptions &options, Model &model) {
  const std::string &templateName = options.templateName;
  const std::string &templateFile = options.templateFile;
  std::optional<chat::ChatTemplate> chosen;
  if (!templateName.empty() && !templateFile.empty())
    return absl::InvalidArgumentError(
        "--template and --template-file exclude each other");
  if (!templateFile.empty()) {
    LLMC_ASSIGN_OR_RETURN(chosen, readTemplateFile(templateFile, model));
  } else if (!model.getChatTemplateProblem().empty()) {
    printWarning(
        support::strCat(std::string_view(model.getChatTemplateProblem()),
                        "; using the built-in ",
                        std::string_view(chat::stringifyChatFormat(
                            model.getChatTemplate().getFormat())),
                        " format instead"));
  }
  if (!templateName.empty()) {
    LLMC_ASSIGN_OR_RETURN(chosen, chat::ChatTemplate::get(templateName));
  }
  if (!options.templateVariables.empty()) {
    nlohmann::ordered_json variables =
        nlohmann::ordered_json::parse(options.templateVariables, /*cb=*/nullptr,
                                      /*allow_exceptions=*/false);
    if (variables.is_discarded())
      return absl::InvalidArgumentError("--template-vars is not JSON");
    LLMC_ASSIGN_OR_RETURN(
        chosen,
        chosen.value_or(model.getChatTemplate()).withVariables(variables));
  }
  return model.startChat(options.systemPrompt, chosen);
}

/// "the checkpoint's chat template" or "the built-in chatml format".
static std::string describeTemplate(const chat::ChatTemplate &chatTemplate,
                                    const std::string &templateFile) {
  if (chatTemplate.getJinja())
    return templateFile.empty() ? "the checkpoint's chat template"
                                : templateFile + " as chat template";
  return support::strCat(
      "the built-in ",
      std::string_view(chat::stringifyChatFormat(chatTemplate.getFormat())),
      " format");
}

/// `line` without the line break it ended with.
static std::string_view dropLineBreak(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
    line.remove_suffix(1);
  return line;
}

static int runChat(const ChatOptions &chatOptions) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      loadBinaryModel(chatOptions.binary.path, chatOptions.generation.threads);
  if (!model.ok())
    return reportError(model.status());
  absl::StatusOr<GenerateOptions> options =
      getChatOptions(chatOptions, **model);
  if (!options.ok())
    return reportError(options.status());
  absl::StatusOr<std::unique_ptr<ChatSession>> chat =
      startChat(chatOptions, **model);
  if (!chat.ok())
    return reportError(chat.status());
  const binary::Manifest &manifest = (*model)->getManifest();
  std::cerr << std::string_view((*model)->getBinary().name()) << ": "
            << manifest.model().family() << " for " << manifest.chip() << " "
            << manifest.precision() << ", "
            << describeTemplate((*chat)->getChatTemplate(),
                                chatOptions.templateFile)
            << ", " << (*chat)->getConversation().getCapacity()
            << "-token KV cache; /reset starts over, /exit quits"
            << ((*model)->getVisionConfig() ? ", /image F adds an image" : "")
            << "\n";

  bool interactive = ::isatty(STDIN_FILENO);
  auto print = [](int32_t, std::string_view text) {
    std::cout << text << std::flush;
    return true;
  };
  std::vector<session::Turn> turns;
  // Images read with /image, for the next message.
  std::vector<vision::Image> images;
  std::string line;
  while (true) {
    if (interactive)
      std::cout << "> ";
    std::cout.flush();
    if (!std::getline(std::cin, line))
      break;
    std::string_view text = dropLineBreak(line);
    std::string_view command = support::trim(text);
    if (command == "/exit")
      break;
    if (command == "/reset") {
      (*chat)->reset();
      std::cerr << "(the conversation starts over)\n";
      continue;
    }
    if (support::consumePrefix(command, "/image ")) {
      std::string file(support::trim(command));
      absl::StatusOr<vision::Image> image = vision::readImageFile(file);
      if (!image.ok()) {
        printError(support::getMessage(image.status()));
        continue;
      }
      std::cerr << "(" << file << ", " << image->width << "x" << image->height
                << ", goes with your next message)\n";
      images.push_back(std::move(*image));
      continue;
    }
    if (command.empty())
      continue;
    if (!interactive)
      std::cout << "> " << text << "\n" << std::flush;
    absl::StatusOr<std::optional<GenerateResult>> sent =
        sendOrStartOver(**chat, text, print, *options, images);
    bool withImages = !images.empty();
    images.clear();
    if (!sent.ok() && !withImages)
      return reportError(sent.status());
    if (!sent.ok()) {
      // A message whose images cannot be placed (a text model, markers
      // that do not match) is refused; the chat goes on.
      printError(support::getMessage(sent.status()));
      continue;
    }
    if (!*sent)
      continue;
    const GenerateResult &reply = **sent;
    std::cout << "\n" << std::flush;
    printTimings(std::cerr, reply.timings, manifest.chip(),
                 (*model)->isTimeModelled());
    turns.push_back({reply.promptIds, reply.ids});
    if (reply.finish == FinishReason::CacheFull) {
      std::cerr << "note: the reply filled the KV cache ("
                << (*chat)->getConversation().getCapacity()
                << " tokens): the conversation starts over\n";
      (*chat)->reset();
    }
  }
  if (absl::Status status = writeGenerationOutputs(
          chatOptions.generation, turns, {}, (*model)->getDims().vocabSize,
          /*printIds=*/false);
      !status.ok())
    return reportError(status);
  return 0;
}

CommandAction addChatCommand(CLI::App &command) {
  auto options = std::make_shared<ChatOptions>();
  addBinaryOptions(command, options->binary);
  command.add_option("--system", options->systemPrompt,
                     "The system message opening the chat");
  command.add_option("--template", options->templateName,
                     "A built-in chat format: raw, chatml, qwen2, qwen2.5, "
                     "qwen3, llama2 or llama3 (default: the binary's "
                     "template)");
  command
      .add_option("--template-file", options->templateFile,
                  "A Jinja chat template to render the conversation with "
                  "instead of the binary's")
      ->type_name("path");
  command
      .add_option("--template-vars", options->templateVariables,
                  "Extra keywords for the Jinja chat template, as a JSON "
                  "object (for Qwen3: '{\"enable_thinking\": false}')")
      ->type_name("json");
  addGenerationOptions(command, options->generation, /*withInputIds=*/false);
  addSamplingOptions(command, options->sampling);
  return [options] { return runChat(*options); };
}

} // namespace llmc
