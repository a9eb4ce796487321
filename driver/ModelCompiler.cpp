//===- ModelCompiler.cpp - a checkpoint to one .llmc binary ---------------===//

#include "driver/ModelCompiler.h"

#include "backends/common/cmodel/StreamDevice.h"
#include "backends/common/cmodel/StreamBuilder.h"
#include "backends/common/codegen/GlobalViews.h"
#include "backends/common/compile/PieceCompiler.h"
#include "backends/common/compile/StreamRelocation.h"
#include "backends/common/compile/VisionInfo.h"
#include "backends/common/compile/WeightPacking.h"
#include "backends/common/lowering/LoweringSupport.h"
#include "backends/common/quant/DerivedWeightName.h"
#include "backends/common/quant/FloatRounding.h"
#include "dialects/Registration.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "dialects/tpu/IR/TpuTraits.h"
#include "driver/QuantizedTables.h"
#include "pieces/ChunkLengths.h"
#include "runtime/format/BinaryWriter.h"
#include "support/LlvmStatus.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/ThreadPool.h"

#include <mutex>
#include <set>

using namespace mlir;

namespace llmc::driver {

using namespace compile;
namespace {

/// One piece on its way through the compiler.
struct PieceJob {
  std::string name;
  /// The mode --piece-quantize pins, if any.
  std::optional<lowering::QuantMode> mode;
  llm::Phase phase = llm::Phase::None;
  std::optional<int64_t> layer;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  /// The lowered IR with the layer index abstracted, to find equal layers.
  std::string fingerprint;
  /// The job whose stream this one relocates, or -1 when compiled.
  int source = -1;
  std::vector<WeightUse> weights;
  binary::Piece manifest;
  cmd::CommandStream stream;
  /// What lowering warned of.
  std::vector<std::string> warnings;
};

/// Replaces every `from` in `text` by `to`.
std::string replaceAll(std::string text, llvm::StringRef from,
                       llvm::StringRef to) {
  for (size_t at = text.find(from.str()); at != std::string::npos;
       at = text.find(from.str(), at + to.size()))
    text.replace(at, from.size(), to.str());
  return text;
}

/// `name` of layer 0 renamed to layer `layer` (the first `.0.`).
/// `name`, a weight of layer `from`, as layer `to` names it.
std::string renameToLayer(llvm::StringRef name, int64_t from, int64_t to) {
  std::string text = name.str();
  std::string index = "." + std::to_string(from) + ".";
  size_t at = text.find(index);
  if (at != std::string::npos)
    text.replace(at, index.size(), "." + std::to_string(to) + ".");
  return text;
}

std::string fingerprintOf(ModuleOp module, int64_t layer) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  std::string index = std::to_string(layer);
  text = replaceAll(std::move(text), "." + index + ".", ".#.");
  return replaceAll(std::move(text), "_" + index + "_", "_#_");
}

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  auto context = std::make_unique<MLIRContext>(
      registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  return context;
}

binary::Tensor describeTensor(Type type, llvm::StringRef role,
                              tpu::MemAttr mem) {
  auto tensor = cast<RankedTensorType>(type);
  binary::Tensor out;
  out.set_name(role.str());
  out.set_role(role.str());
  for (int64_t dim : tensor.getShape())
    out.add_shape(dim);
  out.set_dtype(getDTypeName(tensor));
  out.set_io_offset(mem.getOffset());
  out.set_bytes(tpu::getTensorBytes(tensor).value_or(0));
  return out;
}

/// The manifest entry of a lowered, placed piece (without its stream).
binary::Piece describePiece(const PieceJob &job) {
  func::FuncOp function = getPieceFunction(*job.module);
  binary::Piece piece;
  piece.set_name(job.name);
  piece.set_phase(job.phase == llm::Phase::None
                      ? ""
                      : llm::stringifyPhase(job.phase).str());
  piece.set_layer(job.layer.value_or(-1));
  llvm::SmallVector<std::string> roles(function.getNumArguments());
  function.walk([&](top::InputOp input) {
    if (auto argument = dyn_cast<BlockArgument>(input.getInput()))
      roles[argument.getArgNumber()] = input.getRole().value_or("").str();
  });
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
    *piece.add_inputs() = describeTensor(
        type, roles[index],
        cast<tpu::MemAttr>(function.getArgAttr(index, "tpu.addr")));
  for (auto [index, type] : llvm::enumerate(function.getResultTypes())) {
    auto role = function.getResultAttrOfType<StringAttr>(index, "llmc.role");
    *piece.add_outputs() = describeTensor(
        type, role ? role.getValue() : "",
        cast<tpu::MemAttr>(function.getResultAttr(index, "tpu.addr")));
  }
  piece.set_io_bytes(
      function->getAttrOfType<IntegerAttr>("tpu.io_bytes").getInt());
  piece.set_activation_bytes(
      function->getAttrOfType<IntegerAttr>("tpu.activation_bytes").getInt());
  return piece;
}

llvm::Error selectionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A job for every piece of `names` that `options` selects, in that order,
/// with the mode it pins.
llvm::Expected<std::vector<PieceJob>>
selectPieces(llvm::ArrayRef<std::string> names, const ConvertOptions &options) {
  llvm::StringSet<> known;
  known.insert(names.begin(), names.end());
  for (const std::string &name : options.pieces)
    if (!known.contains(name))
      return selectionError("no piece named '" + name +
                            "' in this model (`llmc pieces --list` lists them)");
  std::vector<llvm::GlobPattern> patterns;
  for (const PieceMode &pieceMode : options.pieceModes) {
    llvm::Expected<llvm::GlobPattern> pattern =
        llvm::GlobPattern::create(pieceMode.pattern);
    if (!pattern)
      return selectionError("piece pattern '" + pieceMode.pattern +
                            "': " + llvm::toString(pattern.takeError()));
    if (llvm::none_of(names, [&](llvm::StringRef name) {
          return pattern->match(name);
        }))
      return selectionError("piece pattern '" + pieceMode.pattern +
                            "' matches no piece of this model");
    patterns.push_back(std::move(*pattern));
  }
  llvm::StringSet<> wanted;
  wanted.insert(options.pieces.begin(), options.pieces.end());
  std::vector<PieceJob> jobs;
  for (const std::string &name : names) {
    if (!wanted.empty() && !wanted.contains(name))
      continue;
    PieceJob job;
    job.name = name;
    for (auto [pattern, pieceMode] : llvm::zip(patterns, options.pieceModes))
      if (pattern.match(name))
        job.mode = pieceMode.mode;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

class ModelCompiler {
public:
  ModelCompiler(const plugins::ModelSpec &spec,
                const plugins::WeightSource &weights,
                const plugins::BackendPlugin &backend,
                const ConvertOptions &options)
      : spec(spec), weights(weights), backend(backend), options(options),
        pool(llvm::hardware_concurrency(options.threads)) {}

  llvm::Expected<ConvertReport> run(llvm::StringRef outputPath);

private:
  void report(llvm::StringRef stage, llvm::StringRef item, int64_t done,
              int64_t total) {
    if (!options.progress)
      return;
    std::lock_guard<std::mutex> lock(progressMutex);
    options.progress({stage, item, done, total});
  }
  /// Runs `work(i)` for every job on the pool; the first error wins.
  llvm::Error forEachJob(llvm::StringRef stage,
                         std::function<llvm::Error(PieceJob &)> work);
  llvm::Error lowerPiece(PieceJob &job);
  llvm::Error layOutWeights();
  llvm::Error generateStream(PieceJob &job);
  llvm::Error modelTimes();
  void fillManifest();

  const plugins::ModelSpec &spec;
  const plugins::WeightSource &weights;
  const plugins::BackendPlugin &backend;
  const ConvertOptions &options;
  llvm::DefaultThreadPool pool;
  std::mutex progressMutex;
  std::vector<PieceJob> jobs;
  codegen::WeightOffsets offsets;
  binary::BinaryWriter writer;
  ConvertReport result;
};

llvm::Error
ModelCompiler::forEachJob(llvm::StringRef stage,
                          std::function<llvm::Error(PieceJob &)> work) {
  std::mutex errorMutex;
  llvm::Error first = llvm::Error::success();
  std::atomic<int64_t> done{0};
  int64_t total = jobs.size();
  for (PieceJob &job : jobs)
    pool.async([&, jobPtr = &job] {
      llvm::Error error = work(*jobPtr);
      report(stage, jobPtr->name, ++done, total);
      if (error) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!first)
          first = std::move(error);
        else
          llvm::consumeError(std::move(error));
      }
    });
  pool.wait();
  return first;
}

llvm::Error ModelCompiler::lowerPiece(PieceJob &job) {
  if (job.source >= 0)
    return llvm::Error::success();
  if (llvm::Error error = lowerAndPlace(*job.module, backend,
                                        options.lowering, &job.warnings))
    return error;
  job.weights = collectWeights(*job.module);
  job.manifest = describePiece(job);
  return llvm::Error::success();
}

llvm::Error ModelCompiler::layOutWeights() {
  // Every weight once, in first-use order: the coeff layout.
  std::vector<WeightUse> order;
  llvm::StringSet<> seen;
  for (PieceJob &job : jobs) {
    if (job.source >= 0) {
      const PieceJob &source = jobs[job.source];
      job.manifest = source.manifest;
      job.manifest.set_name(job.name);
      job.manifest.set_layer(job.layer.value_or(-1));
      job.manifest.clear_weights();
      for (const WeightUse &use : source.weights)
        job.weights.push_back(
            {renameToLayer(use.name, *source.layer, *job.layer), use.type,
             use.constant});
    }
    for (const WeightUse &use : job.weights) {
      job.manifest.add_weights(use.name);
      if (seen.insert(use.name).second)
        order.push_back(use);
    }
  }
  // Packing (quantization, mostly) runs in parallel a window at a time, the
  // parts of one source weight in one task so it is quantized once; the
  // packed bytes are added in order, so the layout is the same for any
  // thread count.
  struct Packed {
    std::vector<uint8_t> bytes;
    std::string error;
  };
  size_t window = 4 * std::max<size_t>(1, pool.getMaxConcurrency());
  int64_t done = 0;
  for (size_t begin = 0; begin < order.size(); begin += window) {
    size_t end = std::min(order.size(), begin + window);
    std::vector<Packed> packed(end - begin);
    llvm::StringMap<std::vector<size_t>> bySource;
    std::vector<std::string> sources;
    for (size_t i = begin; i < end; ++i) {
      std::optional<quant::DerivedWeightName> derived =
          quant::DerivedWeightName::parse(order[i].name);
      std::string source = derived ? derived->source : order[i].name;
      auto [it, inserted] = bySource.try_emplace(source);
      if (inserted)
        sources.push_back(source);
      it->second.push_back(i);
    }
    for (const std::string &source : sources)
      pool.async([&, source, indices = bySource[source]] {
        // The packed bytes are copies: what the source derived from its
        // tensor, and the tensor's mapped pages, can go.
        auto release =
            llvm::make_scope_exit([&] { weights.releaseTensor(source); });
        for (size_t i : indices) {
          if (!order[i].constant.empty()) {
            packed[i - begin].bytes = order[i].constant;
            continue;
          }
          llvm::Expected<std::vector<uint8_t>> bytes =
              packWeight(weights, order[i].name, order[i].type);
          if (bytes)
            packed[i - begin].bytes = std::move(*bytes);
          else
            packed[i - begin].error = llvm::toString(bytes.takeError());
        }
      });
    pool.wait();
    for (size_t i = begin; i < end; ++i) {
      const WeightUse &use = order[i];
      report("weights", use.name, ++done, order.size());
      if (!packed[i - begin].error.empty())
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       packed[i - begin].error);
      llvm::Expected<uint64_t> offset = support::toExpected(
          writer.addWeight(use.name, packed[i - begin].bytes,
                           getDTypeName(use.type), use.type.getShape()));
      if (!offset)
        return offset.takeError();
      offsets[use.name] = *offset;
    }
  }
  return llvm::Error::success();
}

