//===- MiniCPMVision.cpp - MiniCPM-V's vision tower as a top piece --------===//

#include "frontends/llm/MiniCPMVision.h"

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/PieceEmitter.h"
#include "frontends/llm/VisionOps.h"

using namespace mlir;

namespace llmc::llm {

static constexpr llvm::StringLiteral kInProjection = "resampler.attn.in_proj_";

llvm::Error addResamplerProjections(const plugins::ModelSpec &spec,
                                    plugins::OverlayWeightSource &weights) {
  int64_t width = spec.miniCPMVision->embedDim;
  for (llvm::StringRef part : {"weight", "bias"}) {
    std::string name = (kInProjection + part).str();
    int64_t columns = part == "weight" ? width : 1;
    std::vector<float> values(3 * width * columns);
    if (llvm::Error error = weights.readAsF32(name, values))
      return error;
    static const char *const kProjections[] = {"q", "k", "v"};
    for (auto [index, projection] : llvm::enumerate(kProjections)) {
      auto first = values.begin() + index * width * columns;
      llvm::SmallVector<int64_t> shape = {width};
      if (part == "weight")
        shape.push_back(width);
      if (llvm::Error error = weights.addTensor(
              ("llmc.resampler." + llvm::Twine(projection) + "_proj." + part)
                  .str(),
              shape, std::vector<float>(first, first + width * columns)))
        return error;
    }
  }
  // proj [E, E] applies as x · P: stored transposed, it is a Linear weight.
  std::vector<float> proj(width * width), transposed(width * width);
  if (llvm::Error error = weights.readAsF32("resampler.proj", proj))
    return error;
  for (int64_t row = 0; row < width; ++row)
    for (int64_t col = 0; col < width; ++col)
      transposed[col * width + row] = proj[row * width + col];
  return weights.addTensor("llmc.resampler.proj.weight", {width, width},
                           std::move(transposed));
}

namespace {

class MiniCPMVisionEmitter : public VisionOps {
public:
  MiniCPMVisionEmitter(PieceEmitter &emit,
                       const plugins::MiniCPMVisionSpec &spec)
      : VisionOps(emit), spec(spec), length(spec.getMaxPatches()) {}

  /// [1, 3, P, L·P] pixels into [1, L, C] patch embeddings plus the
  /// position embeddings the ids pick.
  Value embed(Value pixels, Value positionIds) {
    int64_t p = spec.patchSize, width = spec.hiddenSize;
    Value patches = reshape(pixels, {1, 3, p, length, p}, "patches");
    patches = permute(patches, {0, 3, 1, 2, 4}, "patches_by_position");
    patches = reshape(patches, {1, length, 3 * p * p}, "patch_rows");
    // The convolution kernel [C, 3, P, P], read row-major as [C, 3·P·P].
    Value embedded = linear(patches, "vpm.embeddings.patch_embedding",
                            3 * p * p, width);
    int64_t positions = spec.positionsPerSide * spec.positionsPerSide;
    Value table = weight("vpm.embeddings.position_embedding.weight",
                         {positions, width});
    Value positioned = top::GatherOp::create(
        getBuilder(), loc("vpm.embeddings.position_embedding"),
        type({1, length, width}), table, positionIds, /*axis=*/0);
    return add(embedded, positioned, "vpm.embeddings");
  }

