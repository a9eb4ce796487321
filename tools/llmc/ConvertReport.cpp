//===- ConvertReport.cpp - llmc convert --report --------------------------===//

#include "tools/llmc/ConvertReport.h"

#include "runtime/device/BinaryRunner.h"
#include "runtime/session/Generation.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "support/LlvmStatus.h"
#include "tools/llmc/Calibrator.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/ConversionReport.h"
#include "tools/llmc/InterpreterSession.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<bool>
    report("report",
           cl::desc("After converting, compare every piece with the top "
                    "interpreter on F32 weights (and, with --report-text, the "
                    "perplexity)"),
           cl::sub(getConvertCommand()));
static cl::opt<std::string> reportText(
    "report-text",
    cl::desc("--report: also measure the perplexity of the binary and of F32 "
             "on this text file"),
    cl::value_desc("file.txt"), cl::sub(getConvertCommand()));
static cl::opt<int64_t> reportContext(
    "report-context",
    cl::desc("--report-text: tokens per perplexity window (at most "
             "--seq-length)"),
    cl::init(256), cl::sub(getConvertCommand()));
static cl::opt<int64_t> reportWindows(
    "report-windows",
    cl::desc("--report-text: windows scored (default: every whole window)"),
    cl::init(0), cl::sub(getConvertCommand()));

/// Prompts the per-piece comparison runs, and the tokens generated after
/// each: two turns reach prefill, prefill_kv, decode, lm_head and
/// greedy_head.
constexpr size_t kComparedTurns = 2;
constexpr int64_t kComparedNewTokens = 8;

static llvm::Error optionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool isReportRequested() { return report || !reportText.empty(); }

llvm::Error validateReportOptions() {
  if (reportContext < 4)
    return optionError("--report-context must be at least 4, not " +
                       llvm::Twine(reportContext));
  if (reportWindows < 0)
    return optionError("--report-windows must not be negative");
  if (!reportText.empty() && !llvm::sys::fs::exists(reportText))
    return optionError("--report-text: no such file '" + reportText + "'");
  return llvm::Error::success();
}

static void printAgreements(llvm::raw_ostream &os,
                            llvm::ArrayRef<PieceAgreement> agreements) {
  os << llvm::format("  %-22s %5s %11s %11s  %s\n", "piece", "runs",
                     "min cosine", "max |diff|", "token ids");
  for (const PieceAgreement &piece : agreements) {
    os << llvm::format("  %-22s %5lld ", piece.piece.c_str(),
                       static_cast<long long>(piece.runs));
    if (piece.hasIdOutputs)
      os << llvm::format("%11s %11s  %lld/%lld equal\n", "-", "-",
                         static_cast<long long>(piece.matchingIdRuns),
                         static_cast<long long>(piece.runs));
    else
      os << llvm::format("%11.6f %11.4g\n", piece.minCosine, piece.maxAbsError);
  }
}

/// Runs the default prompts through both runners, piece by piece.
static llvm::Error compareConversation(const LoadedModel &model,
                                       const llm::BuildOptions &build,
                                       session::PieceRunner &reference,
                                       session::PieceRunner &device) {
  llvm::Expected<std::vector<std::vector<int32_t>>> prompts =
      getDefaultCalibrationPrompts(model.spec, build.maxInputLength);
  if (!prompts)
    return prompts.takeError();
  std::vector<session::Turn> turns;
  for (size_t i = 0; i < std::min(kComparedTurns, prompts->size()); ++i)
    turns.push_back({(*prompts)[i], {}});
  ComparingRunner comparing(reference, device);
  // Short prompts run in the shorter prefill lengths; a second pass without
  // them reaches the L-length pieces too.
  session::ModelDims dims = getModelDims(model.spec, build);
  std::vector<session::ModelDims> passes = {dims};
  if (!dims.prefillLengths.empty()) {
    passes.push_back(dims);
    passes.back().prefillLengths.clear();
  }
  session::GenerationLimits limits;
  limits.maxNewTokens = kComparedNewTokens;
  for (const session::ModelDims &passDims : passes) {
    session::Session conversation(comparing, passDims);
    if (absl::Status status = session::generateTurns(
            conversation, turns, limits,
            [&](absl::Span<const float> logits) {
              return conversation.pickGreedy(logits);
            },
            [](const session::GeneratedToken &) { return true; });
        !status.ok())
      return support::toLlvmError(status);
  }
  llvm::outs() << "report: every piece against the top interpreter on F32 "
                  "weights, on the same inputs ("
               << turns.size() << " prompts, " << kComparedNewTokens
               << " greedy tokens each";
  if (passes.size() > 1)
    llvm::outs() << "; in the shorter prefill lengths, then in L alone";
  llvm::outs() << ")\n";
  printAgreements(llvm::outs(), comparing.getAgreements());
  return llvm::Error::success();
}

