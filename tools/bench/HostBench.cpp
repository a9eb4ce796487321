//===- HostBench.cpp - the host backend against the memory roofline -------===//
//
// Runs .llmc binaries compiled for the host on this machine and prints, in
// one run, per binary: the memory read bandwidth (a STREAM-style sum over
// 1 GiB on every thread, measured just before the binary's decode steps, as
// a shared machine's bandwidth drifts), the decode tokens/s at the context
// the prompt left, the bytes a decode step must read (the decode pieces'
// weights and the KV history rows in use, on average over the timed steps),
// the roofline those bytes allow at the measured bandwidth and the fraction
// of it reached (over all the timed steps, and over the fastest 8 in a row,
// as the bandwidth is the best of several passes), and a prompt's prefill
// tokens/s with the GFLOP/s of its projections and attention, and the time
// to the first token of a --turn-token follow-up turn after the prompt.
//
//   host_bench f16.llmc w8.llmc w4.llmc [--prompt-tokens 512] [--decode 32]
//              [--turn 16] [--json]
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/CpuFeatures.h"
#include "backends/host/kernels/WorkerPool.h"
#include "backends/host/kernels/bench/ComputePeak.h"
#include "backends/host/kernels/bench/ReadBandwidth.h"
#include "pieces/ChunkLengths.h"
#include "plugins/LinkedPlugins.h"
#include "plugins/Registry.h"
#include "runtime/device/BinaryRunner.h"
#include "runtime/format/BinaryReader.h"
#include "runtime/session/Session.h"

#include "backends/common/cmodel/StreamDevice.h"
#include "support/LlvmStatus.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <numeric>
#include <random>

using namespace llmc;
namespace cl = llvm::cl;

/// The tool's options: --help lists these, not the LLVM libraries'.
static cl::OptionCategory toolCategory("host_bench options");
static cl::list<std::string> binaryPaths(cl::Positional, cl::OneOrMore,
                                         cl::desc("<host .llmc files>"),
                                         cl::cat(toolCategory));
static cl::opt<int64_t>
    promptTokens("prompt-tokens",
                 cl::desc("Tokens of the timed prompt (prefill)"),
                 cl::init(512), cl::cat(toolCategory));
static cl::opt<int64_t> decodeTokens("decode", cl::desc("Timed decode steps"),
                                     cl::init(32), cl::cat(toolCategory));
static cl::opt<bool> listDecodeWeights(
    "list-decode-weights",
    cl::desc("Print the blobs a decode step reads, largest first"),
    cl::cat(toolCategory));
static cl::opt<bool> profileDecode(
    "profile",
    cl::desc("After the table, per binary, where a timed decode step's time "
             "goes, by kind of command"),
    cl::cat(toolCategory));
static cl::opt<int64_t> turnTokens(
    "turn",
    cl::desc("Tokens of a follow-up turn timed after the prompt's history "
             "(its time to the first token); 0 skips it"),
    cl::init(16), cl::cat(toolCategory));
static cl::opt<bool> printJson(
    "json",
    cl::desc("Also print one JSON line of figures per binary (for scripts)"),
    cl::cat(toolCategory));
static cl::opt<unsigned> threads("host-threads",
                                 cl::desc("Threads (0: every hardware thread)"),
                                 cl::init(0), cl::cat(toolCategory));

namespace {
/// The steps in a row whose best rate the benchmark also reports.
constexpr int64_t kBestWindow = 8;

struct Figures {
  double bandwidth = 0;
  /// GFLOP/s of float32 FMAs, measured before the prefill.
  double fmaPeak = 0;
  double decodeTokensPerSecond = 0;
  /// Over the fastest kBestWindow steps in a row: the read bandwidth is the
  /// best of several passes, and this is decode's figure measured alike.
  double bestDecodeTokensPerSecond = 0;
  double decodeBytes = 0;
  double prefillTokensPerSecond = 0;
  double prefillFlops = 0;
  /// A --turn-token turn after the prompt: its time to the first token.
  double turnSeconds = 0;
  /// With --profile, the timed decode steps' commands.
  cmodel::CommandProfile decodeProfile;
};
} // namespace

