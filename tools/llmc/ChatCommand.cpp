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
// `<image>` marker stands (in front of it when it has none). Each turn is rendered with the
// binary's chat template and generated on one ChatSession (runtime/llmc.h),
// so the KV cache keeps the history and a turn feeds only its new tokens.
// The reply streams to stdout; then stderr gets the turn's time to the first
// token and its decode tokens/s, on the host and modelled on the chip.
//
// A message that would overflow the KV cache starts a new conversation (and
// says so); a reply that fills it ends there, and the next message starts
// over. Works the same with stdin from a pipe, where each message is echoed
// after "> " so the transcript reads as a conversation.
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/BinaryOptions.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/GenerationOptions.h"
#include "tools/llmc/SamplingOptions.h"

#include "runtime/session/CacheCapacityError.h"
#include "runtime/vision/ImageFile.h"
#include "support/LlvmStatus.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string>
    systemPrompt("system", cl::desc("The system message opening the chat"),
                 cl::sub(getChatCommand()));
static cl::opt<std::string> templateName(
    "template",
    cl::desc("A built-in chat format: raw, chatml, qwen2, qwen2.5, qwen3, "
             "llama2 or llama3 (default: the binary's template)"),
    cl::sub(getChatCommand()));
static cl::opt<std::string> templateFile(
    "template-file",
    cl::desc("A Jinja chat template to render the conversation with "
             "instead of the binary's"),
    cl::value_desc("path"), cl::sub(getChatCommand()));

static cl::opt<std::string> templateVariables(
    "template-vars",
    cl::desc("Extra keywords for the Jinja chat template, as a JSON object "
             "(for Qwen3: '{\"enable_thinking\": false}')"),
    cl::value_desc("json"), cl::sub(getChatCommand()));

/// Sends `text`; when the conversation has grown too long for the KV cache
/// to take it but a new one would, says so, starts over and sends it again.
/// A message too long even for a new conversation is refused with an error
/// message, and none is returned.
static llvm::Expected<std::optional<GenerateResult>>
sendOrStartOver(ChatSession &chat, llvm::StringRef text,
                const TokenCallback &print, const GenerateOptions &options,
                llvm::ArrayRef<vision::Image> images) {
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
    llvm::WithColor::error(llvm::errs(), "llmc")
        << "this message does not fit: " << full
        << ", and a new conversation holds too few tokens for it (send a "
           "shorter one, or convert with a larger --seq-length)\n";
    return std::nullopt;
  }
  llvm::errs() << "note: " << full
               << ": starting a new conversation (the system message is "
                  "kept)\n";
  chat.reset();
  reply = chat.send(text, print, options, images);
  if (!reply)
    return reply.takeError();
  return std::move(*reply);
}

/// The options the flags give; the binary's defaults for the rest.
static llvm::Expected<GenerateOptions> getChatOptions(const Model &model) {
  GenerateOptions options;
  if (hasMaxNewTokens()) {
    llvm::Expected<int64_t> maxNewTokens = getMaxNewTokens();
    if (!maxNewTokens)
      return maxNewTokens.takeError();
    options.maxNewTokens = *maxNewTokens;
  }
  llvm::Expected<std::optional<sampling::SamplingParams>> sampling =
      getSamplingParams(model);
  if (!sampling)
    return sampling.takeError();
  options.sampling = *sampling;
  options.parseSpecialTokens = getAllowSpecial();
  return options;
}

/// The template --template-file names, rendering with the binary's tokens.
static llvm::Expected<chat::ChatTemplate> readTemplateFile(const Model &model) {
  llvm::Expected<chat::JinjaTemplate> jinja =
      chat::JinjaTemplate::fromFile(templateFile);
  if (!jinja)
    return jinja.takeError();
  return model.makeJinjaChatTemplate(std::move(*jinja));
}

static llvm::Expected<std::unique_ptr<ChatSession>> startChat(Model &model) {
  std::optional<chat::ChatTemplate> chosen;
  if (!templateName.empty() && !templateFile.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--template and --template-file exclude "
                                   "each other");
  if (!templateFile.empty()) {
    llvm::Expected<chat::ChatTemplate> read = readTemplateFile(model);
    if (!read)
      return read.takeError();
    chosen = std::move(*read);
  } else if (!model.getChatTemplateProblem().empty()) {
    llvm::WithColor::warning(llvm::errs(), "llmc")
        << model.getChatTemplateProblem() << "; using the built-in "
        << chat::stringifyChatFormat(model.getChatTemplate().getFormat())
        << " format instead\n";
  }
  if (!templateName.empty()) {
    llvm::Expected<chat::ChatTemplate> named =
        chat::ChatTemplate::get(templateName);
    if (!named)
      return named.takeError();
    chosen = *named;
  }
  if (!templateVariables.empty()) {
    nlohmann::ordered_json variables = nlohmann::ordered_json::parse(
        templateVariables.getValue(), /*cb=*/nullptr,
        /*allow_exceptions=*/false);
    if (variables.is_discarded())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--template-vars is not JSON");
    llvm::Expected<chat::ChatTemplate> withVariables =
        chosen.value_or(model.getChatTemplate()).withVariables(variables);
    if (!withVariables)
      return withVariables.takeError();
    chosen = std::move(*withVariables);
  }
  return model.startChat(systemPrompt, chosen);
}

