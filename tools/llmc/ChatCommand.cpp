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
#include "tools/llmc/GenerationOptions.h"
#include "tools/llmc/ReportLlvmError.h"
#include "tools/llmc/RuntimeCommands.h"
#include "tools/llmc/SamplingOptions.h"

#include "runtime/session/CacheCapacityError.h"
#include "runtime/vision/ImageFile.h"
#include "support/LlvmStatus.h"
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
static llvm::Expected<std::optional<GenerateResult>>
sendOrStartOver(ChatSession &chat, std::string_view text,
                const TokenCallback &print, const GenerateOptions &options,
                const std::vector<vision::Image> &images) {
  llvm::Expected<GenerateResult> reply =
      chat.send(text, print, options, images);
  if (reply)
    return std::move(*reply);
  std::string full;
  if (llvm::Error other = llvm::handleErrors(
          reply.takeError(), [&](const session::CacheCapacityError &error) {
            full = error.message();
          }))
    return std::move(other);
  llvm::Expected<bool> fits = chat.fitsNewConversation(text, options);
  if (!fits)
    return fits.takeError();
  if (!*fits) {
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
  reply = chat.send(text, print, options, images);
  if (!reply)
    return reply.takeError();
  return std::move(*reply);
}

/// The options the flags give; the binary's defaults for the rest.
static llvm::Expected<GenerateOptions>
getChatOptions(const ChatOptions &chatOptions, const Model &model) {
  GenerateOptions options;
  if (chatOptions.generation.maxNewTokens) {
    absl::StatusOr<int64_t> maxNewTokens =
        getMaxNewTokens(chatOptions.generation);
    if (!maxNewTokens.ok())
      return support::toLlvmError(maxNewTokens.status());
    options.maxNewTokens = *maxNewTokens;
  }
  llvm::Expected<std::optional<sampling::SamplingParams>> sampling =
      getSamplingParams(chatOptions.sampling, model);
  if (!sampling)
    return sampling.takeError();
  options.sampling = *sampling;
  options.parseSpecialTokens = chatOptions.generation.allowSpecial;
  return options;
}

/// The template --template-file names, rendering with the binary's tokens.
static llvm::Expected<chat::ChatTemplate>
readTemplateFile(const std::string &templateFile, const Model &model) {
  llvm::Expected<chat::JinjaTemplate> jinja =
      support::toExpected(chat::JinjaTemplate::fromFile(templateFile));
  if (!jinja)
    return jinja.takeError();
  return model.makeJinjaChatTemplate(std::move(*jinja));
}

static llvm::Expected<std::unique_ptr<ChatSession>>
startChat(const ChatOptions &options, Model &model) {
  const std::string &templateName = options.templateName;
  const std::string &templateFile = options.templateFile;
  std::optional<chat::ChatTemplate> chosen;
  if (!templateName.empty() && !templateFile.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--template and --template-file exclude "
                                   "each other");
  if (!templateFile.empty()) {
    llvm::Expected<chat::ChatTemplate> read =
        readTemplateFile(templateFile, model);
    if (!read)
      return read.takeError();
    chosen = std::move(*read);
  } else if (!model.getChatTemplateProblem().empty()) {
    printWarning(
        support::strCat(std::string_view(model.getChatTemplateProblem()),
                        "; using the built-in ",
                        std::string_view(chat::stringifyChatFormat(
                            model.getChatTemplate().getFormat())),
                        " format instead"));
  }
  if (!templateName.empty()) {
    llvm::Expected<chat::ChatTemplate> named =
        support::toExpected(chat::ChatTemplate::get(templateName));
    if (!named)
      return named.takeError();
    chosen = *named;
  }
  if (!options.templateVariables.empty()) {
    nlohmann::ordered_json variables =
        nlohmann::ordered_json::parse(options.templateVariables, /*cb=*/nullptr,
                                      /*allow_exceptions=*/false);
    if (variables.is_discarded())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--template-vars is not JSON");
    llvm::Expected<chat::ChatTemplate> withVariables = support::toExpected(
        chosen.value_or(model.getChatTemplate()).withVariables(variables));
    if (!withVariables)
      return withVariables.takeError();
    chosen = std::move(*withVariables);
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
  llvm::Expected<std::unique_ptr<Model>> model =
      loadBinaryModel(chatOptions.binary.path, chatOptions.generation.threads);
  if (!model)
    return reportError(model.takeError());
  llvm::Expected<GenerateOptions> options =
      getChatOptions(chatOptions, **model);
  if (!options)
    return reportError(options.takeError());
  llvm::Expected<std::unique_ptr<ChatSession>> chat =
      startChat(chatOptions, **model);
  if (!chat)
    return reportError(chat.takeError());
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
      llvm::Expected<vision::Image> image =
          support::toExpected(vision::readImageFile(file));
      if (!image) {
        printError(llvm::toString(image.takeError()));
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
    llvm::Expected<std::optional<GenerateResult>> sent =
        sendOrStartOver(**chat, text, print, *options, images);
    bool withImages = !images.empty();
    images.clear();
    if (!sent && !withImages)
      return reportError(sent.takeError());
    if (!sent) {
      // A message whose images cannot be placed (a text model, markers
      // that do not match) is refused; the chat goes on.
      printError(llvm::toString(sent.takeError()));
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