llvm::Error ModelCompiler::generateStream(PieceJob &job) {
  if (job.source >= 0)
    return llvm::Error::success();
  if (llvm::Error error = backend.generateStream(
          getPieceFunction(*job.module), offsets, job.stream))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   job.name + ": " +
                                       llvm::toString(std::move(error)));
  job.stream.set_name(job.name);
  return llvm::Error::success();
}

llvm::Error ModelCompiler::modelTimes() {
  // Only a modelled time belongs in the binary: a measured one would make
  // the output depend on the machine.
  std::unique_ptr<cmodel::StreamDevice> device = backend.createDevice({});
  if (!device || !device->modelsTime())
    return llvm::Error::success();
  device->global().attachReadOnly(cmd::REGION_COEFF, writer.getCoeff());
  int64_t done = 0, total = jobs.size();
  for (PieceJob &job : jobs) {
    report("modelling", job.name, ++done, total);
    if (job.source >= 0)
      continue;
    device->global().allocate(cmd::REGION_IO, job.manifest.io_bytes());
    device->global().allocate(
        cmd::REGION_ACTIVATION,
        std::max<uint64_t>(64, job.manifest.activation_bytes()));
    llvm::Expected<cmodel::RunStats> stats =
        support::toExpected(device->run(job.stream));
    if (!stats)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     job.name + ": " +
                                         llvm::toString(stats.takeError()));
    job.manifest.set_modelled_seconds(stats->seconds);
  }
  for (PieceJob &job : jobs)
    if (job.source >= 0)
      job.manifest.set_modelled_seconds(
          jobs[job.source].manifest.modelled_seconds());
  return llvm::Error::success();
}