/// "the checkpoint's chat template" or "the built-in chatml format".
static std::string describeTemplate(const chat::ChatTemplate &chatTemplate) {
  if (chatTemplate.getJinja())
    return templateFile.empty() ? "the checkpoint's chat template"
                                : templateFile + " as chat template";
  return "the built-in " +
         chat::stringifyChatFormat(chatTemplate.getFormat()).str() +
         " format";
}

int runChatCommand() {
  llvm::Expected<std::unique_ptr<Model>> model = loadBinaryModel();
  if (!model)
    return reportError(model.takeError());
  llvm::Expected<GenerateOptions> options = getChatOptions(**model);
  if (!options)
    return reportError(options.takeError());
  llvm::Expected<std::unique_ptr<ChatSession>> chat = startChat(**model);
  if (!chat)
    return reportError(chat.takeError());
  const binary::Manifest &manifest = (*model)->getManifest();
  llvm::errs() << (*model)->getBinary().name() << ": "
               << manifest.model().family() << " for " << manifest.chip() << " "
               << manifest.precision() << ", "
               << describeTemplate((*chat)->getChatTemplate()) << ", "
               << (*chat)->getConversation().getCapacity()
               << "-token KV cache; /reset starts over, /exit quits"
               << ((*model)->getVisionConfig() ? ", /image F adds an image"
                                               : "")
               << "\n";

  bool interactive = llvm::sys::Process::StandardInIsUserInput();
  auto print = [](int32_t, llvm::StringRef text) {
    llvm::outs() << text;
    llvm::outs().flush();
    return true;
  };
  std::vector<session::Turn> turns;
  // Images read with /image, for the next message.
  std::vector<vision::Image> images;
  std::string line;
  while (true) {
    if (interactive)
      llvm::outs() << "> ";
    llvm::outs().flush();
    if (!std::getline(std::cin, line))
      break;
    llvm::StringRef text = llvm::StringRef(line).rtrim("\r\n");
    if (text.trim() == "/exit")
      break;
    if (text.trim() == "/reset") {
      (*chat)->reset();
      llvm::errs() << "(the conversation starts over)\n";
      continue;
    }
    if (llvm::StringRef command = text.trim();
        command.consume_front("/image ")) {
      llvm::StringRef file = command.trim();
      llvm::Expected<vision::Image> image =
          support::toExpected(vision::readImageFile(file.str()));
      if (!image) {
        llvm::WithColor::error(llvm::errs(), "llmc")
            << llvm::toString(image.takeError()) << "\n";
        continue;
      }
      llvm::errs() << "(" << file << ", " << image->width << "x"
                   << image->height << ", goes with your next message)\n";
      images.push_back(std::move(*image));
      continue;
    }
    if (text.trim().empty())
      continue;
    if (!interactive) {
      llvm::outs() << "> " << text << "\n";
      llvm::outs().flush();
    }
    llvm::Expected<std::optional<GenerateResult>> sent =
        sendOrStartOver(**chat, text, print, *options, images);
    bool withImages = !images.empty();
    images.clear();
    if (!sent && !withImages)
      return reportError(sent.takeError());
    if (!sent) {
      // A message whose images cannot be placed (a text model, markers
      // that do not match) is refused; the chat goes on.
      llvm::WithColor::error(llvm::errs(), "llmc")
          << llvm::toString(sent.takeError()) << "\n";
      continue;
    }
    if (!*sent)
      continue;
    const GenerateResult &reply = **sent;
    llvm::outs() << "\n";
    llvm::outs().flush();
    printTimings(llvm::errs(), reply.timings, manifest.chip(),
                 (*model)->isTimeModelled());
    turns.push_back({reply.promptIds, reply.ids});
    if (reply.finish == FinishReason::CacheFull) {
      llvm::errs() << "note: the reply filled the KV cache ("
                   << (*chat)->getConversation().getCapacity()
                   << " tokens): the conversation starts over\n";
      (*chat)->reset();
    }
  }
  if (llvm::Error error = writeGenerationOutputs(
          turns, {}, (*model)->getDims().vocabSize, /*printIds=*/false))
    return reportError(std::move(error));
  return 0;
}

} // namespace llmc
