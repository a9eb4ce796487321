//===- Model.cpp - a compiled model, ready to generate --------------------===//

#include "runtime/api/Model.h"

#include "plugins/DeviceRegistry.h"
#include "runtime/api/ChatSession.h"
#include "runtime/api/Conversation.h"
#include "runtime/api/VisionManifest.h"
#include "runtime/device/BinaryRunner.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/vision/ImagePrompt.h"
#include "support/LlvmStatus.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

namespace llmc {

static llvm::Error modelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Model::~Model() = default;

/// The template of the binary: its chat_template, as a checkpoint's
/// tokenizer config would hold it, naming the stop tokens as the config's
/// added tokens (which tells Llama 3 from Llama 2), else its family's.
static chat::ChatTemplate detectChatTemplate(const binary::Manifest &manifest,
                                             const tokenizer::Tokenizer *tok) {
  llvm::json::Object added;
  if (tok)
    for (int32_t id : manifest.generation().stop_token_ids())
      added[std::to_string(id)] =
          llvm::json::Object{{"content", tok->idToToken(id)}};
  llvm::json::Object config{{"chat_template", manifest.chat_template()},
                            {"added_tokens_decoder", std::move(added)}};
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(config));
  llvm::Expected<chat::ChatTemplate> detected = support::toExpected(
      chat::ChatTemplate::detect(text, manifest.model().family()));
  // The config is well-formed by construction, so detection cannot fail.
  if (!detected) {
    llvm::consumeError(detected.takeError());
    return chat::ChatTemplate();
  }
  return *detected;
}

/// The texts of the BOS token and of the EOS token the binary's template
/// reads: the checkpoint's eos_token, else the first stop token.
static std::pair<std::string, std::string>
getTemplateTokens(const binary::Manifest &manifest,
                  const tokenizer::Tokenizer &tok) {
  const binary::GenerationDefaults &generation = manifest.generation();
  std::string bos, eos = manifest.chat_eos_token();
  if (generation.bos_token_id() >= 0)
    bos = tok.idToToken(generation.bos_token_id());
  if (eos.empty() && !generation.stop_token_ids().empty())
    eos = tok.idToToken(generation.stop_token_ids(0));
  return {std::move(bos), std::move(eos)};
}

void Model::loadChatTemplate() {
  const binary::Manifest &manifest = getManifest();
  chatTemplate = detectChatTemplate(manifest, tokenizer.get());
  if (manifest.chat_template().empty() || !tokenizer)
    return;
  std::string origin = binary->name() + ": chat_template";
  llvm::Expected<chat::JinjaTemplate> jinja = support::toExpected(
      chat::JinjaTemplate::compile(manifest.chat_template(), origin));
  if (!jinja) {
    chatTemplateProblem = llvm::toString(jinja.takeError());
    return;
  }
  llvm::Expected<chat::ChatTemplate> rendering =
      makeJinjaChatTemplate(std::move(*jinja));
  if (!rendering) {
    chatTemplateProblem = llvm::toString(rendering.takeError());
    if (!llvm::StringRef(chatTemplateProblem).starts_with(origin))
      chatTemplateProblem = origin + ": " + chatTemplateProblem;
    return;
  }
  chatTemplate = std::move(*rendering);
}

llvm::Expected<chat::ChatTemplate>
Model::makeJinjaChatTemplate(chat::JinjaTemplate jinja) const {
  if (!tokenizer)
    return modelError(binary->name() + " holds no tokenizer, so it cannot "
                                       "render a chat template");
  auto [bos, eos] = getTemplateTokens(getManifest(), *tokenizer);
  // The detected format (stop strings, fallback) stays what it is.
  return support::toExpected(
      chatTemplate.withJinja(std::move(jinja), std::move(bos), std::move(eos)));
}

llvm::Error Model::loadTokenizer() {
  if (binary->tokenizerJson().empty())
    return llvm::Error::success();
  llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> loaded =
      support::toExpected(tokenizer::Tokenizer::fromJson(
          binary->tokenizerJson(), binary->name() + ": tokenizer"));
  if (!loaded)
    return loaded.takeError();
  tokenizer = std::move(*loaded);
  return llvm::Error::success();
}

