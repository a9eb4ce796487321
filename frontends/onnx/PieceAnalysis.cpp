//===- PieceAnalysis.cpp - a model description from raised pieces ---------===//

#include "frontends/onnx/PieceAnalysis.h"

#include "dialects/top/IR/TopOps.h"

using namespace mlir;
using llmc::plugins::TensorRole;

namespace llmc::onnx {
namespace {

llvm::Error analysisError(func::FuncOp function, const llvm::Twine &problem) {
  std::string where;
  if (auto name = dyn_cast<NameLoc>(function.getLoc()))
    where = name.getName().str();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 where + ": " + problem);
}

/// The initializer `value` reads: a top.Weight, or (transposed) a permuted
/// 2-D one.
std::optional<InitializerRef> getInitializer(Value value) {
  bool transposed = false;
  if (auto permute = value.getDefiningOp<top::PermuteOp>()) {
    if (permute.getOrder() != ArrayRef<int64_t>{1, 0})
      return std::nullopt;
    value = permute.getInput();
    transposed = true;
  }
  auto weight = value.getDefiningOp<top::WeightOp>();
  if (!weight)
    return std::nullopt;
  return InitializerRef{weight.getName().str(), transposed};
}

/// The ops of type OpTy in `function`.
template <typename OpTy> SmallVector<OpTy> collect(func::FuncOp function) {
  SmallVector<OpTy> ops;
  function.walk([&](OpTy op) { ops.push_back(op); });
  return ops;
}

/// A Linear projection: x W (+ b), W [in, out]. Returns its input.
std::optional<Value> readProjection(Value value, TensorRole weightRole,
                                    std::optional<TensorRole> biasRole,
                                    BlockDescription &block) {
  if (auto add = value.getDefiningOp<top::AddOp>()) {
    if (!biasRole)
      return std::nullopt;
    for (auto [product, bias] : {std::pair(add.getLhs(), add.getRhs()),
                                 std::pair(add.getRhs(), add.getLhs())}) {
      std::optional<InitializerRef> biasWeight = getInitializer(bias);
      if (product.getDefiningOp<top::MatMulOp>() && biasWeight) {
        block.tensors[*biasRole] = *biasWeight;
        value = product;
        break;
      }
    }
  }
  auto matmul = value.getDefiningOp<top::MatMulOp>();
  if (!matmul || !isa<NoneType>(matmul.getBias().getType()) ||
      matmul.getLeftTranspose())
    return std::nullopt;
  std::optional<InitializerRef> weight = getInitializer(matmul.getRight());
  if (!weight)
    return std::nullopt;
  // The spec wants [out, in]. Without right_transpose the MatMul reads
  // [in, out]: the stored tensor is that unless a Permute made it so.
  weight->transposed = weight->transposed != !matmul.getRightTranspose();
  block.tensors[weightRole] = *weight;
  return matmul.getInput();
}

/// The RMSNorm producing `value` with a weight: records the weight and eps.
std::optional<Value> readNorm(Value value, TensorRole role,
                              BlockDescription &block) {
  auto norm = value.getDefiningOp<top::RMSNormOp>();
  if (!norm)
    return std::nullopt;
  std::optional<InitializerRef> weight = getInitializer(norm.getWeight());
  if (!weight)
    return std::nullopt;
  block.tensors[role] = *weight;
  block.rmsNormEps = norm.getEps().convertToDouble();
  return norm.getInput();
}

/// One head-split projection: Reshape(x W (+ b)) [1, L, heads, head_dim],
/// optionally RMS-normalized per head (Qwen3) and rotated.
llvm::Error readHeads(func::FuncOp function, Value value, bool rotated,
                      TensorRole weight, TensorRole bias,
                      std::optional<TensorRole> normRole, Value &input,
                      BlockDescription &block) {
  if (rotated) {
    auto rope = value.getDefiningOp<top::RopeOp>();
    if (!rope)
      return analysisError(function, "the attention's " +
                                         plugins::stringifyTensorRole(weight) +
                                         " side is not rotated by a Rope");
    auto cos = rope.getCos().getDefiningOp<top::GatherOp>();
    auto sin = rope.getSin().getDefiningOp<top::GatherOp>();
    std::optional<InitializerRef> cosTable =
        cos ? getInitializer(cos.getTable()) : std::nullopt;
    std::optional<InitializerRef> sinTable =
        sin ? getInitializer(sin.getTable()) : std::nullopt;
    if (!cosTable || !sinTable)
      return analysisError(function, "the Rope does not gather cos and sin "
                                     "from tables");
    block.ropeCos = cosTable->name;
    block.ropeSin = sinTable->name;
    value = rope.getInput();
  }
  if (normRole && value.getDefiningOp<top::RMSNormOp>()) {
    std::optional<Value> normalized = readNorm(value, *normRole, block);
    if (!normalized)
      return analysisError(function, "a per-head norm has no weight");
    value = *normalized;
  }
  auto reshape = value.getDefiningOp<top::ReshapeOp>();
  std::optional<Value> projected =
      reshape ? readProjection(reshape.getInput(), weight, bias, block)
              : std::nullopt;
  if (!projected)
    return analysisError(function, "no Linear projection feeds the " +
                                       plugins::stringifyTensorRole(weight));
  if (input && *projected != input)
    return analysisError(function,
                         "the q, k and v projections read different inputs");
  input = *projected;
  return llvm::Error::success();
}

Value findInput(func::FuncOp function, llvm::StringRef role) {
  Value found;
  function.walk([&](top::InputOp input) {
    if (input.getRole() == role)
      found = input;
  });
  return found;
}

} // namespace

