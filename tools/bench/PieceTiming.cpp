//===- PieceTiming.cpp - modelled time of a binary's pieces ---------------===//
//
// Runs every piece of a .llmc binary once on the cmodel of its chip and
// prints what the time model charges: per piece, then one decode step
// (embed.decode, every block's decode, lm_head, greedy_head) and one prefill
// of L tokens, the decode step against the DDR roofline (the bytes of the
// weights and the full KV cache it must read, over the chip's bandwidth),
// a prompt against the compute roofline, and the binary's size against its
// unique weight bytes.
//
//   piece_timing model.llmc
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/StreamBuilder.h"
#include "pieces/ChunkLengths.h"
#include "plugins/LinkedPlugins.h"
#include "plugins/Registry.h"
#include "runtime/format/BinaryReader.h"
#include "support/LlvmStatus.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;
using namespace llmc;

/// The tool's options: --help lists these, not the LLVM libraries'.
static cl::OptionCategory toolCategory("piece_timing options");
static cl::opt<std::string> binaryPath(cl::Positional, cl::Required,
                                       cl::desc("<model.llmc>"),
                                       cl::cat(toolCategory));
static cl::opt<bool> perPiece("per-piece",
                              cl::desc("Print every piece, not only totals"),
                              cl::cat(toolCategory));
static cl::opt<std::string>
    dumpPiece("dump", cl::desc("Print this piece's command stream (text)"),
              cl::value_desc("piece"), cl::cat(toolCategory));
static cl::opt<int64_t> promptTokens(
    "prompt-tokens",
    cl::desc("Also model a prompt of this many tokens: a prefill chunk, "
             "then prefill_kv chunks of L (0: none)"),
    cl::init(0), cl::cat(toolCategory));

/// The type a binary of `precision` (`W4BF16`) computes its matrix
/// products in.
static cmd::DType getActivationDType(llvm::StringRef precision) {
  if (precision.ends_with("BF16"))
    return cmd::DTYPE_BF16;
  if (precision.ends_with("F16"))
    return cmd::DTYPE_F16;
  if (precision == "INT8")
    return cmd::DTYPE_I8;
  return cmd::DTYPE_F32;
}

