//===- InternVision.cpp - InternVL's vision tower as a top piece ----------===//

#include "frontends/llm/InternVision.h"

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/PieceEmitter.h"
#include "frontends/llm/VisionOps.h"

using namespace mlir;

namespace llmc::llm {

namespace {

class VisionEmitter : public VisionOps {
public:
  VisionEmitter(PieceEmitter &emit, const plugins::InternVisionSpec &spec)
      : VisionOps(emit), spec(spec) {}

  Value gelu(Value input, const Twine &name) {
    return VisionOps::gelu(input, spec.hiddenAct == "gelu_pytorch_tanh", name);
  }

  /// [tiles, 3, S, S] into [tiles, patches, hidden] plus the class token and
  /// position embedding: [tiles, 1 + patches, hidden].
  Value embed(Value pixels) {
    int64_t side = spec.getPatchesPerSide(), p = spec.patchSize;
    int64_t hidden = spec.hiddenSize, patches = side * side;
    Value unfolded = reshape(pixels, {tiles, 3, side, p, side, p}, "patches");
    unfolded = permute(unfolded, {0, 2, 4, 1, 3, 5}, "patches_by_position");
    unfolded = reshape(unfolded, {tiles, patches, 3 * p * p}, "patch_rows");
    std::string prefix = "vision_model.embeddings.";
    // The convolution kernel [hidden, 3, p, p], read row-major as the
    // Linear's [hidden, 3·p·p].
    Value embedded =
        linear(unfolded, prefix + "patch_embedding", 3 * p * p, hidden);
    Value cls = weight(prefix + "class_embedding", {1, 1, hidden});
    Value tokens = top::ConcatOp::create(getBuilder(), loc("tokens"),
                                         type({tiles, 1 + patches, hidden}),
                                         ValueRange{cls, embedded}, 1);
    return add(tokens,
               weight(prefix + "position_embedding", {1, 1 + patches, hidden}),
               "positioned");
  }

  Value layer(Value hidden, int64_t index) {
    std::string prefix =
        "vision_model.encoder.layers." + std::to_string(index) + ".";
    int64_t width = spec.hiddenSize, heads = spec.numHeads;
    int64_t headDim = width / heads, length = 1 + spec.getPatchesPerSide() *
                                                       spec.getPatchesPerSide();
    Value x = layerNorm(hidden, prefix + "norm1", width, spec.layerNormEps);
    Value qkv = linear(x, prefix + "attn.qkv", width, 3 * width, spec.qkvBias);
    qkv = reshape(qkv, {tiles, length, 3, heads, headDim}, prefix + "qkv_heads");
    auto part = [&](int64_t which, const char *name) {
      Value sliced = slice(qkv, {0, 0, which, 0, 0},
                           {tiles, length, which + 1, heads, headDim},
                           prefix + name);
      return reshape(sliced, {tiles, length, heads, headDim},
                     prefix + name + "_heads");
    };
    Value q = part(0, "q"), k = part(1, "k"), v = part(2, "v");
    Value attention =
        VisionOps::attention(q, k, v, none(), heads, headDim,
                             prefix + "attention");
    Value projected = linear(attention, prefix + "attn.proj", width, width);
    Value scaled = mul(projected, weight(prefix + "ls1", {width}),
                       prefix + "ls1_scaled");
    hidden = add(hidden, scaled, prefix + "attention_residual");
    Value y = layerNorm(hidden, prefix + "norm2", width, spec.layerNormEps);
    y = linear(y, prefix + "mlp.fc1", width, spec.intermediateSize);
    y = gelu(y, prefix + "mlp.act");
    y = linear(y, prefix + "mlp.fc2", spec.intermediateSize, width);
    y = mul(y, weight(prefix + "ls2", {width}), prefix + "ls2_scaled");
    return add(hidden, y, prefix + "mlp_residual");
  }

  /// The patch tokens [tiles, 1 + n·n, C] without the class token, pixel
  /// shuffled (ps_version v2) into [tiles, tokens, C / ratio²] and projected
  /// by mlp1.
  Value project(Value hidden) {
    int64_t side = spec.getPatchesPerSide(), width = spec.hiddenSize;
    double ratio = spec.downsampleRatio;
    auto scaled = [](int64_t size, double factor) {
      return static_cast<int64_t>(size * factor);
    };
    Value patches = slice(hidden, {0, 1, 0},
                          {tiles, 1 + side * side, width}, "patch_tokens");
    Value x = reshape(patches, {tiles, side, side, width}, "patch_grid");
    // n, w, h, c -> n, w, h·r, c/r -> n, h·r, w, c/r -> n, h·r, w·r, c/r²
    // -> n, w·r, h·r, c/r²
    x = reshape(x, {tiles, side, scaled(side, ratio), scaled(width, 1 / ratio)},
                "shuffle_rows");
    x = permute(x, {0, 2, 1, 3}, "shuffle_transpose");
    x = reshape(x,
                {tiles, scaled(side, ratio), scaled(side, ratio),
                 scaled(width, 1 / (ratio * ratio))},
                "shuffle_cols");
    x = permute(x, {0, 2, 1, 3}, "shuffled");
    int64_t joined = scaled(width, 1 / (ratio * ratio));
    x = reshape(x, {tiles, spec.getTokensPerTile(), joined}, "shuffled_tokens");
    x = layerNorm(x, "mlp1.0", joined, 1e-5);
    x = linear(x, "mlp1.1", joined, spec.llmHiddenSize);
    x = gelu(x, "mlp1.2");
    return linear(x, "mlp1.3", spec.llmHiddenSize, spec.llmHiddenSize);
  }

private:
  const plugins::InternVisionSpec &spec;
  /// One tile a run: the runtime runs the piece once per tile.
  static constexpr int64_t tiles = 1;
};

} // namespace

Piece buildInternVisionPiece(MLIRContext &context,
                             const plugins::ModelSpec &spec) {
  const plugins::InternVisionSpec &vision = *spec.internVision;
  Piece piece;
  piece.name = "vision";
  PieceEmitter emit(context, spec, piece);
  VisionEmitter build(emit, vision);
  Value pixels = emit.input(IORole::PixelValues,
                            {1, 3, vision.imageSize, vision.imageSize});
  Value hidden = build.embed(pixels);
  for (int64_t index = 0; index < vision.numLayers; ++index)
    hidden = build.layer(hidden, index);
  emit.output(IORole::VisionEmbeds, build.project(hidden));
  emit.finish();
  // No text calibrates the tower, and its weights are few: it computes in
  // the binary's float type unless `--piece-quantize vision=...` says so.
  emit.computeInFloatByDefault();
  return piece;
}

} // namespace llmc::llm