namespace {

/// One decoder layer around `attention` and `mlp`: norm, q/k/v, attention,
/// o_proj and residual, norm, MLP and residual. Sets `input` to the residual
/// stream the layer reads and `output` to the one it writes.
llvm::Expected<BlockDescription> analyzeLayer(func::FuncOp function,
                                              top::FAttentionOp attention,
                                              top::MLPOp mlp, Value &input,
                                              Value &output) {
  BlockDescription block;
  block.numHeads = attention.getQHead();
  block.numKvHeads = attention.getKvHead();
  block.headDim = attention.getHeadDim();
  if (std::abs(attention.getScale().convertToDouble() *
                   std::sqrt(double(block.headDim)) -
               1.0) > 1e-6)
    return analysisError(function, "the attention scale is not 1 / "
                                   "sqrt(head_dim)");
  auto rope = attention.getQ().getDefiningOp<top::RopeOp>();
  bool qkNorm = rope && rope.getInput().getDefiningOp<top::RMSNormOp>();
  Value normalized;
  if (llvm::Error error = readHeads(
          function, attention.getQ(), /*rotated=*/true, TensorRole::QueryWeight,
          TensorRole::QueryBias,
          qkNorm ? std::optional(TensorRole::QueryNorm) : std::nullopt,
          normalized, block))
    return std::move(error);
  if (llvm::Error error =
          readHeads(function, attention.getK(), /*rotated=*/true,
                    TensorRole::KeyWeight, TensorRole::KeyBias,
                    qkNorm ? std::optional(TensorRole::KeyNorm) : std::nullopt,
                    normalized, block))
    return std::move(error);
  if (llvm::Error error =
          readHeads(function, attention.getV(),
                    /*rotated=*/false, TensorRole::ValueWeight,
                    TensorRole::ValueBias, std::nullopt, normalized, block))
    return std::move(error);
  std::optional<Value> layerInput =
      readNorm(normalized, TensorRole::AttentionNorm, block);
  if (!layerInput)
    return analysisError(function, "the attention does not read an RMSNorm");
  input = *layerInput;

  // input + o_proj(attention), then + MLP(norm(...)).
  if (!attention->hasOneUse())
    return analysisError(function, "the attention output has several uses");
  auto projection = dyn_cast<top::MatMulOp>(*attention->getUsers().begin());
  if (!projection || !readProjection(projection, TensorRole::OutputWeight,
                                     std::nullopt, block))
    return analysisError(function, "no output projection follows the "
                                   "attention");
  std::optional<Value> residual =
      readNorm(mlp.getInput(), TensorRole::MlpNorm, block);
  auto isSumOf = [](Operation *op, Value a, Value b) {
    auto add = dyn_cast_or_null<top::AddOp>(op);
    return add && ((add.getLhs() == a && add.getRhs() == b) ||
                   (add.getLhs() == b && add.getRhs() == a));
  };
  if (!residual || !isSumOf(residual->getDefiningOp(), input, projection))
    return analysisError(function, "the MLP does not read the normalized "
                                   "sum of the layer input and the attention");
  if (!mlp->hasOneUse() ||
      !isSumOf(*mlp->getUsers().begin(), *residual, mlp.getOutput()))
    return analysisError(function, "the MLP's output is not added to the "
                                   "residual stream");
  output = mlp->getUsers().begin()->getResult(0);
  for (auto [role, weight] :
       {std::pair(TensorRole::GateWeight, mlp.getGate()),
        std::pair(TensorRole::UpWeight, mlp.getUp()),
        std::pair(TensorRole::DownWeight, mlp.getDown())}) {
    std::optional<InitializerRef> initializer = getInitializer(weight);
    if (!initializer)
      return analysisError(function, "an MLP weight is not an initializer");
    block.tensors[role] = *initializer;
  }
  if (mlp.getActivation() != top::Activation::SiLU)
    return analysisError(function, "the MLP's activation is not SiLU");
  block.hiddenSize = cast<RankedTensorType>(input.getType()).getShape().back();
  block.intermediateSize =
      cast<RankedTensorType>(mlp.getGate().getType()).getDimSize(0);
  return block;
}

/// The final norm and head projection producing `logits` from `hidden`.
llvm::Expected<HeadDescription> readHead(func::FuncOp function, Value logits,
                                         Value hidden) {
  BlockDescription scratch;
  std::optional<Value> normalized =
      readProjection(logits, TensorRole::LmHead, std::nullopt, scratch);
  std::optional<Value> input =
      normalized ? readNorm(*normalized, TensorRole::FinalNorm, scratch)
                 : std::nullopt;
  if (!input || (hidden && *input != hidden))
    return analysisError(function, "the logits are not a projection of the "
                                   "normalized last hidden state");
  HeadDescription head;
  head.finalNorm = scratch.tensors[TensorRole::FinalNorm];
  head.lmHead = scratch.tensors[TensorRole::LmHead];
  head.rmsNormEps = scratch.rmsNormEps;
  return head;
}

} // namespace