static int fail(llvm::Error error) {
  llvm::WithColor::error(llvm::errs(), "piece_timing")
      << llvm::toString(std::move(error)) << "\n";
  return 1;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(toolCategory);
  cl::ParseCommandLineOptions(argc, argv, "modelled time of a .llmc binary\n");
  llvm::Expected<std::unique_ptr<binary::LoadedBinary>> loaded =
      support::toExpected(binary::LoadedBinary::open(binaryPath));
  if (!loaded)
    return fail(loaded.takeError());
  const binary::Manifest &manifest = (*loaded)->manifest();
  plugins::Registry registry;
  llmc::plugins::registerLinkedPlugins(registry);
  llvm::Expected<const plugins::BackendPlugin &> backend =
      registry.findBackend(manifest.chip());
  if (!backend)
    return fail(backend.takeError());
  const plugins::ChipDescriptor &chip = backend->getDescriptor();
  std::unique_ptr<cmodel::StreamDevice> device = backend->createDevice({});
  if (!device || !device->modelsTime())
    return fail(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                        "chip '" + manifest.chip() +
                                            "' has no time model to report"));
  device->global().attachReadOnly(cmd::REGION_COEFF, (*loaded)->coeff());
  llvm::StringMap<uint64_t> blobBytes;
  for (const binary::WeightBlob &blob : manifest.weights())
    blobBytes[blob.name()] = blob.bytes();

  double decodeSeconds = 0, prefillSeconds = 0, prefillKVSeconds = 0;
  uint64_t prefillMacs = 0, prefillKVMacs = 0;
  uint64_t decodeDdr = 0, cacheBytes = 0;
  llvm::StringSet<> streamed;
  uint64_t streamedBytes = 0;
  for (const binary::Piece &piece : manifest.pieces()) {
    llvm::Expected<std::string_view> bytes =
        support::toExpected((*loaded)->streamBytes(piece.stream_section()));
    if (!bytes)
      return fail(bytes.takeError());
    llvm::Expected<cmd::CommandStream> stream =
        support::toExpected(cmodel::parseStream(*bytes));
    if (!stream)
      return fail(stream.takeError());
    if (piece.name() == dumpPiece)
      llvm::outs() << cmodel::printStream(*stream);
    device->global().allocate(cmd::REGION_IO, piece.io_bytes());
    device->global().allocate(cmd::REGION_ACTIVATION,
                              std::max<uint64_t>(64, piece.activation_bytes()));
    llvm::Expected<cmodel::RunStats> stats =
        support::toExpected(device->run(*stream));
    if (!stats)
      return fail(stats.takeError());
    bool head = piece.name() == "lm_head" || piece.name() == "greedy_head";
    bool decode =
        piece.phase() == "decode" || piece.name() == "embed.decode" || head;
    // Prefill and prefill_kv of L tokens: the shorter chunks' pieces are
    // timed but not summed.
    bool chunkOfL = !pieces::getChunkLengthOfName(piece.name());
    bool prefill = (piece.phase() == "prefill" && chunkOfL) ||
                   piece.name() == "embed.prefill" || head;
    if (decode) {
      decodeSeconds += stats->seconds;
      decodeDdr += stats->ddrBytes;
      // A decode step reads every layer's whole cache.
      for (const binary::Tensor &input : piece.inputs())
        if (input.role() == "history_k" || input.role() == "history_v")
          cacheBytes += input.bytes();
      // Gathered tables (embedding, rotary) are read a row at a time.
      if (piece.name() != "embed.decode")
        for (const std::string &name : piece.weights())
          if (!llvm::StringRef(name).starts_with("llmc.rope.") &&
              streamed.insert(name).second)
            streamedBytes += blobBytes.lookup(name);
    }
    if (prefill) {
      prefillSeconds += stats->seconds;
      prefillMacs += stats->macs;
    }
    if (piece.phase() == "prefill_kv" && chunkOfL) {
      prefillKVSeconds += stats->seconds;
      prefillKVMacs += stats->macs;
    }
    if (perPiece)
      llvm::outs() << llvm::format(
          "%-22s %10.3f us  dma %9llu  compute %9llu  ddr %10.3f MB  "
          "commands %llu+%llu\n",
          piece.name().c_str(), stats->seconds * 1e6,
          (unsigned long long)stats->dmaCycles,
          (unsigned long long)stats->computeCycles, stats->ddrBytes / 1e6,
          (unsigned long long)stats->dmaCommands,
          (unsigned long long)stats->computeCommands);
  }
  double roofline =
      (streamedBytes + cacheBytes) / (chip.ddrBandwidthGBps * 1e9);
  uint64_t fileBytes = 0;
  if (std::error_code error = llvm::sys::fs::file_size(binaryPath, fileBytes))
    return fail(llvm::errorCodeToError(error));
  llvm::outs() << llvm::format("%s %s on %s (%.0f GB/s DDR)\n",
                               binaryPath.c_str(), manifest.precision().c_str(),
                               chip.id.c_str(), chip.ddrBandwidthGBps);
  llvm::outs() << llvm::format(
      "decode: %.3f ms/token modelled, roofline %.3f ms (%.1f MB of "
      "weights, %.1f MB of KV cache): %.1f%% of roofline; %.1f MB moved\n",
      decodeSeconds * 1e3, roofline * 1e3, streamedBytes / 1e6,
      cacheBytes / 1e6, 100 * roofline / decodeSeconds, decodeDdr / 1e6);
  llvm::outs() << llvm::format(
      "prefill of %lld tokens: %.3f ms modelled (%.0f tokens/s)\n",
      (long long)manifest.model().max_input_length(), prefillSeconds * 1e3,
      manifest.model().max_input_length() / prefillSeconds);
  if (promptTokens > 0) {
    int64_t chunk = manifest.model().max_input_length();
    int64_t chunks = (promptTokens + chunk - 1) / chunk;
    // Every chunk runs the embedding and the blocks; the heads run once.
    double seconds = prefillSeconds + (chunks - 1) * prefillKVSeconds;
    uint64_t macs = prefillMacs + (chunks - 1) * prefillKVMacs;
    // The compute roofline: the multiply-accumulates the commands execute
    // (attention over every key, masked or not) at the chip's peak for the
    // type activations compute in.
    cmodel::TimeModel time(chip);
    double peakMacsPerSecond =
        time.getMacsPerCycle(getActivationDType(manifest.precision())) *
        chip.npuLanes * std::max<int64_t>(chip.cores, 1) * chip.clockMHz * 1e6;
    double computeRoofline = macs / peakMacsPerSecond;
    llvm::outs() << llvm::format(
        "prompt of %lld tokens (prefill + %lld prefill_kv chunks of %lld): "
        "%.3f ms modelled (%.0f tokens/s); compute roofline %.3f ms "
        "(%.1f GMAC): %.1f%% of roofline\n",
        (long long)promptTokens, (long long)(chunks - 1), (long long)chunk,
        seconds * 1e3, promptTokens / seconds, computeRoofline * 1e3,
        macs / 1e9, 100 * computeRoofline / seconds);
  }
  llvm::outs() << llvm::format(
      "binary: %.1f MB, unique weights %.1f MB (ratio %.4f)\n", fileBytes / 1e6,
      manifest.coeff_bytes() / 1e6, double(fileBytes) / manifest.coeff_bytes());
  return 0;
}
