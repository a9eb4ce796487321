//===- ImagePrompt.cpp - where an image stands in a prompt ----------------===//

#include "runtime/vision/ImagePrompt.h"

#include "support/Strings.h"

namespace llmc::vision {

static std::string repeat(std::string_view token, int64_t count) {
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

std::string expandImageMarker(std::string_view text, std::string_view marker,
                              std::string_view image) {
  size_t at = text.find(marker);
  if (at == std::string_view::npos)
    return std::string(text);
  return support::strCat(text.substr(0, at), image,
                         text.substr(at + marker.size()));
}

size_t countMarkers(std::string_view text, std::string_view marker) {
  size_t count = 0;
  for (size_t at = text.find(marker);
       !marker.empty() && at != std::string_view::npos;
       at = text.find(marker, at + marker.size()))
    ++count;
  return count;
}

std::string addImageMarker(std::string_view text, std::string_view marker,
                           size_t images) {
  if (images == 1 && countMarkers(text, marker) == 0)
    return support::strCat(marker, "\n", text);
  return std::string(text);
}

std::vector<int64_t> findPlaceholders(absl::Span<const int32_t> ids,
                                      int32_t placeholder) {
  std::vector<int64_t> positions;
  for (size_t index = 0; index < ids.size(); ++index)
    if (ids[index] == placeholder)
      positions.push_back(static_cast<int64_t>(index));
  return positions;
}

} // namespace llmc::vision