void ModelCompiler::fillManifest() {
  binary::Manifest &manifest = writer.manifest();
  manifest.set_chip(backend.getDescriptor().id);
  manifest.set_precision(
      lowering::stringifyQuantMode(options.lowering.mode).str());
  manifest.set_q_group_size(options.lowering.groupSize);
  manifest.set_asymmetric(options.lowering.asymmetric);
  binary::ModelInfo &model = *manifest.mutable_model();
  model.set_family(spec.family);
  model.set_num_layers(spec.numLayers);
  model.set_hidden_size(spec.hiddenSize);
  model.set_vocab_size(spec.vocabSize);
  model.set_num_heads(spec.numHeads);
  model.set_num_kv_heads(spec.numKvHeads);
  model.set_head_dim(spec.headDim);
  model.set_seq_length(options.build.seqLength);
  model.set_max_input_length(options.build.maxInputLength);
  for (int64_t length : options.build.prefillLengths)
    model.add_prefill_lengths(length);
  for (int64_t window : spec.layerWindows)
    model.add_layer_windows(window);
  binary::KvCacheLayout &cache = *manifest.mutable_kv_cache();
  // The history the pieces read and write is in the mode's activation type.
  cache.set_dtype(quant::stringifyFloatType(
                      lowering::getActivationType(options.lowering.mode))
                      .str());
  cache.set_slots(options.build.seqLength);
  cache.set_kv_heads(spec.numKvHeads);
  cache.set_head_dim(spec.headDim);
  binary::GenerationDefaults &generation = *manifest.mutable_generation();
  for (int64_t id : spec.eosTokenIds)
    generation.add_stop_token_ids(static_cast<int32_t>(id));
  generation.set_bos_token_id(static_cast<int32_t>(spec.bosTokenId));
  generation.set_temperature(1.0);
  generation.set_top_p(1.0);
  generation.set_repetition_penalty(1.0);
  generation.set_max_new_tokens(options.build.seqLength);
  manifest.set_chat_template(spec.chatTemplate);
  manifest.set_chat_eos_token(spec.chatEosToken);
  if (std::optional<binary::VisionInfo> vision = describeVision(spec))
    *manifest.mutable_vision() = std::move(*vision);
  manifest.set_compiler_version("llmc 0.1");
  if (!spec.tokenizerJson.empty())
    writer.setTokenizerJson(spec.tokenizerJson);
  for (PieceJob &job : jobs) {
    if (job.source >= 0) {
      job.stream = relocateStream(jobs[job.source].stream,
                                  jobs[job.source].weights, job.weights,
                                  offsets);
      job.stream.set_name(job.name);
    }
    job.manifest.set_stream_section(
        writer.addStream(cmodel::serializeStream(job.stream)));
    *manifest.add_pieces() = job.manifest;
    double seconds = job.manifest.modelled_seconds();
    bool head = job.name == "lm_head" || job.name == "greedy_head";
    if (job.phase == llm::Phase::Decode || job.name == "embed.decode" || head)
      result.decodeSeconds += seconds;
    // A prefill of L tokens: the shorter chunks' pieces are not part of it.
    if ((job.phase == llm::Phase::Prefill &&
         !pieces::getChunkLengthOfName(job.name)) ||
        job.name == "embed.prefill" || head)
      result.prefillSeconds += seconds;
  }
}