llvm::Expected<BlockDescription> analyzeBlock(func::FuncOp function) {
  SmallVector<top::FAttentionOp> attentions =
      collect<top::FAttentionOp>(function);
  SmallVector<top::MLPOp> mlps = collect<top::MLPOp>(function);
  if (attentions.size() != 1 || mlps.size() != 1)
    return analysisError(function,
                         "a block needs one attention and one MLP after "
                         "raising, found " +
                             llvm::Twine(attentions.size()) + " and " +
                             llvm::Twine(mlps.size()));
  Value input, output;
  llvm::Expected<BlockDescription> block =
      analyzeLayer(function, attentions.front(), mlps.front(), input, output);
  if (!block)
    return block.takeError();
  Value hidden = findInput(function, "hidden");
  if (!hidden || input != hidden)
    return analysisError(function, "the block does not read its `hidden` "
                                   "input");
  return block;
}

llvm::Expected<DecoderDescription> analyzeDecoder(func::FuncOp function) {
  SmallVector<top::FAttentionOp> attentions =
      collect<top::FAttentionOp>(function);
  SmallVector<top::MLPOp> mlps = collect<top::MLPOp>(function);
  if (attentions.empty() || attentions.size() != mlps.size())
    return analysisError(function,
                         "a decoder needs one attention and one MLP per "
                         "layer after raising, found " +
                             llvm::Twine(attentions.size()) + " and " +
                             llvm::Twine(mlps.size()));
  DecoderDescription decoder;
  Value ids = findInput(function, "input_ids");
  auto embedding = ids && ids.hasOneUse()
                       ? dyn_cast<top::GatherOp>(*ids.getUsers().begin())
                       : top::GatherOp();
  std::optional<InitializerRef> table =
      embedding ? getInitializer(embedding.getTable()) : std::nullopt;
  if (!table)
    return analysisError(function, "`input_ids` is not gathered from an "
                                   "embedding table");
  decoder.embedding = *table;
  Value stream = embedding;
  for (auto [attention, mlp] : llvm::zip(attentions, mlps)) {
    Value input, output;
    llvm::Expected<BlockDescription> layer =
        analyzeLayer(function, attention, mlp, input, output);
    if (!layer)
      return layer.takeError();
    if (input != stream)
      return analysisError(function, "layer " +
                                         llvm::Twine(decoder.layers.size()) +
                                         " does not read the previous "
                                         "layer's output");
    decoder.layers.push_back(std::move(*layer));
    stream = output;
  }
  auto returned = cast<func::ReturnOp>(function.getBody().front().back());
  if (returned.getNumOperands() != 1)
    return analysisError(function, "a decoder returns only its logits");
  llvm::Expected<HeadDescription> head =
      readHead(function, returned.getOperand(0), stream);
  if (!head)
    return head.takeError();
  decoder.head = *head;
  return decoder;
}

llvm::Expected<InitializerRef> analyzeEmbedding(func::FuncOp function) {
  SmallVector<top::GatherOp> gathers = collect<top::GatherOp>(function);
  std::optional<InitializerRef> table =
      gathers.size() == 1 ? getInitializer(gathers.front().getTable())
                          : std::nullopt;
  if (!table)
    return analysisError(function, "an embedding piece gathers from one "
                                   "table");
  return *table;
}

llvm::Expected<HeadDescription> analyzeLmHead(func::FuncOp function) {
  auto returned = cast<func::ReturnOp>(function.getBody().front().back());
  if (returned.getNumOperands() != 1)
    return analysisError(function, "an lm_head piece returns only logits");
  return readHead(function, returned.getOperand(0),
                  findInput(function, "hidden"));
}

} // namespace llmc::onnx
