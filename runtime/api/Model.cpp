//===- Model.cpp - a compiled model, ready to generate --------------------===//

#include "runtime/api/Model.h"

#include "plugins/DeviceRegistry.h"
#include "runtime/api/ChatSession.h"
#include "runtime/api/Conversation.h"
#include "runtime/api/VisionManifest.h"
#include "runtime/device/BinaryRunner.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/vision/ImagePrompt.h"
#include "support/Status.h"
#include "support/Strings.h"

#include "absl/algorithm/container.h"

#include <nlohmann/json.hpp>

namespace llmc {

Model::~Model() = default;

/// The template of the binary: its chat_template, as a checkpoint's
/// tokenizer config would hold it, naming the stop tokens as the config's
/// added tokens (which tells Llama 3 from Llama 2), else its family's.
static chat::ChatTemplate detectChatTemplate(const binary::Manifest &manifest,
                                             const tokenizer::Tokenizer *tok) {
  nlohmann::json added = nlohmann::json::object();
  if (tok)
    for (int32_t id : manifest.generation().stop_token_ids())
      added[std::to_string(id)] = {{"content", tok->idToToken(id)}};
  nlohmann::json config = {{"chat_template", manifest.chat_template()},
                           {"added_tokens_decoder", std::move(added)}};
  // Names and templates need not be valid UTF-8: replaced, not thrown on.
  std::string text =
      config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  absl::StatusOr<chat::ChatTemplate> detected =
      chat::ChatTemplate::detect(text, manifest.model().family());
  // The config is well-formed by construction, so detection cannot fail.
  return detected.ok() ? *std::move(detected) : chat::ChatTemplate();
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
  absl::StatusOr<chat::JinjaTemplate> jinja =
      chat::JinjaTemplate::compile(manifest.chat_template(), origin);
  if (!jinja.ok()) {
    chatTemplateProblem = std::string(jinja.status().message());
    return;
  }
  absl::StatusOr<chat::ChatTemplate> rendering =
      makeJinjaChatTemplate(*std::move(jinja));
  if (!rendering.ok()) {
    chatTemplateProblem = std::string(rendering.status().message());
    if (!support::startsWith(chatTemplateProblem, origin))
      chatTemplateProblem = origin + ": " + chatTemplateProblem;
    return;
  }
  chatTemplate = *std::move(rendering);
}

absl::StatusOr<chat::ChatTemplate>
Model::makeJinjaChatTemplate(chat::JinjaTemplate jinja) const {
  if (!tokenizer)
    return absl::FailedPreconditionError(
        binary->name() +
        " holds no tokenizer, so it cannot render a chat template");
  auto [bos, eos] = getTemplateTokens(getManifest(), *tokenizer);
  // The detected format (stop strings, fallback) stays what it is.
  return chatTemplate.withJinja(std::move(jinja), std::move(bos),
                                std::move(eos));
}

absl::Status Model::loadTokenizer() {
  if (binary->tokenizerJson().empty())
    return absl::OkStatus();
  LLMC_ASSIGN_OR_RETURN(
      tokenizer, tokenizer::Tokenizer::fromJson(
                     binary->tokenizerJson(), binary->name() + ": tokenizer"));
  return absl::OkStatus();
}

absl::Status Model::loadVision() {
  const binary::Manifest &manifest = getManifest();
  if (!manifest.has_vision())
    return absl::OkStatus();
  absl::StatusOr<vision::VisionConfig> config =
      readVisionConfig(manifest, getDims().hiddenSize);
  if (!config.ok())
    return support::prefixStatus(binary->name() + ": ", config.status());
  std::optional<int32_t> placeholder =
      tokenizer ? tokenizer->tokenToId(config->placeholder) : std::nullopt;
  if (!placeholder)
    return absl::InvalidArgumentError(support::strCat(
        binary->name(),
        ": manifest vision: the tokenizer has no placeholder token '",
        config->placeholder, "'"));
  visionConfig = *std::move(config);
  imagePlaceholderId = *placeholder;
  return absl::OkStatus();
}

/// The device `registry` (by default those linked into this build) gives
/// for the chip `binary` was compiled for.
static absl::StatusOr<std::unique_ptr<cmodel::StreamDevice>>
createDevice(const binary::LoadedBinary &binary,
             const plugins::DeviceRegistry *registry, unsigned threads) {
  std::unique_ptr<plugins::DeviceRegistry> linked;
  if (!registry) {
    LLMC_ASSIGN_OR_RETURN(linked, plugins::createLinkedDeviceRegistry());
    registry = linked.get();
  }
  cmodel::DeviceOptions deviceOptions;
  deviceOptions.threads = threads;
  absl::StatusOr<std::unique_ptr<cmodel::StreamDevice>> device =
      registry->createDevice(binary.manifest().chip(), deviceOptions);
  if (!device.ok())
    return support::prefixStatus(
        binary.name() + ": compiled for a chip this build cannot run: ",
        device.status());
  return device;
}

absl::StatusOr<std::unique_ptr<Model>>
Model::load(std::string_view path, const ModelOptions &options) {
  std::unique_ptr<Model> model(new Model());
  LLMC_ASSIGN_OR_RETURN(
      model->binary,
      binary::LoadedBinary::open(std::string(path), options.verifyChecksums));
  const binary::Manifest &manifest = model->getManifest();
  LLMC_ASSIGN_OR_RETURN(
      std::unique_ptr<cmodel::StreamDevice> device,
      createDevice(*model->binary, options.devices, options.threads));
  LLMC_ASSIGN_OR_RETURN(model->runner, device::BinaryRunner::create(
                                           *model->binary, std::move(device)));
  absl::StatusOr<std::optional<DeviceSampling>> head =
      DeviceSampling::find(*model->runner);
  if (!head.ok())
    return support::prefixStatus(model->binary->name() + ": ", head.status());
  model->deviceSampling = *std::move(head);

  LLMC_RETURN_IF_ERROR(model->loadTokenizer());
  LLMC_RETURN_IF_ERROR(model->loadVision());
  model->loadChatTemplate();
  const binary::GenerationDefaults &generation = manifest.generation();
  std::vector<int32_t> &stops = model->stopTokens;
  stops.assign(generation.stop_token_ids().begin(),
               generation.stop_token_ids().end());
  if (model->tokenizer)
    for (const std::string &text : model->chatTemplate.stopStrings())
      if (std::optional<int32_t> id = model->tokenizer->tokenToId(text))
        if (!absl::c_linear_search(stops, *id))
          stops.push_back(*id);
  return model;
}

session::ModelDims Model::getDims() const { return runner->getModelDims(); }

bool Model::isTimeModelled() const { return runner->modelsTime(); }

int64_t Model::getDefaultMaxNewTokens() const {
  int64_t configured = getManifest().generation().max_new_tokens();
  return configured > 0 ? configured : getDims().seqLength;
}

absl::StatusOr<std::vector<int32_t>>
Model::encode(std::string_view text, bool addSpecialTokens,
              absl::Span<const tokenizer::TextRange> plainText) const {
  if (!tokenizer)
    return absl::FailedPreconditionError(
        binary->name() +
        " holds no tokenizer, so text cannot be encoded: give token ids");
  return tokenizer->encode(text, addSpecialTokens, plainText);
}

absl::StatusOr<std::vector<int32_t>>
Model::encodePrompt(std::string_view prompt, bool parseSpecialTokens) const {
  std::vector<tokenizer::TextRange> plainText;
  if (!parseSpecialTokens)
    plainText.push_back({0, prompt.size()});
  LLMC_ASSIGN_OR_RETURN(std::vector<int32_t> ids,
                        encode(prompt, /*addSpecialTokens=*/true, plainText));
  if (ids.empty())
    return absl::InvalidArgumentError(
        support::strCat("the prompt '", prompt, "' encodes to no tokens"));
  return ids;
}

absl::StatusOr<GenerateResult> Model::generate(std::string_view prompt,
                                               const GenerateOptions &options,
                                               const TokenCallback &callback) {
  LLMC_ASSIGN_OR_RETURN(std::vector<int32_t> ids,
                        encodePrompt(prompt, options.parseSpecialTokens));
  return generate(absl::Span<const int32_t>(ids), options, callback);
}

absl::StatusOr<ImagePrompt>
Model::encodeImagePrompt(std::string_view text,
                         absl::Span<const vision::Image> images,
                         bool parseSpecialTokens) {
  LLMC_ASSIGN_OR_RETURN(
      chat::ChatPrompt prompt,
      chatTemplate.render(
          {chat::ChatMessage{
              chat::Role::User,
              vision::addImageMarker(text, getImageMarker(), images.size())}},
          /*addGenerationPrompt=*/true));
  return encodeWithImages(std::move(prompt), images, parseSpecialTokens);
}

absl::StatusOr<ImagePrompt>
Model::encodeWithImages(chat::ChatPrompt prompt,
                        absl::Span<const vision::Image> images,
                        bool parseSpecialTokens) {
  if (!visionConfig || !imagePlaceholderId)
    return absl::FailedPreconditionError(
        binary->name() + " has no vision piece: it takes no images");
  const std::string &marker = visionConfig->marker;
  size_t markers = vision::countMarkers(prompt.text, marker);
  if (markers != images.size())
    return absl::InvalidArgumentError(
        support::strCat("the prompt has ", markers, " ", marker,
                        " markers for ", images.size(), " images"));
  ImagePrompt result;
  std::vector<float> rows;
  for (size_t index = 0; index < images.size(); ++index) {
    vision::PreparedImage prepared =
        vision::preprocessImage(images[index], *visionConfig);
    LLMC_ASSIGN_OR_RETURN(top::Tensor embedded,
                          vision::embedImage(*runner, prepared, *visionConfig));
    absl::Span<const float> values = std::as_const(embedded).getF32();
    rows.insert(rows.end(), values.begin(), values.end());
    result.tiles += prepared.getRuns();
    prompt.replaceWithMarkup(
        marker, vision::getImageText(prepared, static_cast<int64_t>(index),
                                     *visionConfig));
  }
  // The rendered text holds the BOS token where the template puts one.
  LLMC_ASSIGN_OR_RETURN(result.ids,
                        encode(prompt.text, /*addSpecialTokens=*/false,
                               parseSpecialTokens
                                   ? absl::Span<const tokenizer::TextRange>()
                                   : absl::MakeConstSpan(prompt.contents)));
  LLMC_ASSIGN_OR_RETURN(result.placed,
                        vision::placeEmbeddings(result.ids, *imagePlaceholderId,
                                                std::move(rows),
                                                visionConfig->hiddenSize));
  return result;
}

absl::StatusOr<GenerateResult>
Model::generate(std::string_view prompt, absl::Span<const vision::Image> images,
                const GenerateOptions &options, const TokenCallback &callback) {
  LLMC_ASSIGN_OR_RETURN(
      ImagePrompt encoded,
      encodeImagePrompt(prompt, images, options.parseSpecialTokens));
  return Conversation(*this).send(encoded.ids, options, callback,
                                  PendingToken::Feed, &encoded.placed);
}

absl::StatusOr<GenerateResult> Model::generate(absl::Span<const int32_t> ids,
                                               const GenerateOptions &options,
                                               const TokenCallback &callback) {
  return Conversation(*this).send(ids, options, callback);
}

std::unique_ptr<Conversation> Model::startConversation() {
  return std::make_unique<Conversation>(*this);
}

absl::StatusOr<std::unique_ptr<ChatSession>>
Model::startChat(std::string_view systemPrompt,
                 std::optional<chat::ChatTemplate> chatTemplate) {
  if (!tokenizer)
    return absl::FailedPreconditionError(
        binary->name() +
        " holds no tokenizer, so it cannot chat: reconvert a checkpoint "
        "that has tokenizer.json");
  return std::make_unique<ChatSession>(
      *this, chatTemplate.value_or(this->chatTemplate),
      std::string(systemPrompt));
}

} // namespace llmc