static llvm::Error comparePerplexity(const LoadedModel &model,
                                     const llm::BuildOptions &build,
                                     llvm::StringRef mode,
                                     session::PieceRunner &reference,
                                     session::PieceRunner &device) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(reportText, /*IsText=*/true);
  if (!text)
    return optionError("--report-text: cannot read '" + reportText +
                       "': " + text.getError().message());
  if (model.spec.tokenizerJson.empty())
    return optionError("--report-text: the checkpoint has no tokenizer");
  llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> tokenizer =
      support::toExpected(tokenizer::Tokenizer::fromJson(
          model.spec.tokenizerJson, "tokenizer.json"));
  if (!tokenizer)
    return tokenizer.takeError();
  std::vector<int32_t> tokens =
      (*tokenizer)->encode((*text)->getBuffer(), /*addSpecialTokens=*/true);
  session::ModelDims dims = getModelDims(model.spec, build);
  session::Session f32(reference, dims), converted(device, dims);
  PerplexityOptions options;
  options.context = reportContext;
  options.maxWindows = reportWindows;
  options.progress = [&](int64_t done, int64_t total) {
    printProgressTenths(("F32 and " + mode + " on the text").str(), done, total,
                        "windows");
  };
  llvm::Expected<TextComparison> compared =
      compareOnText(f32, converted, tokens, options);
  if (!compared)
    return llvm::joinErrors(optionError("--report-text '" + reportText + "'"),
                            compared.takeError());
  const DistributionFigures &figures = compared->figures;
  llvm::outs() << llvm::format(
      "report: perplexity on %s (%lld windows of %lld tokens, %lld scored): "
      "F32 %.3f, %s %.3f (%+.2f %%)\n",
      reportText.c_str(), static_cast<long long>(compared->windows),
      static_cast<long long>(reportContext.getValue()),
      static_cast<long long>(figures.positions), figures.referencePerplexity,
      mode.str().c_str(), figures.candidatePerplexity,
      100.0 * (figures.candidatePerplexity / figures.referencePerplexity - 1));
  llvm::outs() << llvm::format(
      "report: %s against F32 on the same tokens: KL divergence mean %.3e, "
      "99th percentile %.3e, max %.3e; same top token %.2f %%\n",
      mode.str().c_str(), figures.meanKld, figures.p99Kld, figures.maxKld,
      100.0 * figures.top1Agreement);
  return llvm::Error::success();
}

llvm::Error printConversionReport(const LoadedModel &model,
                                  const llm::BuildOptions &build,
                                  const plugins::BackendPlugin &backend,
                                  llvm::StringRef mode,
                                  llvm::StringRef binaryPath) {
  unsigned threads = llvm::hardware_concurrency().compute_thread_count();
  llvm::Expected<std::unique_ptr<binary::LoadedBinary>> binary =
      support::toExpected(binary::LoadedBinary::open(binaryPath.str()));
  if (!binary)
    return binary.takeError();
  cmodel::DeviceOptions deviceOptions;
  deviceOptions.threads = threads;
  llvm::Expected<std::unique_ptr<device::BinaryRunner>> device =
      support::toExpected(device::BinaryRunner::create(
          **binary, backend.createDevice(deviceOptions)));
  if (!device)
    return device.takeError();
  llvm::Expected<std::unique_ptr<InterpreterSession>> reference =
      InterpreterSession::create(model, build, threads);
  if (!reference)
    return reference.takeError();
  if (llvm::Error error =
          compareConversation(model, build, **reference, **device))
    return error;
  if (reportText.empty())
    return llvm::Error::success();
  return comparePerplexity(model, build, mode, **reference, **device);
}

} // namespace llmc
