//===- ImageOptions.cpp - images given to eval and run --------------------===//

#include "tools/llmc/ImageOptions.h"

#include "dialects/top/Interpreter/NpyFile.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/vision/ImageFile.h"
#include "runtime/vision/ImagePrompt.h"
#include "support/LlvmStatus.h"
#include "tools/llmc/Commands.h"

namespace cl = llvm::cl;

namespace llmc {

using top::Tensor;

static cl::list<std::string>
    images("image",
           cl::desc("An image the prompt's placeholders stand for (PNG or "
                    "JPEG; repeat for more, in prompt order)"),
           cl::sub(getEvalCommand()), cl::sub(getRunCommand()));
static cl::list<std::string> pixelValues(
    "pixel-values",
    cl::desc("Pixel values [tiles, 3, S, S] as .npy, in place of an image's "
             "preprocessing (after the --image files)"),
    cl::sub(getEvalCommand()), cl::sub(getRunCommand()));
static cl::opt<std::string> pixelValuesOut(
    "pixel-values-out",
    cl::desc("Write the images' pixel values, f32 [tiles, 3, S, S], as .npy"),
    cl::sub(getEvalCommand()), cl::sub(getRunCommand()));
static cl::opt<std::string> visionEmbedsOut(
    "vision-embeds-out",
    cl::desc("Write the images' embeddings, f32 [tiles, tokens, hidden], as "
             ".npy"),
    cl::sub(getEvalCommand()), cl::sub(getRunCommand()));

static llvm::Error imageError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool hasImages() { return !images.empty() || !pixelValues.empty(); }

/// Tensors of equal trailing shape joined along the first dimension.
static Tensor concatenate(llvm::ArrayRef<Tensor> parts) {
  llvm::SmallVector<int64_t> shape = llvm::to_vector(parts.front().getShape());
  shape[0] = 0;
  std::vector<float> values;
  for (const Tensor &part : parts) {
    shape[0] += part.getShape()[0];
    llvm::ArrayRef<float> partValues = part.getF32();
    values.insert(values.end(), partValues.begin(), partValues.end());
  }
  return Tensor::fromF32(shape, std::move(values));
}

/// The --image files, decoded.
static llvm::Expected<std::vector<vision::Image>> readImages() {
  std::vector<vision::Image> decoded;
  for (const std::string &file : images) {
    llvm::Expected<vision::Image> image =
        support::toExpected(vision::readImageFile(file));
    if (!image)
      return image.takeError();
    decoded.push_back(std::move(*image));
  }
  return decoded;
}

llvm::Expected<std::vector<vision::Image>> readImagesForText() {
  if (!pixelValues.empty() || !pixelValuesOut.empty() ||
      !visionEmbedsOut.empty())
    return imageError("--pixel-values, --pixel-values-out and "
                      "--vision-embeds-out need --input-ids");
  return readImages();
}

llvm::Error placeImages(session::PieceRunner &runner,
                        const std::optional<vision::VisionConfig> &config,
                        int32_t placeholderId,
                        llvm::MutableArrayRef<session::Turn> turns) {
  if (!hasImages())
    return llvm::Error::success();
  if (!config)
    return imageError("--image and --pixel-values need a vision-language "
                      "model; this one has no vision piece");
  if (!pixelValues.empty() &&
      config->preprocessing != vision::Preprocessing::InternVL)
    return imageError(
        "--pixel-values: " +
        llvm::StringRef(vision::stringifyPreprocessing(config->preprocessing)) +
        "'s pixel values do not say each picture's size; give "
        "--image");
  llvm::Expected<std::vector<vision::Image>> decoded = readImages();
  if (!decoded)
    return decoded.takeError();
  std::vector<vision::PreparedImage> prepared;
  for (const vision::Image &image : *decoded)
    prepared.push_back(vision::preprocessImage(image, *config));
  for (const std::string &file : pixelValues) {
    llvm::Expected<Tensor> given = support::toExpected(top::readNpyFile(file));
    if (!given)
      return given.takeError();
    prepared.push_back({std::move(*given), {}, std::nullopt});
  }
  std::vector<Tensor> pixels, embeddings;
  for (auto [index, image] : llvm::enumerate(prepared)) {
    llvm::StringRef source = index < images.size()
                                 ? llvm::StringRef(images[index])
                                 : llvm::StringRef(
                                       pixelValues[index - images.size()]);
    llvm::Expected<Tensor> embedded =
        support::toExpected(vision::embedImage(runner, image, *config));
    if (!embedded)
      return imageError(source + ": " + llvm::toString(embedded.takeError()));
    embeddings.push_back(std::move(*embedded));
    pixels.push_back(image.pixelValues);
  }
  Tensor allPixels = concatenate(pixels);
  Tensor allEmbeddings = concatenate(embeddings);
  if (!pixelValuesOut.empty())
    if (llvm::Error error =
            support::toLlvmError(top::writeNpyFile(pixelValuesOut, allPixels)))
      return error;
  if (!visionEmbedsOut.empty())
    if (llvm::Error error = support::toLlvmError(
            top::writeNpyFile(visionEmbedsOut, allEmbeddings)))
      return error;

  int64_t hidden = config->hiddenSize;
  int64_t rows = allEmbeddings.getNumElements() / hidden, placeholders = 0;
  for (session::Turn &turn : turns) {
    turn.placed.positions =
        vision::findPlaceholders(turn.inputIds, placeholderId);
    placeholders += static_cast<int64_t>(turn.placed.positions.size());
  }
  if (placeholders != rows)
    return imageError("--input-ids hold " + llvm::Twine(placeholders) +
                      " image placeholder tokens (" + config->placeholder +
                      ", id " + llvm::Twine(placeholderId) +
                      ") but the images give " + llvm::Twine(rows) +
                      " embeddings");
  llvm::ArrayRef<float> values = allEmbeddings.getF32();
  for (session::Turn &turn : turns) {
    size_t count = turn.placed.positions.size() * hidden;
    turn.placed.rows.assign(values.begin(), values.begin() + count);
    values = values.drop_front(count);
  }
  return llvm::Error::success();
}

} // namespace llmc
