//===- Model.h - a compiled model, ready to generate ------------*- C++ -*-===//
//
// The entry point of the C++ API: a `.llmc` binary opened on the device of
// its chip, with its tokenizer, chat template and generation defaults.
//
//   absl::StatusOr<std::unique_ptr<llmc::Model>> model =
//       llmc::Model::load("model.llmc");
//   if (!model.ok()) return model.status();
//   llmc::GenerateOptions options;
//   options.maxNewTokens = 32;
//   absl::StatusOr<llmc::GenerateResult> result = (*model)->generate(
//       "Once upon a time", options, [](int32_t, std::string_view text) {
//         std::cout << text;
//         return true;
//       });
//
// A Model runs one generation at a time; conversations that keep their
// history (Conversation, ChatSession) each hold a KV cache of their own.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_MODEL_H
#define LLMC_RUNTIME_API_MODEL_H

#include "runtime/api/DeviceSampling.h"
#include "runtime/api/Generate.h"
#include "runtime/chat/ChatTemplate.h"
#include "runtime/format/BinaryReader.h"
#include "runtime/session/ModelDims.h"
#include "runtime/vision/ImageEmbedding.h"
#include "runtime/vision/ImagePrompt.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"

#include <memory>
#include <optional>
#include <string_view>

namespace llmc {
namespace device {
class BinaryRunner;
} // namespace device
namespace plugins {
class DeviceRegistry;
} // namespace plugins
namespace tokenizer {
class Tokenizer;
} // namespace tokenizer

class ChatSession;
class Conversation;

/// A prompt with images: its ids, image placeholders expanded, and the
/// images' embeddings placed at those placeholders.
struct ImagePrompt {
  std::vector<int32_t> ids;
  session::PlacedEmbeddings placed;
  /// Tiles the vision piece ran on.
  int64_t tiles = 0;
};

struct ModelOptions {
  /// Threads per device kernel; 0 uses every hardware thread.
  unsigned threads = 0;
  /// The devices binaries run on, by chip; null uses those of the chips
  /// linked into this build. Must outlive the load.
  const plugins::DeviceRegistry *devices = nullptr;
  /// Hash every section while opening (touches every page of the weights).
  bool verifyChecksums = true;
};

class Model {
public:
  /// Opens the binary at `path` and creates the device of the chip it was
  /// compiled for. Fails with a message naming the file when it is missing,
  /// corrupt, compiled for a chip no plugin provides, or holds a tokenizer
  /// that does not parse.
  static absl::StatusOr<std::unique_ptr<Model>>
  load(std::string_view path, const ModelOptions &options = {});
  ~Model();

  /// Generates after `prompt`, encoded with the binary's tokenizer (special
  /// tokens such as BOS added; special tokens written in it are text unless
  /// options.parseSpecialTokens), in a fresh context.
  absl::StatusOr<GenerateResult> generate(std::string_view prompt,
                                          const GenerateOptions &options = {},
                                          const TokenCallback &callback = {});
  /// Generates after `prompt` as a user's chat message about `images`, in a
  /// fresh context (see encodeImagePrompt).
  absl::StatusOr<GenerateResult>
  generate(std::string_view prompt, absl::Span<const vision::Image> images,
           const GenerateOptions &options = {},
           const TokenCallback &callback = {});
  /// Generates after the token ids `ids` in a fresh context.
  absl::StatusOr<GenerateResult> generate(absl::Span<const int32_t> ids,
                                          const GenerateOptions &options = {},
                                          const TokenCallback &callback = {});

  /// A conversation of token ids whose history stays in its KV cache.
  std::unique_ptr<Conversation> startConversation();
  /// A chat whose turns `chatTemplate` renders (by default the binary's, see
  /// getChatTemplate), opened by `systemPrompt` when not empty. Fails when
  /// the binary has no tokenizer.
  absl::StatusOr<std::unique_ptr<ChatSession>>
  startChat(std::string_view systemPrompt = "",
            std::optional<chat::ChatTemplate> chatTemplate = std::nullopt);

  /// The ids of `text`, in which special tokens that overlap `plainText`
  /// are read as text; fails when the binary has no tokenizer.
  absl::StatusOr<std::vector<int32_t>>
  encode(std::string_view text, bool addSpecialTokens,
         absl::Span<const tokenizer::TextRange> plainText = {}) const;
  /// The ids of a text prompt as generate() feeds it: special tokens such
  /// as BOS added, special tokens written in it read as text unless
  /// `parseSpecialTokens`. Fails without a tokenizer or when the prompt
  /// encodes to no tokens.
  absl::StatusOr<std::vector<int32_t>>
  encodePrompt(std::string_view prompt, bool parseSpecialTokens) const;

