//===- InternVision.cpp - InternVL's vision tower as a top piece ----------===//

#include "frontends/llm/InternVision.h"

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/PieceEmitter.h"

#include <cmath>

using namespace mlir;

namespace llmc::llm {

namespace {

class VisionEmitter {
public:
  VisionEmitter(PieceEmitter &emit, const plugins::InternVisionSpec &spec)
      : emit(emit), b(emit.getBuilder()), spec(spec) {}

  RankedTensorType type(ArrayRef<int64_t> shape) {
    return emit.f32Type(shape);
  }
  Location loc(const Twine &name) { return emit.loc(name); }
  Value weight(const Twine &name, ArrayRef<int64_t> shape) {
    return emit.namedWeight(name.str(), shape);
  }
  Value none() { return emit.none(); }
  Value reshape(Value input, ArrayRef<int64_t> shape, const Twine &name) {
    return top::ReshapeOp::create(b, loc(name), type(shape), input);
  }
  Value permute(Value input, ArrayRef<int64_t> order, const Twine &name) {
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> shape;
    for (int64_t axis : order)
      shape.push_back(inputType.getDimSize(axis));
    return top::PermuteOp::create(b, loc(name), type(shape), input,
                                  b.getDenseI64ArrayAttr(order));
  }
  /// `input` [..., in] times the Linear `prefix`.weight [out, in] plus its
  /// bias (when `bias`).
  Value linear(Value input, const Twine &prefix, int64_t in, int64_t out,
               bool bias = true) {
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> shape(inputType.getShape());
    shape.back() = out;
    Value w = weight(prefix + ".weight", {out, in});
    Value biasValue = bias ? weight(prefix + ".bias", {out}) : none();
    return top::MatMulOp::create(b, loc(prefix), type(shape), input, w,
                                 biasValue, /*left_transpose=*/false,
                                 /*right_transpose=*/true);
  }
  Value layerNorm(Value input, const Twine &prefix, int64_t width,
                  double eps) {
    return top::LayerNormOp::create(
        b, loc(prefix), input.getType(), input,
        weight(prefix + ".weight", {width}), weight(prefix + ".bias", {width}),
        b.getF64FloatAttr(eps));
  }
  Value gelu(Value input, const Twine &name) {
    auto approximation = spec.hiddenAct == "gelu_pytorch_tanh"
                             ? top::GELUApproximation::Tanh
                             : top::GELUApproximation::None;
    return top::GELUOp::create(b, loc(name), input.getType(), input,
                               approximation);
  }
  Value add(Value lhs, Value rhs, const Twine &name) {
    return top::AddOp::create(b, loc(name), lhs.getType(), lhs, rhs);
  }
  Value mul(Value lhs, Value rhs, const Twine &name) {
    return top::MulOp::create(b, loc(name), lhs.getType(), lhs, rhs);
  }
  Value slice(Value input, ArrayRef<int64_t> starts, ArrayRef<int64_t> ends,
              const Twine &name) {
    SmallVector<int64_t> shape, steps(starts.size(), 1);
    for (auto [start, end] : llvm::zip(starts, ends))
      shape.push_back(end - start);
    return top::SliceOp::create(b, loc(name), type(shape), input,
                                b.getDenseI64ArrayAttr(starts),
                                b.getDenseI64ArrayAttr(ends),
                                b.getDenseI64ArrayAttr(steps));
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
    // MatMul's [hidden, 3·p·p].
    Value kernel = weight(prefix + "patch_embedding.weight", {hidden, 3 * p * p});
    Value embedded = top::MatMulOp::create(
        b, loc(prefix + "patch_embedding"), type({tiles, patches, hidden}),
        unfolded, kernel, weight(prefix + "patch_embedding.bias", {hidden}),
        /*left_transpose=*/false, /*right_transpose=*/true);
    Value cls = weight(prefix + "class_embedding", {1, 1, hidden});
    Value tokens = top::ConcatOp::create(b, loc("tokens"),
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
    Value attention = top::FAttentionOp::create(
        b, loc(prefix + "attention"), type({tiles, length, width}), q, k, v,
        none(), llvm::APFloat(1.0 / std::sqrt(static_cast<double>(headDim))),
        heads, heads, headDim, /*causal=*/false);
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
  PieceEmitter &emit;
  OpBuilder &b;
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