llvm::Expected<ConvertReport> ModelCompiler::run(llvm::StringRef outputPath) {
  // Build every piece in its own context, so they lower in parallel.
  std::unique_ptr<MLIRContext> scratch = makeContext();
  llvm::Expected<llm::GraphBuilder> names =
      llm::GraphBuilder::create(*scratch, spec, options.build);
  if (!names)
    return names.takeError();
  llvm::Expected<std::vector<PieceJob>> selected =
      selectPieces(names->getPieceNames(), options);
  if (!selected)
    return selected.takeError();
  jobs = std::move(*selected);
  llvm::Expected<std::vector<std::string>> linearTables =
      getHeadLinearWeights(*names);
  if (!linearTables)
    return linearTables.takeError();
  if (llvm::Error error = forEachJob("building", [&](PieceJob &job) -> llvm::Error {
        job.context = makeContext();
        llvm::Expected<llm::GraphBuilder> builder =
            llm::GraphBuilder::create(*job.context, spec, options.build);
        if (!builder)
          return builder.takeError();
        llvm::Expected<llm::Piece> piece = builder->build(job.name);
        if (!piece)
          return piece.takeError();
        job.phase = piece->phase;
        job.layer = piece->layer;
        job.module = std::move(piece->module);
        if (job.mode)
          getPieceFunction(*job.module)
              ->setAttr(lowering::kPinnedModeAttr,
                        StringAttr::get(job.context.get(),
                                        lowering::stringifyQuantMode(*job.mode)));
        markQuantizedTables(*job.module, *linearTables);
        if (spec.floatWeightsByChoice)
          getPieceFunction(*job.module)
              ->setAttr(lowering::kKeepsFloatWeightsAttr,
                        UnitAttr::get(job.context.get()));
        return llvm::Error::success();
      }))
    return std::move(error);
  if (llvm::Error error = forEachJob(
          "lowering", [&](PieceJob &job) { return lowerPiece(job); }))
    return std::move(error);
  // A layer whose lowered piece equals an earlier layer's (everything the
  // lowering decided is in it: the modes a qtable chose, weight schemes,
  // calibrated scales) reuses that layer's stream.
  if (options.compileOncePerLayer)
    for (size_t index = 0; index < jobs.size(); ++index) {
      PieceJob &job = jobs[index];
      if (!job.layer)
        continue;
      job.fingerprint = fingerprintOf(*job.module, *job.layer);
      for (size_t i = 0; i < index; ++i)
        if (jobs[i].source < 0 && jobs[i].layer &&
            jobs[i].phase == job.phase &&
            jobs[i].fingerprint == job.fingerprint) {
          job.source = static_cast<int>(i);
          job.module = nullptr;
          job.context = nullptr;
          job.weights.clear();
          break;
        }
    }
  if (llvm::Error error = layOutWeights())
    return std::move(error);
  if (llvm::Error error = forEachJob(
          "codegen", [&](PieceJob &job) { return generateStream(job); }))
    return std::move(error);
  if (options.modelTime)
    if (llvm::Error error = modelTimes())
      return std::move(error);
  result.pieces = jobs.size();
  std::set<std::string> warnings;
  for (const PieceJob &job : jobs) {
    result.compiledPieces += job.source < 0;
    warnings.insert(job.warnings.begin(), job.warnings.end());
  }
  result.warnings.assign(warnings.begin(), warnings.end());
  fillManifest();
  report("writing", outputPath, 0, 1);
  if (llvm::Error error = support::toLlvmError(writer.write(outputPath.str())))
    return std::move(error);
  report("writing", outputPath, 1, 1);
  uint64_t size = 0;
  if (!llvm::sys::fs::file_size(outputPath, size))
    result.fileBytes = size;
  result.coeffBytes = writer.coeffBytes();
  return result;
}

} // namespace

llvm::Expected<ConvertReport>
convertModel(const plugins::ModelSpec &spec,
             const plugins::WeightSource &weights,
             const plugins::BackendPlugin &backend,
             const ConvertOptions &options, llvm::StringRef outputPath) {
  return ModelCompiler(spec, weights, backend, options).run(outputPath);
}

} // namespace llmc::driver
