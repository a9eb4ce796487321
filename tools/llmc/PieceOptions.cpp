//===- PieceOptions.cpp - the model and shape options of llmc -------------===//

#include "tools/llmc/PieceOptions.h"

#include "tools/llmc/Commands.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> modelPath(
    "model", cl::desc("The checkpoint (a Hugging Face directory, ...)"),
    cl::value_desc("path"), cl::Required, cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()));
static cl::alias modelPathShort("m", cl::desc("Alias for --model"),
                                cl::aliasopt(modelPath));

static cl::opt<int64_t> seqLength(
    "seq-length",
    cl::desc("KV-cache capacity in tokens (history plus new tokens)"),
    cl::init(llm::BuildOptions().seqLength), cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()));
static cl::alias seqLengthShort("s", cl::desc("Alias for --seq-length"),
                                cl::aliasopt(seqLength));

static cl::opt<int64_t> maxInputLength(
    "max-input-length",
    cl::desc("Tokens one prefill piece processes; longer prompts run in "
             "chunks"),
    cl::init(llm::BuildOptions().maxInputLength), cl::sub(getPiecesCommand()),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()));

llm::BuildOptions getBuildOptions() {
  llm::BuildOptions options;
  options.seqLength = seqLength;
  options.maxInputLength = maxInputLength;
  return options;
}

llvm::StringRef getModelPath() { return modelPath; }

} // namespace llmc