static bool isQuantizationParameter(llvm::StringRef name) {
  return name.contains('#') &&
         (name.ends_with(".scale") || name.ends_with(".zp"));
}

static llvm::Expected<Figures> benchmark(const binary::LoadedBinary &binary,
                                         const plugins::Registry &registry,
                                         host::WorkerPool &rooflinePool) {
  const binary::Manifest &manifest = binary.manifest();
  llvm::Expected<const plugins::BackendPlugin &> backend =
      registry.findBackend(manifest.chip());
  if (!backend)
    return backend.takeError();
  Figures figures;
  cmodel::CommandProfile profile;
  cmodel::DeviceOptions options;
  options.threads = threads;
  if (profileDecode)
    options.profile = &profile;
  llvm::Expected<std::unique_ptr<device::BinaryRunner>> runner =
      support::toExpected(
          device::BinaryRunner::create(binary, backend->createDevice(options)));
  if (!runner)
    return runner.takeError();
  session::ModelDims dims = (*runner)->getModelDims();
  if (promptTokens > dims.maxInputLength ||
      promptTokens + std::max<int64_t>(decodeTokens + 1, turnTokens) >
          dims.seqLength)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        binary.name() + ": a prompt of " + llvm::Twine(promptTokens) +
            " tokens and " + llvm::Twine(decodeTokens) +
            " decode steps (or a turn of " + llvm::Twine(turnTokens) +
            ") need --max-input-length >= the prompt and --seq-length above "
            "both");

  llvm::StringMap<const binary::WeightBlob *> blobs;
  for (const binary::WeightBlob &blob : manifest.weights())
    blobs[blob.name()] = &blob;
  llvm::StringSet<> decodeWeights;
  for (const binary::Piece &piece : manifest.pieces()) {
    // The embedding gathers rows of its table: no product streams it.
    bool embedding = llvm::StringRef(piece.name()).starts_with("embed.");
    bool decode = (piece.phase() == "decode" && !embedding) ||
                  piece.name() == "lm_head" || piece.name() == "greedy_head";
    bool prefill = piece.phase() == "prefill" && !embedding &&
                   !pieces::getChunkLengthOfName(piece.name());
    for (const std::string &name : piece.weights()) {
      const binary::WeightBlob *blob = blobs.lookup(name);
      if (!blob)
        continue;
      if (decode && decodeWeights.insert(name).second)
        figures.decodeBytes += blob->bytes();
      // Projections: the checkpoint's 2-D weights (not rotary tables).
      if (prefill && blob->shape_size() == 2 &&
          llvm::StringRef(name).contains(".weight") &&
          !isQuantizationParameter(name))
        figures.prefillFlops +=
            2.0 * promptTokens * blob->shape(0) * blob->shape(1);
    }
    // A step reads the history rows in use (attention skips the slots the
    // mask hides): on average, the prompt, the untimed step and half the
    // timed ones, of the cache's seq-length slots.
    double historyRows = promptTokens + 1 + decodeTokens / 2.0;
    if (piece.phase() == "decode")
      for (const binary::Tensor &input : piece.inputs())
        if (llvm::StringRef(input.role()).starts_with("history"))
          figures.decodeBytes += input.bytes() * historyRows / dims.seqLength;
  }
  if (listDecodeWeights) {
    std::vector<const binary::WeightBlob *> read;
    for (const auto &name : decodeWeights)
      read.push_back(blobs.lookup(name.getKey()));
    llvm::sort(read,
               [](const binary::WeightBlob *a, const binary::WeightBlob *b) {
                 return a->bytes() > b->bytes() ||
                        (a->bytes() == b->bytes() && a->name() < b->name());
               });
    for (const binary::WeightBlob *blob : read)
      llvm::outs() << llvm::format("%12llu %-6s ",
                                   (unsigned long long)blob->bytes(),
                                   blob->dtype().c_str())
                   << blob->name() << "\n";
  }
  // Causal attention: scores and the weighted sum, half the square.
  figures.prefillFlops += 2.0 * promptTokens * promptTokens *
                          manifest.model().num_heads() *
                          manifest.model().head_dim() * dims.numLayers;

  session::Session session(**runner, dims);
  std::mt19937 random(1);
  std::vector<int32_t> prompt(promptTokens);
  for (int32_t &id : prompt)
    id = static_cast<int32_t>(random() % dims.vocabSize);
  figures.fmaPeak = host::measureFmaPeak(rooflinePool);
  double start = host::now();
  llvm::Expected<std::vector<float>> logits =
      support::toExpected(session.feed(prompt));
  if (!logits)
    return logits.takeError();
  figures.prefillTokensPerSecond = promptTokens / (host::now() - start);
  // A step is what greedy generation runs a token: greedy_head picks it
  // from the logits, then the model runs it. One untimed step first: the
  // decode pieces' first run.
  auto step = [&]() -> llvm::Error {
    llvm::Expected<int32_t> next =
        support::toExpected(session.pickGreedy(*logits));
    if (!next)
      return next.takeError();
    logits = support::toExpected(session.feed({*next}));
    return logits ? llvm::Error::success() : logits.takeError();
  };
  if (llvm::Error error = step())
    return std::move(error);
  figures.bandwidth = host::measureReadBandwidth(rooflinePool);
  profile.kinds.clear();
  std::vector<double> stepSeconds;
  start = host::now();
  for (int64_t i = 0; i < decodeTokens; ++i) {
    double stepStart = host::now();
    if (llvm::Error error = step())
      return std::move(error);
    stepSeconds.push_back(host::now() - stepStart);
  }
  figures.decodeTokensPerSecond = decodeTokens / (host::now() - start);
  const int64_t window = std::min<int64_t>(kBestWindow, decodeTokens);
  double fastest = 1e30;
  for (int64_t i = 0; i + window <= decodeTokens; ++i)
    fastest = std::min(fastest,
                       std::accumulate(stepSeconds.begin() + i,
                                       stepSeconds.begin() + i + window, 0.0));
  figures.bestDecodeTokensPerSecond = window ? window / fastest : 0.0;
  figures.decodeProfile = std::move(profile);
  if (turnTokens > 0) {
    // A follow-up turn: the prompt is the history in the cache, and the
    // turn's tokens run through prefill_kv after it.
    session::Session turn(**runner, dims);
    if (absl::Status history = turn.feed(prompt).status(); !history.ok())
      return support::toLlvmError(history);
    std::vector<int32_t> ids(turnTokens);
    for (int32_t &id : ids)
      id = static_cast<int32_t>(random() % dims.vocabSize);
    start = host::now();
    if (absl::Status first = turn.feed(ids).status(); !first.ok())
      return support::toLlvmError(first);
    figures.turnSeconds = host::now() - start;
  }
  return figures;
}

