//===- ImageOptions.cpp - images given to eval and run --------------------===//

#include "tools/llmc/ImageOptions.h"

#include "dialects/top/Interpreter/NpyFile.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/vision/ImageFile.h"
#include "runtime/vision/ImagePrompt.h"
#include "support/Status.h"
#include "support/Strings.h"

#include <CLI/CLI.hpp>

namespace llmc {

using top::Tensor;

void addImageOptions(CLI::App &command, ImageOptions &options) {
  command
      .add_option("--image", options.images,
                  "An image the prompt's placeholders stand for (PNG or "
                  "JPEG; repeat for more, in prompt order)")
      ->allow_extra_args(false);
  command
      .add_option("--pixel-values", options.pixelValues,
                  "Pixel values [tiles, 3, S, S] as .npy, in place of an "
                  "image's preprocessing (after the --image files)")
      ->allow_extra_args(false);
  command.add_option(
      "--pixel-values-out", options.pixelValuesOut,
      "Write the images' pixel values, f32 [tiles, 3, S, S], as .npy");
  command.add_option(
      "--vision-embeds-out", options.visionEmbedsOut,
      "Write the images' embeddings, f32 [tiles, tokens, hidden], as .npy");
}

static absl::Status imageError(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

bool hasImages(const ImageOptions &options) {
  return !options.images.empty() || !options.pixelValues.empty();
}

/// Tensors of equal trailing shape joined along the first dimension.
static Tensor concatenate(const std::vector<Tensor> &parts) {
  std::vector<int64_t> shape(parts.front().getShape().begin(),
                             parts.front().getShape().end());
  shape[0] = 0;
  std::vector<float> values;
  for (const Tensor &part : parts) {
    shape[0] += part.getShape()[0];
    auto partValues = part.getF32();
    values.insert(values.end(), partValues.begin(), partValues.end());
  }
  return Tensor::fromF32(shape, std::move(values));
}

/// The --image files, decoded.
static absl::StatusOr<std::vector<vision::Image>>
readImages(const ImageOptions &options) {
  std::vector<vision::Image> decoded;
  for (const std::string &file : options.images) {
    LLMC_ASSIGN_OR_RETURN(vision::Image image, vision::readImageFile(file));
    decoded.push_back(std::move(image));
  }
  return decoded;
}

absl::StatusOr<std::vector<vision::Image>>
readImagesForText(const ImageOptions &options) {
  if (!options.pixelValues.empty() || !options.pixelValuesOut.empty() ||
      !options.visionEmbedsOut.empty())
    return imageError("--pixel-values, --pixel-values-out and "
                      "--vision-embeds-out need --input-ids");
  return readImages(options);
}

absl::Status placeImages(const ImageOptions &options,
                         session::PieceRunner &runner,
                         const std::optional<vision::VisionConfig> &config,
                         int32_t placeholderId,
                         std::vector<session::Turn> &turns) {
  if (!hasImages(options))
    return absl::OkStatus();
  if (!config)
    return imageError("--image and --pixel-values need a vision-language "
                      "model; this one has no vision piece");
  if (!options.pixelValues.empty() &&
      config->preprocessing != vision::Preprocessing::InternVL)
    return imageError(support::strCat(
        "--pixel-values: ",
        std::string_view(vision::stringifyPreprocessing(config->preprocessing)),
        "'s pixel values do not say each picture's size; give --image"));
  LLMC_ASSIGN_OR_RETURN(std::vector<vision::Image> decoded,
                        readImages(options));
  std::vector<vision::PreparedImage> prepared;
  for (const vision::Image &image : decoded)
    prepared.push_back(vision::preprocessImage(image, *config));
  for (const std::string &file : options.pixelValues) {
    LLMC_ASSIGN_OR_RETURN(Tensor given, top::readNpyFile(file));
    prepared.push_back({std::move(given), {}, std::nullopt});
  }
  std::vector<Tensor> pixels, embeddings;
  const std::vector<std::string> &images = options.images;
  for (size_t index = 0; index < prepared.size(); ++index) {
    const vision::PreparedImage &image = prepared[index];
    const std::string &source =
        index < images.size() ? images[index]
                              : options.pixelValues[index - images.size()];
    absl::StatusOr<Tensor> embedded =
        vision::embedImage(runner, image, *config);
    if (!embedded.ok())
      return support::prefixStatus(source + ": ", embedded.status());
    embeddings.push_back(*std::move(embedded));
    pixels.push_back(image.pixelValues);
  }
  Tensor allPixels = concatenate(pixels);
  Tensor allEmbeddings = concatenate(embeddings);
  if (!options.pixelValuesOut.empty())
    LLMC_RETURN_IF_ERROR(top::writeNpyFile(options.pixelValuesOut, allPixels));
  if (!options.visionEmbedsOut.empty())
    LLMC_RETURN_IF_ERROR(
        top::writeNpyFile(options.visionEmbedsOut, allEmbeddings));

  int64_t hidden = config->hiddenSize;
  int64_t rows = allEmbeddings.getNumElements() / hidden, placeholders = 0;
  for (session::Turn &turn : turns) {
    turn.placed.positions =
        vision::findPlaceholders(turn.inputIds, placeholderId);
    placeholders += static_cast<int64_t>(turn.placed.positions.size());
  }
  if (placeholders != rows)
    return imageError(support::strCat(
        "--input-ids hold ", placeholders, " image placeholder tokens (",
        config->placeholder, ", id ", placeholderId, ") but the images give ",
        rows, " embeddings"));
  const float *values = allEmbeddings.getF32().data();
  for (session::Turn &turn : turns) {
    size_t count = turn.placed.positions.size() * hidden;
    turn.placed.rows.assign(values, values + count);
    values += count;
  }
  return absl::OkStatus();
}

} // namespace llmc
