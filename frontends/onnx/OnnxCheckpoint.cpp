//===- OnnxCheckpoint.cpp - a decoder exported to ONNX as pieces ----------===//

#include "frontends/onnx/OnnxCheckpoint.h"

#include "dialects/top/IR/TopDialect.h"
#include "dialects/top/Transforms/Passes.h"
#include "frontends/hf/HfConfig.h"
#include "frontends/onnx/OnnxImporter.h"
#include "frontends/onnx/PieceWeights.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace mlir;
using llmc::plugins::TensorRole;

namespace llmc::onnx {
namespace {

llvm::Error checkpointError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string joinPath(llvm::StringRef directory, llvm::StringRef file) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

/// One file imported and raised.
struct RaisedPiece {
  std::unique_ptr<OnnxModel> model;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
};

llvm::Expected<RaisedPiece> importPiece(MLIRContext &context,
                                        llvm::StringRef path) {
  RaisedPiece piece;
  llvm::Expected<std::unique_ptr<OnnxModel>> model = OnnxModel::open(path);
  if (!model)
    return model.takeError();
  piece.model = std::move(*model);
  piece.module = ModuleOp::create(UnknownLoc::get(&context));
  ImportOptions options;
  options.functionName = llvm::sys::path::stem(path).str();
  llvm::Expected<func::FuncOp> function =
      importGraph(*piece.model, *piece.module, options);
  if (!function)
    return function.takeError();
  piece.function = *function;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    diagnostics += diagnostic.str();
    return success();
  });
  PassManager pm(&context);
  pm.addPass(top::createTopRaisePrimitivesPass());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*piece.module)))
    return checkpointError(path + ": raising failed: " + diagnostics);
  return std::move(piece);
}

/// Reads a float32 [positions, head_dim] table.
llvm::Expected<std::vector<float>>
readTable(const OnnxModel &model, llvm::StringRef name, int64_t &positions) {
  llvm::Expected<plugins::TensorInfo> info = model.getTensorInfo(name);
  if (!info)
    return info.takeError();
  if (info->shape.size() != 2)
    return checkpointError(model.getPath() + ": rotary table '" + name +
                           "' is not [positions, head_dim]");
  positions = info->shape[0];
  std::vector<float> values(info->getNumElements());
  if (llvm::Error error = model.readAsF32(name, values))
    return std::move(error);
  return values;
}

} // namespace

bool isOnnxExport(llvm::StringRef path) {
  return llvm::sys::fs::is_regular_file(joinPath(path, "block_0.onnx"));
}

llvm::Expected<double> inferRopeTheta(llvm::ArrayRef<float> cos,
                                      llvm::ArrayRef<float> sin,
                                      int64_t positions, int64_t headDim) {
  int64_t half = headDim / 2;
  if (positions < 2 || headDim < 4 || headDim % 2 != 0 ||
      int64_t(cos.size()) != positions * headDim || cos.size() != sin.size())
    return checkpointError("the rotary tables are too small to read "
                           "rope_theta from");
  // Position 1 holds the inverse frequencies theta^(-2i/d); the slowest one
  // determines theta best.
  int64_t i = half - 1;
  double angle = std::atan2(double(sin[headDim + i]), double(cos[headDim + i]));
  if (!(angle > 0))
    return checkpointError("the rotary tables hold no positive angle");
  double theta = std::exp(-std::log(angle) * double(headDim) / double(2 * i));
  // Exporters write theta as a round number (1e4, 5e5, 1e6).
  double scale = std::pow(10.0, std::floor(std::log10(theta)) - 2);
  double rounded = std::round(theta / scale) * scale;
  if (std::abs(rounded - theta) < 1e-4 * theta)
    theta = rounded;
  for (int64_t position = 0; position < positions; ++position)
    for (int64_t channel = 0; channel < headDim; ++channel) {
      double frequency =
          std::pow(theta, -double(2 * (channel % half)) / double(headDim));
      double expected = position * frequency;
      int64_t at = position * headDim + channel;
      if (std::abs(std::cos(expected) - cos[at]) > 1e-3 ||
          std::abs(std::sin(expected) - sin[at]) > 1e-3)
        return checkpointError(
            "the rotary tables are not the default rope of rope_theta " +
            std::to_string(theta) + " (position " + llvm::Twine(position) +
            ", channel " + llvm::Twine(channel) +
            "); llmc reads unscaled half-layout rope only");
    }
  return theta;
}

