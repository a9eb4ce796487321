//===- PieceOptions.cpp - the model and shape options of llmc -------------===//

#include "tools/llmc/PieceOptions.h"

#include "llvm/Support/WithColor.h"

#include "pieces/ChunkLengths.h"
#include "tools/llmc/Commands.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> modelPath(
    "model", cl::desc("The checkpoint (a Hugging Face directory, ...)"),
    cl::value_desc("path"), cl::Required, cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()),
    cl::sub(getCalibrateCommand()));
static cl::alias modelPathShort("m", cl::desc("Alias for --model"),
                                cl::aliasopt(modelPath));

static cl::opt<int64_t> seqLength(
    "seq-length",
    cl::desc("KV-cache capacity in tokens (history plus new tokens)"),
    cl::init(llm::BuildOptions().seqLength), cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()),
    cl::sub(getCalibrateCommand()));
static cl::alias seqLengthShort("s", cl::desc("Alias for --seq-length"),
                                cl::aliasopt(seqLength));

static cl::opt<int64_t> maxInputLength(
    "max-input-length",
    cl::desc("Tokens one prefill piece processes; longer prompts run in "
             "chunks"),
    cl::init(llm::BuildOptions().maxInputLength), cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()),
    cl::sub(getCalibrateCommand()));

static cl::opt<int64_t> sampleTopK(
    "sample-top-k",
    cl::desc("Candidates sample_head ranks (K); sampling on the device serves "
             "any top-k up to it"),
    cl::init(llm::BuildOptions().sampleTopK), cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));

static cl::opt<int64_t> penaltyWindow(
    "penalty-window",
    cl::desc("Recent tokens sample_head's repetition penalty looks at (W)"),
    cl::init(llm::BuildOptions().penaltyWindow), cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));

static cl::opt<std::string> prefillLengths(
    "prefill-lengths",
    cl::desc("Shorter prompt chunk lengths compiled beside L, comma-separated "
             "(a chunk runs in the shortest that holds it); 'auto': 16, 64, "
             "256, ... below L; 'none': L only"),
    cl::init("auto"), cl::sub(getPiecesCommand()), cl::sub(getEvalCommand()),
    cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));

static llvm::Expected<std::vector<int64_t>>
parsePrefillLengths(llvm::StringRef text, int64_t maxInputLength) {
  if (text == "auto")
    return pieces::getDefaultPrefillLengths(maxInputLength);
  std::vector<int64_t> lengths;
  if (text == "none")
    return lengths;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    int64_t length;
    if (item.trim().getAsInteger(10, length))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--prefill-lengths: '%s' is not a length (give lengths such as "
          "16,64, or auto, or none)",
          item.str().c_str());
    lengths.push_back(length);
  }
  if (std::optional<std::string> problem =
          pieces::checkPrefillLengths(lengths, maxInputLength))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--prefill-lengths: " + *problem);
  return lengths;
}

llvm::Expected<llm::BuildOptions> getBuildOptions() {
  llm::BuildOptions options;
  options.seqLength = seqLength;
  options.maxInputLength = maxInputLength;
  options.sampleTopK = sampleTopK;
  options.penaltyWindow = penaltyWindow;
  llvm::Expected<std::vector<int64_t>> lengths =
      parsePrefillLengths(prefillLengths, maxInputLength);
  if (!lengths)
    return lengths.takeError();
  options.prefillLengths = std::move(*lengths);
  return options;
}

llvm::Expected<LoadedModel>
loadSelectedModel(const plugins::Registry &registry,
                  const llm::BuildOptions &options) {
  llvm::Expected<LoadedModel> model = loadModel(registry, modelPath, options);
  if (model)
    for (const std::string &warning : model->warnings)
      llvm::WithColor::warning(llvm::errs(), "llmc") << warning << "\n";
  return model;
}

} // namespace llmc
