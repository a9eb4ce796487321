//===- OnnxCheckpoint.cpp - a decoder exported to ONNX as pieces ----------===//

#include "frontends/onnx/OnnxCheckpoint.h"

#include "dialects/top/IR/TopDialect.h"
#include "dialects/top/Transforms/Passes.h"
#include "frontends/hf/HfConfig.h"
#include "frontends/llm/families/Family.h"
#include "frontends/onnx/OnnxImporter.h"
#include "frontends/onnx/PieceWeights.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <functional>

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

/// Sets the import options a file needs beyond the defaults, once the file
/// is open.
using ConfigureImport =
    std::function<llvm::Error(const OnnxModel &, ImportOptions &)>;

llvm::Expected<RaisedPiece> importPiece(MLIRContext &context,
                                        llvm::StringRef path,
                                        const ConfigureImport &configure = {}) {
  RaisedPiece piece;
  llvm::Expected<std::unique_ptr<OnnxModel>> model = OnnxModel::open(path);
  if (!model)
    return model.takeError();
  piece.model = std::move(*model);
  piece.module = ModuleOp::create(UnknownLoc::get(&context));
  ImportOptions options;
  options.functionName = llvm::sys::path::stem(path).str();
  if (configure)
    if (llvm::Error error = configure(*piece.model, options))
      return std::move(error);
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
  if (llvm::sys::fs::is_directory(path))
    return llvm::sys::fs::is_regular_file(joinPath(path, "block_0.onnx")) ||
           llvm::sys::fs::is_regular_file(joinPath(path, "decoder.onnx"));
  return llvm::sys::fs::is_regular_file(path) &&
         llvm::sys::path::extension(path) == ".onnx";
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

namespace {

/// What the pieces or the decoder of an export hold, with the file each
/// part's initializers are in (indices into PieceWeights).
struct ExportDescription {
  size_t embeddingFile = 0, headFile = 0;
  InitializerRef embedding;
  HeadDescription head;
  std::vector<std::pair<size_t, BlockDescription>> layers;
};

/// The ModelSpec an export describes, and its weights under the spec's
/// names. `directory` holds the tokenizer and generation defaults.
llvm::Expected<plugins::Checkpoint>
buildCheckpoint(llvm::StringRef path, llvm::StringRef directory,
                std::unique_ptr<PieceWeights> weights,
                const ExportDescription &description,
                llvm::ArrayRef<const OnnxModel *> files) {
  const BlockDescription &first = description.layers.front().second;
  for (const auto &[file, layer] : description.layers)
    if (layer.hiddenSize != first.hiddenSize ||
        layer.numHeads != first.numHeads ||
        layer.numKvHeads != first.numKvHeads ||
        layer.headDim != first.headDim ||
        layer.intermediateSize != first.intermediateSize ||
        layer.tensors.size() != first.tensors.size())
      return checkpointError(files[file]->getPath() +
                             ": a layer differs in shape from the first");
  plugins::ModelSpec spec;
  spec.source = path.str();
  spec.vocabSize =
      llvm::cantFail(files[description.embeddingFile]->getTensorInfo(
                         description.embedding.name))
          .shape[0];
  spec.numLayers = description.layers.size();
  spec.hiddenSize = first.hiddenSize;
  spec.intermediateSize = first.intermediateSize;
  spec.numHeads = first.numHeads;
  spec.numKvHeads = first.numKvHeads;
  spec.headDim = first.headDim;
  spec.rotaryDim = first.headDim;
  spec.rmsNormEps = first.rmsNormEps;
  spec.attentionBias = first.tensors.count(TensorRole::QueryBias);
  spec.qkNorm = first.tensors.count(TensorRole::QueryNorm);
  // An export names no family: it reads as the first whose features it has.
  const families::Family *family =
      families::matchFamily(spec.attentionBias, spec.qkNorm);
  if (!family)
    return checkpointError(path +
                           ": no model family has both attention biases and "
                           "Q/K norms");
  spec.family = family->name.str();
  spec.hiddenAct = "silu";
  spec.ropePairing = plugins::RopePairing::Half;

  const OnnxModel &tables = *files[description.layers.front().first];
  int64_t positions = 0, sinPositions = 0;
  llvm::Expected<std::vector<float>> cos =
      readTable(tables, first.ropeCos, positions);
  if (!cos)
    return cos.takeError();
  llvm::Expected<std::vector<float>> sin =
      readTable(tables, first.ropeSin, sinPositions);
  if (!sin)
    return sin.takeError();
  llvm::Expected<double> theta =
      inferRopeTheta(*cos, *sin, positions, spec.headDim);
  if (!theta)
    return checkpointError(tables.getPath() + ": " +
                           llvm::toString(theta.takeError()));
  spec.ropeTheta = *theta;
  // The tables hold the positions the export supports.
  spec.maxPositions = positions;

  family->nameHfTensors(spec);
  auto add = [&](TensorRole role, int64_t layer, size_t file,
                 const InitializerRef &source) -> llvm::Error {
    return weights->addTensor(llvm::cantFail(spec.tensorName(role, layer)),
                              file, source);
  };
  if (llvm::Error error = add(TensorRole::TokenEmbedding, 0,
                              description.embeddingFile, description.embedding))
    return std::move(error);
  if (llvm::Error error = add(TensorRole::FinalNorm, 0, description.headFile,
                              description.head.finalNorm))
    return std::move(error);
  if (llvm::Error error = add(TensorRole::LmHead, 0, description.headFile,
                              description.head.lmHead))
    return std::move(error);
  for (auto [layer, entry] : llvm::enumerate(description.layers))
    for (const auto &[role, source] : entry.second.tensors)
      if (llvm::Error error = add(role, layer, entry.first, source))
        return std::move(error);
  if (llvm::Error error = hf::readCompanionFiles(directory, spec))
    return std::move(error);
  if (llvm::Error error = spec.validate())
    return std::move(error);
  plugins::Checkpoint checkpoint;
  checkpoint.spec = std::move(spec);
  checkpoint.weights = std::move(weights);
  return checkpoint;
}

/// embedding.onnx, block_<i>.onnx and lm_head.onnx in `directory`.
llvm::Expected<plugins::Checkpoint> loadPieces(llvm::StringRef directory) {
  MLIRContext context;
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  auto weights = std::make_unique<PieceWeights>(directory.str());
  std::vector<const OnnxModel *> files;
  ExportDescription description;
  auto load = [&](llvm::StringRef name) -> llvm::Expected<RaisedPiece> {
    llvm::Expected<RaisedPiece> piece =
        importPiece(context, joinPath(directory, name));
    if (piece) {
      files.push_back(piece->model.get());
      weights->addModel(std::move(piece->model));
    }
    return piece;
  };
  llvm::Expected<RaisedPiece> embedding = load("embedding.onnx");
  if (!embedding)
    return embedding.takeError();
  llvm::Expected<InitializerRef> table = analyzeEmbedding(embedding->function);
  if (!table)
    return table.takeError();
  description.embeddingFile = files.size() - 1;
  description.embedding = *table;
  llvm::Expected<RaisedPiece> head = load("lm_head.onnx");
  if (!head)
    return head.takeError();
  llvm::Expected<HeadDescription> headParts = analyzeLmHead(head->function);
  if (!headParts)
    return headParts.takeError();
  description.headFile = files.size() - 1;
  description.head = *headParts;
  for (int64_t layer = 0;; ++layer) {
    std::string name = "block_" + std::to_string(layer) + ".onnx";
    if (!llvm::sys::fs::exists(joinPath(directory, name)))
      break;
    llvm::Expected<RaisedPiece> piece = load(name);
    if (!piece)
      return piece.takeError();
    llvm::Expected<BlockDescription> block = analyzeBlock(piece->function);
    if (!block)
      return block.takeError();
    description.layers.emplace_back(files.size() - 1, std::move(*block));
  }
  return buildCheckpoint(directory, directory, std::move(weights), description,
                         files);
}

/// The import of a whole decoder: one sequence of a few tokens (any length
/// shows the structure) and no past. optimum's cache I/O folds away: the
/// attention mask of an unpadded sequence is all ones, each
/// past_key_values input is empty, a merged decoder takes its branch
/// without cache, and of the outputs only the logits are read (llmc keeps
/// its own cache).
llvm::Error configureDecoder(const OnnxModel &model, ImportOptions &options) {
  constexpr int64_t tokens = 8;
  for (const ::onnx::ValueInfoProto &input : model.getGraph().input()) {
    llvm::StringRef name = input.name();
    if (model.isInitializer(name))
      continue;
    if (name == "input_ids" || name == "position_ids") {
      options.inputShapes[name] = {1, tokens};
    } else if (name == "attention_mask") {
      options.constantInputs[name] =
          ConstantTensor::ofInts({1, tokens}, std::vector<int64_t>(tokens, 1));
    } else if (name == "use_cache_branch") {
      // optimum's merged decoder: the branch without a past.
      options.constantInputs[name] = ConstantTensor::ofInts({1}, {0});
    } else if (name.starts_with("past_key_values.")) {
      // [batch, kv_heads, past, head_dim]: the batch is 1, the past empty.
      llvm::SmallVector<int64_t> shape;
      for (const ::onnx::TensorShapeProto::Dimension &dim :
           input.type().tensor_type().shape().dim())
        shape.push_back(dim.has_dim_value() ? dim.dim_value()
                        : shape.empty()     ? 1
                                            : 0);
      if (shape.size() != 4)
        return checkpointError(model.getPath() + ": cache input '" + name +
                               "' is not [batch, kv_heads, past, head_dim]");
      shape[2] = 0;
      options.inputShapes[name] = shape;
    }
  }
  for (const ::onnx::ValueInfoProto &output : model.getGraph().output())
    if (output.name() == "logits")
      options.outputs = {"logits"};
  return llvm::Error::success();
}

/// One whole-decoder file.
llvm::Expected<plugins::Checkpoint> loadDecoder(llvm::StringRef path) {
  MLIRContext context;
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  llvm::Expected<RaisedPiece> piece =
      importPiece(context, path, configureDecoder);
  if (!piece)
    return piece.takeError();
  llvm::Expected<DecoderDescription> decoder = analyzeDecoder(piece->function);
  if (!decoder)
    return decoder.takeError();
  auto weights = std::make_unique<PieceWeights>(path.str());
  std::vector<const OnnxModel *> files = {piece->model.get()};
  weights->addModel(std::move(piece->model));
  ExportDescription description;
  description.embedding = decoder->embedding;
  description.head = decoder->head;
  for (BlockDescription &layer : decoder->layers)
    description.layers.emplace_back(0, std::move(layer));
  return buildCheckpoint(path, llvm::sys::path::parent_path(path),
                         std::move(weights), description, files);
}

} // namespace

llvm::Expected<plugins::Checkpoint> loadCheckpoint(llvm::StringRef path) {
  if (llvm::sys::fs::is_directory(path)) {
    std::string decoder = joinPath(path, "decoder.onnx");
    if (!llvm::sys::fs::exists(joinPath(path, "block_0.onnx")) &&
        llvm::sys::fs::exists(decoder))
      return loadDecoder(decoder);
    return loadPieces(path);
  }
  return loadDecoder(path);
}

} // namespace llmc::onnx
