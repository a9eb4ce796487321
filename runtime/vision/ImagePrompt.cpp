//===- ImagePrompt.cpp - where an image stands in a prompt ----------------===//

#include "runtime/vision/ImagePrompt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

namespace llmc::vision {

static std::string repeat(llvm::StringRef token, int64_t count) {
  std::string text;
  text.reserve(token.size() * count);
  for (int64_t i = 0; i < count; ++i)
    text += token;
  return text;
}

std::string getInternVLImageText(int64_t tiles, int64_t tokensPerTile) {
  return "<img>" + repeat("<IMG_CONTEXT>", tiles * tokensPerTile) + "</img>";
}

std::string getMiniCPMVImageText(int64_t imageId, int64_t queryNum,
                                 std::optional<ImageGrid> grid,
                                 bool useImageId) {
  std::string unknowns = repeat("<unk>", queryNum);
  std::string text;
  if (useImageId)
    text += "<image_id>" + std::to_string(imageId) + "</image_id>";
  text += "<image>" + unknowns + "</image>";
  if (!grid)
    return text;
  for (int64_t row = 0; row < grid->rows; ++row) {
    if (row > 0)
      text += "\n";
    for (int64_t col = 0; col < grid->cols; ++col)
      text += "<slice>" + unknowns + "</slice>";
  }
  return text;
}

std::string expandImageMarker(llvm::StringRef text, llvm::StringRef marker,
                              llvm::StringRef image) {
  size_t at = text.find(marker);
  if (at == llvm::StringRef::npos)
    return text.str();
  return (llvm::Twine(text.take_front(at)) + image + text.drop_front(at + marker.size()))
      .str();
}

size_t countMarkers(llvm::StringRef text, llvm::StringRef marker) {
  size_t count = 0;
  for (size_t at = text.find(marker); !marker.empty() && at != llvm::StringRef::npos;
       at = text.find(marker, at + marker.size()))
    ++count;
  return count;
}

std::string addImageMarker(llvm::StringRef text, llvm::StringRef marker,
                           size_t images) {
  if (images == 1 && countMarkers(text, marker) == 0)
    return (marker + "\n" + text).str();
  return text.str();
}

std::vector<int64_t> findPlaceholders(llvm::ArrayRef<int32_t> ids,
                                      int32_t placeholder) {
  std::vector<int64_t> positions;
  for (auto [index, id] : llvm::enumerate(ids))
    if (id == placeholder)
      positions.push_back(static_cast<int64_t>(index));
  return positions;
}

} // namespace llmc::vision