llvm::Expected<plugins::Checkpoint> loadCheckpoint(llvm::StringRef path) {
  MLIRContext context;
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  auto weights = std::make_unique<PieceWeights>(path.str());
  plugins::ModelSpec spec;
  spec.source = path.str();

  llvm::Expected<RaisedPiece> embedding =
      importPiece(context, joinPath(path, "embedding.onnx"));
  if (!embedding)
    return embedding.takeError();
  llvm::Expected<InitializerRef> table = analyzeEmbedding(embedding->function);
  if (!table)
    return table.takeError();
  plugins::TensorInfo tableInfo =
      llvm::cantFail(embedding->model->getTensorInfo(table->name));
  spec.vocabSize = tableInfo.shape[0];
  llvm::Expected<RaisedPiece> head =
      importPiece(context, joinPath(path, "lm_head.onnx"));
  if (!head)
    return head.takeError();
  llvm::Expected<HeadDescription> headParts = analyzeLmHead(head->function);
  if (!headParts)
    return headParts.takeError();

  std::vector<BlockDescription> blocks;
  std::vector<RaisedPiece> blockPieces;
  for (int64_t layer = 0;; ++layer) {
    std::string file =
        joinPath(path, "block_" + std::to_string(layer) + ".onnx");
    if (!llvm::sys::fs::exists(file))
      break;
    llvm::Expected<RaisedPiece> piece = importPiece(context, file);
    if (!piece)
      return piece.takeError();
    llvm::Expected<BlockDescription> block = analyzeBlock(piece->function);
    if (!block)
      return block.takeError();
    if (!blocks.empty() &&
        (block->hiddenSize != blocks[0].hiddenSize ||
         block->numHeads != blocks[0].numHeads ||
         block->numKvHeads != blocks[0].numKvHeads ||
         block->headDim != blocks[0].headDim ||
         block->intermediateSize != blocks[0].intermediateSize ||
         block->tensors.size() != blocks[0].tensors.size()))
      return checkpointError(file + ": the block differs in shape from "
                                    "block_0.onnx");
    blocks.push_back(std::move(*block));
    blockPieces.push_back(std::move(*piece));
  }
  const BlockDescription &first = blocks.front();
  spec.numLayers = blocks.size();
  spec.hiddenSize = first.hiddenSize;
  spec.intermediateSize = first.intermediateSize;
  spec.numHeads = first.numHeads;
  spec.numKvHeads = first.numKvHeads;
  spec.headDim = first.headDim;
  spec.rotaryDim = first.headDim;
  spec.rmsNormEps = first.rmsNormEps;
  spec.attentionBias = first.tensors.count(TensorRole::QueryBias);
  spec.qkNorm = first.tensors.count(TensorRole::QueryNorm);
  spec.family = spec.qkNorm ? "qwen3" : spec.attentionBias ? "qwen2" : "llama";
  spec.hiddenAct = "silu";
  spec.ropePairing = plugins::RopePairing::Half;

  int64_t positions = 0, sinPositions = 0;
  const OnnxModel &firstBlock = *blockPieces.front().model;
  llvm::Expected<std::vector<float>> cos =
      readTable(firstBlock, first.ropeCos, positions);
  if (!cos)
    return cos.takeError();
  llvm::Expected<std::vector<float>> sin =
      readTable(firstBlock, first.ropeSin, sinPositions);
  if (!sin)
    return sin.takeError();
  llvm::Expected<double> theta =
      inferRopeTheta(*cos, *sin, positions, spec.headDim);
  if (!theta)
    return checkpointError(firstBlock.getPath() + ": " +
                           llvm::toString(theta.takeError()));
  spec.ropeTheta = *theta;
  // The tables hold the positions the export supports.
  spec.maxPositions = positions;

  hf::nameTensors(spec);
  auto add = [&](TensorRole role, int64_t layer, size_t model,
                 const InitializerRef &source) -> llvm::Error {
    return weights->addTensor(llvm::cantFail(spec.tensorName(role, layer)),
                              model, source);
  };
  size_t embeddingModel = weights->addModel(std::move(embedding->model));
  if (llvm::Error error =
          add(TensorRole::TokenEmbedding, 0, embeddingModel, *table))
    return std::move(error);
  size_t headModel = weights->addModel(std::move(head->model));
  if (llvm::Error error =
          add(TensorRole::FinalNorm, 0, headModel, headParts->finalNorm))
    return std::move(error);
  if (llvm::Error error =
          add(TensorRole::LmHead, 0, headModel, headParts->lmHead))
    return std::move(error);
  for (auto [layer, block] : llvm::enumerate(blocks)) {
    size_t model = weights->addModel(std::move(blockPieces[layer].model));
    for (const auto &[role, source] : block.tensors)
      if (llvm::Error error = add(role, layer, model, source))
        return std::move(error);
  }
  if (llvm::Error error = hf::readCompanionFiles(path, spec))
    return std::move(error);
  if (llvm::Error error = spec.validate())
    return std::move(error);
  plugins::Checkpoint checkpoint;
  checkpoint.spec = std::move(spec);
  checkpoint.weights = std::move(weights);
  return checkpoint;
}

} // namespace llmc::onnx
