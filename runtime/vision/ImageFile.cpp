//===- ImageFile.cpp - PNG and JPEG files as RGB images -------------------===//

#include "runtime/vision/ImageFile.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>
#include <png.h>

namespace llmc::vision {

static llvm::Error imageError(llvm::StringRef name, const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 name + ": " + problem);
}

static llvm::Error checkSize(llvm::StringRef name, int64_t width,
                             int64_t height) {
  if (width <= 0 || height <= 0 || width > kMaxImagePixels / height)
    return imageError(name, "an image of " + llvm::Twine(width) + " x " +
                                llvm::Twine(height) +
                                " pixels, beyond llmc's limit of " +
                                llvm::Twine(kMaxImagePixels) + " pixels");
  return llvm::Error::success();
}

static llvm::Expected<Image> decodePng(llvm::ArrayRef<uint8_t> bytes,
                                       llvm::StringRef name) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    return imageError(name, llvm::Twine("not a readable PNG file: ") +
                                png.message);
  if (llvm::Error error = checkSize(name, png.width, png.height)) {
    png_image_free(&png);
    return std::move(error);
  }
  // RGBA, then the alpha dropped: PIL's convert("RGB") does not composite.
  png.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, rgba.data(), 0, nullptr))
    return imageError(name, llvm::Twine("a corrupt PNG file: ") + png.message);
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
static JpegStatus decodeJpegInto(llvm::ArrayRef<uint8_t> bytes,
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

static llvm::Expected<Image> decodeJpeg(llvm::ArrayRef<uint8_t> bytes,
                                        llvm::StringRef name) {
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
    return imageError(name,
                      llvm::Twine("a corrupt JPEG file: ") + errors.message);
  case JpegStatus::TooLarge:
    return checkSize(name, image.width, image.height);
  case JpegStatus::Decoded:
    break;
  }
  return image;
}

llvm::Expected<Image> decodeImage(llvm::ArrayRef<uint8_t> bytes,
                                  llvm::StringRef name) {
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

llvm::Expected<Image> readImageFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return imageError(path, "cannot read: " + buffer.getError().message());
  llvm::StringRef contents = (*buffer)->getBuffer();
  return decodeImage(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(contents.data()),
                     contents.size()),
      path);
}

} // namespace llmc::vision