llvm::Error Model::loadVision() {
  const binary::Manifest &manifest = getManifest();
  if (!manifest.has_vision())
    return llvm::Error::success();
  llvm::Expected<vision::VisionConfig> config =
      readVisionConfig(manifest, getDims().hiddenSize);
  if (!config)
    return modelError(binary->name() + ": " +
                      llvm::toString(config.takeError()));
  std::optional<int32_t> placeholder =
      tokenizer ? tokenizer->tokenToId(config->placeholder) : std::nullopt;
  if (!placeholder)
    return modelError(binary->name() +
                      ": manifest vision: the tokenizer has no placeholder "
                      "token '" +
                      config->placeholder + "'");
  visionConfig = std::move(*config);
  imagePlaceholderId = *placeholder;
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Model>>
Model::load(llvm::StringRef path, const ModelOptions &options) {
  std::unique_ptr<Model> model(new Model());
  llvm::Expected<std::unique_ptr<binary::LoadedBinary>> binary =
      support::toExpected(
          binary::LoadedBinary::open(path.str(), options.verifyChecksums));
  if (!binary)
    return binary.takeError();
  model->binary = std::move(*binary);
  const binary::Manifest &manifest = model->getManifest();

  std::unique_ptr<plugins::DeviceRegistry> linked;
  const plugins::DeviceRegistry *devices = options.devices;
  if (!devices) {
    llvm::Expected<std::unique_ptr<plugins::DeviceRegistry>> created =
        support::toExpected(plugins::createLinkedDeviceRegistry());
    if (!created)
      return created.takeError();
    linked = std::move(*created);
    devices = linked.get();
  }
  cmodel::DeviceOptions deviceOptions;
  deviceOptions.threads = options.threads;
  llvm::Expected<std::unique_ptr<cmodel::StreamDevice>> device =
      support::toExpected(
          devices->createDevice(manifest.chip(), deviceOptions));
  if (!device)
    return modelError(model->binary->name() +
                      ": compiled for a chip this "
                      "build cannot run: " +
                      llvm::toString(device.takeError()));
  llvm::Expected<std::unique_ptr<device::BinaryRunner>> runner =
      device::BinaryRunner::create(*model->binary, std::move(*device));
  if (!runner)
    return runner.takeError();
  model->runner = std::move(*runner);
  llvm::Expected<std::optional<DeviceSampling>> head =
      DeviceSampling::find(*model->runner);
  if (!head)
    return modelError(model->binary->name() + ": " +
                      llvm::toString(head.takeError()));
  model->deviceSampling = std::move(*head);

  if (llvm::Error error = model->loadTokenizer())
    return std::move(error);
  if (llvm::Error error = model->loadVision())
    return std::move(error);
  model->loadChatTemplate();
  const binary::GenerationDefaults &generation = manifest.generation();
  model->stopTokens.assign(generation.stop_token_ids().begin(),
                           generation.stop_token_ids().end());
  if (model->tokenizer)
    for (const std::string &text : model->chatTemplate.stopStrings())
      if (std::optional<int32_t> id = model->tokenizer->tokenToId(text))
        if (!llvm::is_contained(model->stopTokens, *id))
          model->stopTokens.push_back(*id);
  return std::move(model);
}

session::ModelDims Model::getDims() const { return runner->getModelDims(); }

bool Model::isTimeModelled() const { return runner->modelsTime(); }

int64_t Model::getDefaultMaxNewTokens() const {
  int64_t configured = getManifest().generation().max_new_tokens();
  return configured > 0 ? configured : getDims().seqLength;
}

llvm::Expected<std::vector<int32_t>>
Model::encode(llvm::StringRef text, bool addSpecialTokens,
              llvm::ArrayRef<tokenizer::TextRange> plainText) const {
  if (!tokenizer)
    return modelError(binary->name() +
                      " holds no tokenizer, so text cannot be encoded: give "
                      "token ids");
  return tokenizer->encode(text, addSpecialTokens, plainText);
}

llvm::Expected<std::vector<int32_t>>
Model::encodePrompt(llvm::StringRef prompt, bool parseSpecialTokens) const {
  std::vector<tokenizer::TextRange> plainText;
  if (!parseSpecialTokens)
    plainText.push_back({0, prompt.size()});
  llvm::Expected<std::vector<int32_t>> ids =
      encode(prompt, /*addSpecialTokens=*/true, plainText);
  if (ids && ids->empty())
    return modelError("the prompt '" + prompt + "' encodes to no tokens");
  return ids;
}

llvm::Expected<GenerateResult> Model::generate(llvm::StringRef prompt,
                                               const GenerateOptions &options,
                                               const TokenCallback &callback) {
  llvm::Expected<std::vector<int32_t>> ids =
      encodePrompt(prompt, options.parseSpecialTokens);
  if (!ids)
    return ids.takeError();
  return generate(llvm::ArrayRef<int32_t>(*ids), options, callback);
}

llvm::Expected<ImagePrompt>
Model::encodeImagePrompt(llvm::StringRef text,
                         llvm::ArrayRef<vision::Image> images,
                         bool parseSpecialTokens) {
  llvm::Expected<chat::ChatPrompt> prompt =
      support::toExpected(chatTemplate.render(
          {chat::ChatMessage{
              chat::Role::User,
              vision::addImageMarker(text, getImageMarker(), images.size())}},
          /*addGenerationPrompt=*/true));
  if (!prompt)
    return prompt.takeError();
  return encodeWithImages(std::move(*prompt), images, parseSpecialTokens);
}

llvm::Expected<ImagePrompt>
Model::encodeWithImages(chat::ChatPrompt prompt,
                        llvm::ArrayRef<vision::Image> images,
                        bool parseSpecialTokens) {
  if (!visionConfig || !imagePlaceholderId)
    return modelError(binary->name() + " has no vision piece: it takes no "
                                       "images");
  const std::string &marker = visionConfig->marker;
  size_t markers = vision::countMarkers(prompt.text, marker);
  if (markers != images.size())
    return modelError("the prompt has " + llvm::Twine(markers) + " " + marker +
                      " markers for " + llvm::Twine(images.size()) +
                      " images");
  ImagePrompt result;
  std::vector<float> rows;
  for (auto [index, image] : llvm::enumerate(images)) {
    vision::PreparedImage prepared =
        vision::preprocessImage(image, *visionConfig);
    llvm::Expected<top::Tensor> embedded = support::toExpected(
        vision::embedImage(*runner, prepared, *visionConfig));
    if (!embedded)
      return embedded.takeError();
    llvm::ArrayRef<float> values = std::as_const(*embedded).getF32();
    rows.insert(rows.end(), values.begin(), values.end());
    result.tiles += prepared.getRuns();
    prompt.replaceWithMarkup(
        marker, vision::getImageText(prepared, static_cast<int64_t>(index),
                                     *visionConfig));
  }
  // The rendered text holds the BOS token where the template puts one.
  llvm::Expected<std::vector<int32_t>> ids =
      encode(prompt.text, /*addSpecialTokens=*/false,
             parseSpecialTokens ? llvm::ArrayRef<tokenizer::TextRange>()
                                : llvm::ArrayRef(prompt.contents));
  if (!ids)
    return ids.takeError();
  result.ids = std::move(*ids);
  llvm::Expected<session::PlacedEmbeddings> placed = support::toExpected(
      vision::placeEmbeddings(result.ids, *imagePlaceholderId, std::move(rows),
                              visionConfig->hiddenSize));
  if (!placed)
    return placed.takeError();
  result.placed = std::move(*placed);
  return result;
}

llvm::Expected<GenerateResult>
Model::generate(llvm::StringRef prompt, llvm::ArrayRef<vision::Image> images,
                const GenerateOptions &options, const TokenCallback &callback) {
  llvm::Expected<ImagePrompt> encoded =
      encodeImagePrompt(prompt, images, options.parseSpecialTokens);
  if (!encoded)
    return encoded.takeError();
  return Conversation(*this).send(encoded->ids, options, callback,
                                  PendingToken::Feed, &encoded->placed);
}

llvm::Expected<GenerateResult> Model::generate(llvm::ArrayRef<int32_t> ids,
                                               const GenerateOptions &options,
                                               const TokenCallback &callback) {
  return Conversation(*this).send(ids, options, callback);
}

std::unique_ptr<Conversation> Model::startConversation() {
  return std::make_unique<Conversation>(*this);
}

llvm::Expected<std::unique_ptr<ChatSession>>
Model::startChat(llvm::StringRef systemPrompt,
                 std::optional<chat::ChatTemplate> chatTemplate) {
  if (!tokenizer)
    return modelError(binary->name() +
                      " holds no tokenizer, so it cannot chat: reconvert a "
                      "checkpoint that has tokenizer.json");
  return std::make_unique<ChatSession>(
      *this, chatTemplate.value_or(this->chatTemplate), systemPrompt.str());
}

} // namespace llmc
