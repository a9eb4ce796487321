//===- ImageFile.cpp - PNG and JPEG files as RGB images -------------------===//

#include "runtime/vision/ImageFile.h"

#include "support/File.h"
#include "support/Strings.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>
#include <png.h>

namespace llmc::vision {

using support::strCat;

static absl::Status imageError(std::string_view name,
                               std::string_view problem) {
  return absl::InvalidArgumentError(strCat(name, ": ", problem));
}

static absl::Status checkSize(std::string_view name, int64_t width,
                              int64_t height) {
  if (width <= 0 || height <= 0 || width > kMaxImagePixels / height)
    return imageError(name, strCat("an image of ", width, " x ", height,
                                   " pixels, beyond llmc's limit of ",
                                   kMaxImagePixels, " pixels"));
  return absl::OkStatus();
}

static absl::StatusOr<Image> decodePng(absl::Span<const uint8_t> bytes,
                                       std::string_view name) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    return imageError(name, strCat("not a readable PNG file: ", png.message));
  if (absl::Status size = checkSize(name, png.width, png.height); !size.ok()) {
    png_image_free(&png);
    return size;
  }
  // RGBA, then the alpha dropped: PIL's convert("RGB") does not composite.
  png.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, rgba.data(), 0, nullptr))
    return imageError(name, strCat("a corrupt PNG file: ", png.message));
  Image image(png.width, png.height);
  for (int64_t pixel = 0, count = image.width * image.height; pixel < count;
       ++pixel)
    std::copy_n(&rgba[pixel * 4], 3, &image.rgb[pixel * 3]);
  return image;
}

namespace {
/// libjpeg reports errors through a callback that must not return.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf exit;
  char message[JMSG_LENGTH_MAX];
};
} // namespace

/// libjpeg's warnings (a truncated file it pads, for one) would go to
/// stderr; a file it cannot decode is an error instead.
static void ignoreJpegMessage(j_common_ptr) {}

static void exitOnJpegError(j_common_ptr info) {
  auto *errors = reinterpret_cast<JpegErrors *>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->exit, 1);
}

enum class JpegStatus { Decoded, Failed, TooLarge };

/// Decodes into `image`, whose size it sets first; Failed when libjpeg
/// failed (its message in `errors`), TooLarge when the header claims more
/// pixels than kMaxImagePixels. Kept free of objects with destructors,
/// which the longjmp out of libjpeg would skip.
static JpegStatus decodeJpegInto(absl::Span<const uint8_t> bytes,
                                 JpegErrors &errors,
                                 jpeg_decompress_struct &jpeg, Image &image) {
  if (setjmp(errors.exit))
    return JpegStatus::Failed;
  jpeg_create_decompress(&jpeg);
  jpeg_mem_src(&jpeg, bytes.data(), bytes.size());
  jpeg_read_header(&jpeg, TRUE);
  jpeg.out_color_space = JCS_RGB;
  image.width = jpeg.image_width;
  image.height = jpeg.image_height;
  if (image.width > kMaxImagePixels / std::max<int64_t>(image.height, 1))
    return JpegStatus::TooLarge;
  jpeg_start_decompress(&jpeg);
  image = Image(jpeg.output_width, jpeg.output_height);
  while (jpeg.output_scanline < jpeg.output_height) {
    JSAMPROW row = image.pixel(0, jpeg.output_scanline);
    jpeg_read_scanlines(&jpeg, &row, 1);
  }
  jpeg_finish_decompress(&jpeg);
  return JpegStatus::Decoded;
}

static absl::StatusOr<Image> decodeJpeg(absl::Span<const uint8_t> bytes,
                                        std::string_view name) {
  jpeg_decompress_struct jpeg{};
  JpegErrors errors{};
  jpeg.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = exitOnJpegError;
  errors.manager.output_message = ignoreJpegMessage;
  Image image;
  JpegStatus status = decodeJpegInto(bytes, errors, jpeg, image);
  jpeg_destroy_decompress(&jpeg);
  switch (status) {
  case JpegStatus::Failed:
    return imageError(name, strCat("a corrupt JPEG file: ", errors.message));
  case JpegStatus::TooLarge:
    return checkSize(name, image.width, image.height);
  case JpegStatus::Decoded:
    break;
  }
  return image;
}

absl::StatusOr<Image> decodeImage(absl::Span<const uint8_t> bytes,
                                  std::string_view name) {
  static const uint8_t pngMagic[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a,
                                     '\n'};
  static const uint8_t jpegMagic[] = {0xff, 0xd8, 0xff};
  if (bytes.size() >= sizeof(pngMagic) &&
      std::equal(std::begin(pngMagic), std::end(pngMagic), bytes.begin()))
    return decodePng(bytes, name);
  if (bytes.size() >= sizeof(jpegMagic) &&
      std::equal(std::begin(jpegMagic), std::end(jpegMagic), bytes.begin()))
    return decodeJpeg(bytes, name);
  return imageError(name, "not a PNG or JPEG image");
}

absl::StatusOr<Image> readImageFile(const std::string &path) {
  absl::StatusOr<std::string> contents = support::readFile(path);
  if (!contents.ok())
    return absl::Status(contents.status().code(),
                        strCat(path, ": cannot read: ",
                               support::errorReason(contents.status())));
  return decodeImage(absl::Span<const uint8_t>(
                         reinterpret_cast<const uint8_t *>(contents->data()),
                         contents->size()),
                     path);
}

} // namespace llmc::vision