  /// `text` as one user message of the chat template, with `images`: each
  /// image marker in it (getImageMarker) stands for the next image (a text
  /// without one, given one image, gets it in front on a line of its own,
  /// as the official chat code does). Each image is tiled and run through
  /// the vision piece; its marker becomes its placeholder tokens, where its
  /// embeddings go. Fails on a model without vision, markers and images
  /// that differ in number, or a piece that fails.
  absl::StatusOr<ImagePrompt>
  encodeImagePrompt(std::string_view text,
                    absl::Span<const vision::Image> images,
                    bool parseSpecialTokens);
  /// A rendered chat prompt whose `<image>` markers stand for `images`, as
  /// encodeImagePrompt encodes it.
  absl::StatusOr<ImagePrompt>
  encodeWithImages(chat::ChatPrompt prompt,
                   absl::Span<const vision::Image> images,
                   bool parseSpecialTokens);

  const binary::LoadedBinary &getBinary() const { return *binary; }
  const binary::Manifest &getManifest() const { return binary->manifest(); }
  /// The binary's tokenizer; null when it holds none.
  const tokenizer::Tokenizer *getTokenizer() const { return tokenizer.get(); }
  /// The binary's chat template: the checkpoint's Jinja chat_template when
  /// it has one that renders, with the format ChatTemplate::detect finds for
  /// stop strings and fallback, else that format alone.
  const chat::ChatTemplate &getChatTemplate() const { return chatTemplate; }
  /// Why the binary's Jinja chat_template is not used (it does not parse, or
  /// cannot render a turn and its reply); empty when it is, or there is
  /// none. Chat then falls back on the detected format.
  std::string_view getChatTemplateProblem() const {
    return chatTemplateProblem;
  }
  /// A chat template rendering through `jinja` (`llmc chat
  /// --template-file`) with the binary's BOS and EOS tokens.
  absl::StatusOr<chat::ChatTemplate>
  makeJinjaChatTemplate(chat::JinjaTemplate jinja) const;
  /// The ids that end a turn: the generation config's stop tokens and the
  /// chat template's end-of-turn tokens.
  absl::Span<const int32_t> getStopTokens() const { return stopTokens; }
  /// The model's sizes; seqLength is the KV-cache capacity.
  session::ModelDims getDims() const;
  /// GenerateOptions::maxNewTokens when it is 0: the binary's default, else
  /// the cache capacity.
  int64_t getDefaultMaxNewTokens() const;
  /// The device; its totals add up the time of every run.
  device::BinaryRunner &getDevice() { return *runner; }
  /// Whether those totals are modelled chip time (a simulated chip) rather
  /// than time measured on the host.
  bool isTimeModelled() const;
  /// A vision-language model's image handling (from the manifest's
  /// vision), and the id of its placeholder token; none for a text model.
  const std::optional<vision::VisionConfig> &getVisionConfig() const {
    return visionConfig;
  }
  std::optional<int32_t> getImagePlaceholderId() const {
    return imagePlaceholderId;
  }
  /// What a chat message writes where an image stands (the family's
  /// `<image>`); InternVL's for a text model.
  std::string_view getImageMarker() const {
    return visionConfig ? std::string_view(visionConfig->marker)
                        : std::string_view(vision::kImageMarker);
  }

  /// The binary's sample_head, when it has one.
  DeviceSampling *getDeviceSampling() {
    return deviceSampling ? &*deviceSampling : nullptr;
  }
  const DeviceSampling *getDeviceSampling() const {
    return deviceSampling ? &*deviceSampling : nullptr;
  }

private:
  Model() = default;
  absl::Status loadTokenizer();
  /// Reads and checks the manifest's vision against the vision piece and
  /// the tokenizer.
  absl::Status loadVision();
  /// The Jinja chat template when it renders, else the detected format.
  void loadChatTemplate();

  std::unique_ptr<binary::LoadedBinary> binary;
  std::unique_ptr<device::BinaryRunner> runner;
  std::optional<DeviceSampling> deviceSampling;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  chat::ChatTemplate chatTemplate;
  std::string chatTemplateProblem;
  std::vector<int32_t> stopTokens;
  std::optional<vision::VisionConfig> visionConfig;
  std::optional<int32_t> imagePlaceholderId;
};

} // namespace llmc

#endif // LLMC_RUNTIME_API_MODEL_H
