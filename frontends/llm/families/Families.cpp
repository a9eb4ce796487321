//===- Families.cpp - the family table and its lookups --------------------===//

#include "frontends/llm/families/Family.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

namespace llmc::families {
namespace {

/// "a, b and c".
std::string joinNames(llvm::ArrayRef<llvm::StringRef> names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      text += i + 1 == names.size() ? " and " : ", ";
    text += names[i].str();
  }
  return text;
}

template <typename NamesOf>
std::string listNames(NamesOf namesOf,
                      llvm::ArrayRef<llvm::StringRef> more = {}) {
  std::vector<llvm::StringRef> names;
  for (const Family *family : getFamilies())
    for (llvm::StringRef name : namesOf(*family))
      names.push_back(name);
  names.insert(names.end(), more.begin(), more.end());
  return joinNames(names);
}

} // namespace

llvm::ArrayRef<const Family *> getFamilies() {
  // The order matchFamily tries: an ONNX export with biases and no Q/K
  // norms reads as Qwen2, one with neither as Llama (which Mistral without
  // a window also is).
  static const Family *const kFamilies[] = {
      &getQwen2Family(),     &getQwen3Family(), &getLlamaFamily(),
      &getMistralFamily(),   &getPhi3Family(),  &getInternLM2Family(),
      &getGemma2Family(),    &getGemma3Family()};
  return kFamilies;
}

const Family *findHfFamily(llvm::StringRef modelType) {
  for (const Family *family : getFamilies())
    if (llvm::is_contained(family->hfModelTypes, modelType))
      return family;
  return nullptr;
}

const Family *findGgufFamily(llvm::StringRef architecture) {
  for (const Family *family : getFamilies())
    if (llvm::is_contained(family->ggufArchitectures, architecture))
      return family;
  return nullptr;
}

const Family *findFamily(llvm::StringRef name) {
  for (const Family *family : getFamilies())
    if (family->name == name)
      return family;
  return nullptr;
}

const Family *matchFamily(bool attentionBias, bool qkNorm) {
  for (const Family *family : getFamilies())
    if (family->hasAttentionBias(attentionBias) == attentionBias &&
        family->qkNorm == qkNorm)
      return family;
  return nullptr;
}

void setSlidingWindows(plugins::ModelSpec &spec, int64_t window,
                       llvm::function_ref<bool(int64_t layer)> slides) {
  if (window <= 0 || window >= spec.maxPositions || spec.numLayers <= 0 ||
      spec.numLayers > plugins::ModelSpec::kMaxLayers)
    return;
  std::vector<int64_t> windows(spec.numLayers, 0);
  for (int64_t layer = 0; layer < spec.numLayers; ++layer)
    if (slides(layer))
      windows[layer] = window;
  if (llvm::is_contained(windows, window))
    spec.layerWindows = std::move(windows);
}

double Family::getEmbeddingMultiplier(int64_t hiddenSize) const {
  return scalesEmbedding
             ? std::sqrt(static_cast<double>(std::max<int64_t>(hiddenSize, 1)))
             : 1.0;
}

bool slidesInPattern(int64_t layer, int64_t period) {
  return period == 0 || (layer + 1) % period != 0;
}

plugins::RowSlice
slicePart(const plugins::ModelSpec &spec, plugins::TensorRole role,
          int64_t layer, std::vector<std::pair<int64_t, int64_t>> rowRanges) {
  plugins::RowSlice slice;
  slice.name = llvm::cantFail(spec.tensorName(role, layer));
  slice.source = llvm::StringRef(slice.name).rsplit(':').first.str();
  slice.rowRanges = std::move(rowRanges);
  return slice;
}

std::vector<plugins::RowSlice>
sliceConsecutiveRows(const plugins::ModelSpec &spec,
                     llvm::ArrayRef<plugins::TensorRole> roles,
                     llvm::ArrayRef<int64_t> rows) {
  std::vector<plugins::RowSlice> slices;
  for (int64_t layer = 0; layer < spec.numLayers; ++layer) {
    int64_t first = 0;
    for (auto [role, count] : llvm::zip_equal(roles, rows)) {
      slices.push_back(slicePart(spec, role, layer, {{first, count}}));
      first += count;
    }
  }
  return slices;
}

llvm::Expected<std::unique_ptr<plugins::WeightSource>>
sliceFusedTensors(std::unique_ptr<plugins::WeightSource> weights,
                  std::vector<plugins::RowSlice> (*getSlices)(
                      const plugins::ModelSpec &spec),
                  const plugins::ModelSpec &spec) {
  if (!getSlices)
    return std::move(weights);
  llvm::Expected<std::unique_ptr<plugins::SlicedWeightSource>> sliced =
      plugins::SlicedWeightSource::create(std::move(weights), getSlices(spec));
  if (!sliced)
    return sliced.takeError();
  return std::unique_ptr<plugins::WeightSource>(std::move(*sliced));
}

std::string listHfModelTypes(llvm::ArrayRef<llvm::StringRef> more) {
  return listNames([](const Family &family) { return family.hfModelTypes; },
                   more);
}

std::string listGgufArchitectures() {
  return listNames(
      [](const Family &family) { return family.ggufArchitectures; });
}

} // namespace llmc::families
