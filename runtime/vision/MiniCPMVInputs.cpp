//===- MiniCPMVInputs.cpp - one picture as MiniCPM-V's vision input -------===//

#include "runtime/vision/MiniCPMVInputs.h"

#include "pieces/Masks.h"
#include "support/Strings.h"

#include <algorithm>
#include <cmath>

namespace llmc::vision {

using top::Tensor;

/// torch.arange(start, end, step) in float32: each value start + i · step
/// computed in double, then rounded.
static std::vector<float> arange(double start, double end, double step) {
  std::vector<float> values;
  for (int64_t i = 0; start + i * step < end; ++i)
    values.push_back(static_cast<float>(start + i * step));
  return values;
}

std::vector<int32_t> getNavitPositionIds(ImageGrid grid,
                                         int64_t positionsPerSide) {
  std::vector<float> boundaries =
      arange(1.0 / positionsPerSide, 1.0, 1.0 / positionsPerSide);
  // torch.bucketize(right=True): the boundaries at or below a coordinate.
  auto buckets = [&](int64_t patches) {
    // 1 / tgt_size divides int32 tensors: a float32 step.
    double step = static_cast<float>(1.0f / static_cast<float>(patches));
    std::vector<int32_t> ids;
    for (float coordinate : arange(0, 1 - 1e-6, step))
      ids.push_back(static_cast<int32_t>(
          std::upper_bound(boundaries.begin(), boundaries.end(), coordinate) -
          boundaries.begin()));
    return ids;
  };
  std::vector<int32_t> rows = buckets(grid.rows), cols = buckets(grid.cols);
  std::vector<int32_t> ids;
  for (int32_t row : rows)
    for (int32_t col : cols)
      ids.push_back(static_cast<int32_t>(row * positionsPerSide + col));
  return ids;
}

std::vector<float> get2DSinCosEmbedding(ImageGrid grid, int64_t width) {
  // Each half of the channels is a 1-D embedding of width / 2: frequencies
  // 1 / 10000^(i / (width / 4)), float32 throughout.
  int64_t half = width / 2, quarter = width / 4;
  std::vector<float> omega(quarter);
  for (int64_t i = 0; i < quarter; ++i)
    omega[i] = 1.0f / std::pow(10000.0f, static_cast<float>(i) /
                                             static_cast<float>(quarter));
  std::vector<float> embedding(grid.rows * grid.cols * width);
  for (int64_t row = 0; row < grid.rows; ++row)
    for (int64_t col = 0; col < grid.cols; ++col) {
      float *out = &embedding[(row * grid.cols + col) * width];
      for (auto [offset, position] :
           {std::pair<int64_t, float>{0, static_cast<float>(col)},
            std::pair<int64_t, float>{half, static_cast<float>(row)}})
        for (int64_t i = 0; i < quarter; ++i) {
          float angle = position * omega[i];
          out[offset + i] = std::sin(angle);
          out[offset + quarter + i] = std::cos(angle);
        }
    }
  return embedding;
}

absl::StatusOr<std::vector<Tensor>>
getMiniCPMVPieceInputs(const Tensor &pixels, int64_t index, ImageGrid grid,
                       const MiniCPMVPieceSizes &sizes) {
  int64_t patches = grid.rows * grid.cols, length = sizes.maxPatches;
  int64_t p = sizes.patchSize;
  absl::Span<const int64_t> shape = pixels.getShape();
  if (patches > length)
    return absl::InvalidArgumentError(support::strCat(
        "a picture of ", grid.cols, " x ", grid.rows,
        " patches is more than the ", length,
        " the vision piece takes (an image of so extreme an aspect ratio "
        "cannot be seen)"));
  if (!pixels.isF32() || shape.size() != 4 || index >= shape[0] ||
      shape[1] != 3 || shape[2] != p || shape[3] < patches * p)
    return absl::InvalidArgumentError(
        support::strCat("pixel values must be f32 [pictures, 3, ", p,
                        ", patches · ", p, "], not ", pixels.describe()));
  std::vector<float> values(3 * p * length * p, 0.0f);
  absl::Span<const float> source =
      pixels.getF32().subspan(index * 3 * p * shape[3], 3 * p * shape[3]);
  for (int64_t row = 0; row < 3 * p; ++row)
    std::copy_n(source.begin() + row * shape[3], patches * p,
                values.begin() + row * length * p);

  std::vector<int32_t> ids = getNavitPositionIds(grid, sizes.positionsPerSide);
  ids.resize(length, 0);
  auto keyMask = [&](int64_t rows) {
    std::vector<float> mask(rows * length, 0.0f);
    for (int64_t r = 0; r < rows; ++r)
      std::fill(mask.begin() + r * length + patches,
                mask.begin() + (r + 1) * length, pieces::kMaskedScore);
    return mask;
  };
  std::vector<float> embedding = get2DSinCosEmbedding(grid, sizes.embedDim);
  embedding.resize(length * sizes.embedDim, 0.0f);

  std::vector<Tensor> inputs;
  inputs.push_back(Tensor::fromF32({1, 3, p, length * p}, std::move(values)));
  inputs.push_back(Tensor::fromI32({1, length}, std::move(ids)));
  inputs.push_back(Tensor::fromF32({1, length, length}, keyMask(length)));
  inputs.push_back(
      Tensor::fromF32({1, length, sizes.embedDim}, std::move(embedding)));
  inputs.push_back(
      Tensor::fromF32({1, sizes.queryNum, length}, keyMask(sizes.queryNum)));
  return inputs;
}

} // namespace llmc::vision