/// Per kind of command, largest first: microseconds a decode step, the
/// share of the step, and the commands a step; then what the step spent
/// outside the device (the runner, the session and sampling on the host).
static void printProfile(llvm::StringRef path, const Figures &figures) {
  const double stepSeconds = 1 / figures.decodeTokensPerSecond;
  std::vector<std::pair<std::string, cmodel::CommandProfile::Kind>> kinds(
      figures.decodeProfile.kinds.begin(), figures.decodeProfile.kinds.end());
  llvm::sort(kinds, [](const auto &a, const auto &b) {
    return a.second.seconds > b.second.seconds ||
           (a.second.seconds == b.second.seconds && a.first < b.first);
  });
  llvm::outs() << "\n"
               << path << ": a decode step of "
               << llvm::format("%.1f", stepSeconds * 1e6) << " us\n"
               << llvm::format("%-44s %9s %6s %9s\n", "command", "us/step",
                               "share", "runs/step");
  double inDevice = 0;
  for (const auto &[kind, time] : kinds) {
    const double perStep = time.seconds / decodeTokens;
    inDevice += perStep;
    llvm::outs() << llvm::format("%-44s %9.1f %5.1f%% %9.1f\n", kind.c_str(),
                                 perStep * 1e6, 100 * perStep / stepSeconds,
                                 double(time.runs) / decodeTokens);
  }
  llvm::outs() << llvm::format("%-44s %9.1f %5.1f%%\n", "(outside the device)",
                               (stepSeconds - inDevice) * 1e6,
                               100 * (stepSeconds - inDevice) / stepSeconds);
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(toolCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "host backend against the memory roofline\n");
  auto fail = [](llvm::Error error) {
    llvm::WithColor::error(llvm::errs(), "host_bench")
        << llvm::toString(std::move(error)) << "\n";
    return 1;
  };
  plugins::Registry registry;
  plugins::registerLinkedPlugins(registry);
  host::WorkerPool pool(threads);
  const host::CpuFeatures &cpu = host::CpuFeatures::host();
  llvm::outs() << "host: " << llvm::sys::getHostCPUName() << ", " << pool.size()
               << " threads, kernels " << host::getIsaName(host::selectIsa())
               << " (" << cpu.describe() << ")\n";
  llvm::outs() << llvm::format(
      "read bandwidth: a sum of 1 GiB on %u threads, before each binary's "
      "decode;\nFMA peak: float32 FMAs on %u threads, before its prefill\n\n",
      pool.size(), pool.size());
  llvm::outs() << llvm::format(
      "%-10s %6s %9s %7s %9s %9s %8s %6s | %11s %9s %9s %8s | %8s\n",
      "precision", "GB/s", "decode t/s", "best 8", "MB/token", "roofline",
      "of roof", "best", "prefill t/s", "GFLOP/s", "FMA peak", "of peak",
      "turn ms");
  std::vector<Figures> profiled;
  for (const std::string &path : binaryPaths) {
    llvm::Expected<std::unique_ptr<binary::LoadedBinary>> binary =
        support::toExpected(binary::LoadedBinary::open(path));
    if (!binary)
      return fail(binary.takeError());
    if ((*binary)->manifest().chip() != "host")
      return fail(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                          path + " is compiled for '" +
                                              (*binary)->manifest().chip() +
                                              "'; convert with -c host"));
    llvm::Expected<Figures> figures = benchmark(**binary, registry, pool);
    if (!figures)
      return fail(figures.takeError());
    double roofline = figures->bandwidth * 1e9 / figures->decodeBytes;
    double prefillGflops = figures->prefillFlops *
                           figures->prefillTokensPerSecond / promptTokens / 1e9;
    llvm::outs() << llvm::format(
        "%-10s %6.1f %10.1f %7.1f %9.1f %9.1f %7.0f%% %5.0f%% | %11.1f %9.1f "
        "%9.1f %7.0f%% | %8.2f\n",
        (*binary)->manifest().precision().c_str(), figures->bandwidth,
        figures->decodeTokensPerSecond, figures->bestDecodeTokensPerSecond,
        figures->decodeBytes / 1e6, roofline,
        100 * figures->decodeTokensPerSecond / roofline,
        100 * figures->bestDecodeTokensPerSecond / roofline,
        figures->prefillTokensPerSecond, prefillGflops, figures->fmaPeak,
        figures->fmaPeak > 0 ? 100 * prefillGflops / figures->fmaPeak : 0.0,
        figures->turnSeconds * 1e3);
    if (printJson)
      llvm::outs() << llvm::formatv(
          "{{\"engine\":\"llmc\",\"model\":\"{0}\",\"precision\":\"{1}\","
          "\"threads\":{2},\"pp_tps\":{3:f2},\"tg_tps\":{4:f2},"
          "\"turn_ms\":{5:f3},\"bandwidth_gbs\":{6:f2},"
          "\"fma_peak_gflops\":{7:f1},\"cpu\":\"{8}\",\"isa\":\"{9}\"}\n",
          path, (*binary)->manifest().precision(), pool.size(),
          figures->prefillTokensPerSecond, figures->decodeTokensPerSecond,
          figures->turnSeconds * 1e3, figures->bandwidth, figures->fmaPeak,
          llvm::sys::getHostCPUName(), host::getIsaName(host::selectIsa()));
    if (profileDecode)
      profiled.push_back(std::move(*figures));
  }
  for (size_t i = 0; i < profiled.size(); ++i)
    printProfile(binaryPaths[i], profiled[i]);
  return 0;
}