  Value layer(Value hidden, Value mask, int64_t index) {
    std::string prefix =
        "vpm.encoder.layers." + std::to_string(index) + ".";
    int64_t width = spec.hiddenSize, heads = spec.numHeads;
    int64_t headDim = width / heads;
    Value x = layerNorm(hidden, prefix + "layer_norm1", width,
                        spec.layerNormEps);
    auto project = [&](const char *name) {
      Value projected =
          linear(x, prefix + "self_attn." + name, width, width);
      return reshape(projected, {1, length, heads, headDim},
                     prefix + name + "_heads");
    };
    // Declared one after another, so the ops come in this order whatever
    // order a compiler evaluates arguments in.
    Value q = project("q_proj"), k = project("k_proj"), v = project("v_proj");
    Value attended =
        attention(q, k, v, mask, heads, headDim, prefix + "self_attn");
    attended = linear(attended, prefix + "self_attn.out_proj", width, width);
    hidden = add(hidden, attended, prefix + "attention_residual");
    Value y = layerNorm(hidden, prefix + "layer_norm2", width,
                        spec.layerNormEps);
    y = linear(y, prefix + "mlp.fc1", width, spec.intermediateSize);
    y = gelu(y, /*tanh=*/true, prefix + "mlp.act");
    y = linear(y, prefix + "mlp.fc2", spec.intermediateSize, width);
    return add(hidden, y, prefix + "mlp_residual");
  }

  /// The queries' attention over the patches [1, L, C]: [1, Q, E].
  Value resample(Value patches, Value positionEmbeds, Value queryMask) {
    int64_t width = spec.embedDim, queries = spec.queryNum;
    int64_t heads = spec.getResamplerHeads(), headDim = width / heads;
    Value kv = linear(patches, "resampler.kv_proj", spec.hiddenSize, width,
                      /*bias=*/false);
    kv = layerNorm(kv, "resampler.ln_kv", width, 1e-6);
    // The queries [Q, E], read row-major as one batch [1, Q, E].
    Value query = weight("resampler.query", {1, queries, width});
    query = layerNorm(query, "resampler.ln_q", width, 1e-6);
    auto project = [&](Value input, const char *name, int64_t rows) {
      Value projected =
          linear(input, llvm::Twine("llmc.resampler.") + name, width, width);
      return reshape(projected, {1, rows, heads, headDim},
                     llvm::Twine("resampler.") + name + "_heads");
    };
    Value keys = add(kv, positionEmbeds, "resampler.positioned_keys");
    Value q = project(query, "q_proj", queries);
    Value k = project(keys, "k_proj", length);
    Value v = project(kv, "v_proj", length);
    Value attended =
        attention(q, k, v, queryMask, heads, headDim, "resampler.attn");
    attended = linear(attended, "resampler.attn.out_proj", width, width);
    attended = layerNorm(attended, "resampler.ln_post", width, 1e-6);
    return linear(attended, "llmc.resampler.proj", width, width,
                  /*bias=*/false);
  }

private:
  const plugins::MiniCPMVisionSpec &spec;
  int64_t length;
};

} // namespace

Piece buildMiniCPMVisionPiece(MLIRContext &context,
                              const plugins::ModelSpec &spec) {
  const plugins::MiniCPMVisionSpec &vision = *spec.miniCPMVision;
  int64_t length = vision.getMaxPatches(), p = vision.patchSize;
  Piece piece;
  piece.name = "vision";
  PieceEmitter emit(context, spec, piece);
  MiniCPMVisionEmitter build(emit, vision);
  Value pixels = emit.input(IORole::PixelValues, {1, 3, p, length * p});
  Value positionIds =
      emit.input(IORole::PositionIds, {1, length}, /*isInteger=*/true);
  Value patchMask = emit.input(IORole::PatchMask, {1, length, length});
  Value positionEmbeds =
      emit.input(IORole::PositionEmbeds, {1, length, vision.embedDim});
  Value queryMask =
      emit.input(IORole::QueryMask, {1, vision.queryNum, length});
  Value hidden = build.embed(pixels, positionIds);
  for (int64_t index = 0; index < vision.numLayers; ++index)
    hidden = build.layer(hidden, patchMask, index);
  hidden = build.layerNorm(hidden, "vpm.post_layernorm", vision.hiddenSize,
                           vision.layerNormEps);
  emit.output(IORole::VisionEmbeds,
              build.resample(hidden, positionEmbeds, queryMask));
  emit.finish();
  // As InternVL's: the binary's float type unless pinned.
  emit.computeInFloatByDefault();
  return piece;
}

} // namespace llmc::llm
