//===- InspectCommand.cpp - llmc inspect: what a binary holds -------------===//
//
//   llmc inspect model.llmc [--json]
//
// Opens the binary as `llmc run` does (so a corrupt file, or one compiled
// for a chip this build lacks, is an error and exit code 1) and prints its
// chip and precision, the model's sizes, every piece (phase, IO tensors,
// stream bytes, modelled time), the weights (each blob counted once however
// many pieces share it), the tokenizer, the chat template, the generation
// defaults and the file size. --json prints the same as one JSON object.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Tokenizer.h"
#include "tools/llmc/BinaryOptions.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/InspectSummary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> inspectPath(cl::Positional, cl::Required,
                                        cl::desc("<model.llmc>"),
                                        cl::sub(getInspectCommand()));
static cl::opt<bool> json("json", cl::desc("Print one JSON object"),
                          cl::sub(getInspectCommand()));

/// `bytes` in B, KiB or MiB.
static std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  if (bytes < 1024 * 1024)
    return llvm::formatv("{0:F1} KiB", bytes / 1024.0).str();
  return llvm::formatv("{0:F1} MiB", bytes / 1048576.0).str();
}

/// "name dtype[d0,d1]" for each tensor, comma-separated.
static std::string
formatTensors(const google::protobuf::RepeatedPtrField<binary::Tensor> &list) {
  std::string text;
  for (const binary::Tensor &tensor : list) {
    if (!text.empty())
      text += ", ";
    text += tensor.name() + " " + formatTensorType(tensor);
  }
  return text;
}

static void printPieces(llvm::raw_ostream &os, const BinarySummary &summary) {
  const binary::Manifest &manifest = summary.model.getManifest();
  os << "pieces: " << manifest.pieces_size() << "\n";
  for (auto [index, piece] : llvm::enumerate(manifest.pieces())) {
    os << "  " << piece.name() << " ["
       << (piece.phase().empty() ? "no phase" : piece.phase()) << "]: stream "
       << formatBytes(summary.streamBytes[index]);
    if (piece.modelled_seconds() > 0)
      os << llvm::format(", modelled %.1f µs", piece.modelled_seconds() * 1e6);
    os << ", IO " << formatBytes(piece.io_bytes()) << ", activations "
       << formatBytes(piece.activation_bytes()) << ", " << piece.weights_size()
       << " weights\n";
    os << "    in:  " << formatTensors(piece.inputs()) << "\n";
    os << "    out: " << formatTensors(piece.outputs()) << "\n";
  }
}

static void printSummary(llvm::raw_ostream &os, const BinarySummary &summary) {
  const Model &model = summary.model;
  const binary::Manifest &manifest = model.getManifest();
  const binary::ModelInfo &info = manifest.model();
  os << model.getBinary().name() << ": " << formatBytes(summary.fileBytes)
     << " (" << summary.fileBytes << " bytes), format "
     << manifest.format_version() << ", written by "
     << manifest.compiler_version() << "\n";
  os << "chip: " << manifest.chip() << "\n";
  os << "precision: " << manifest.precision() << ", group size "
     << manifest.q_group_size()
     << (manifest.asymmetric() ? ", asymmetric" : ", symmetric") << "\n";
  os << "model: " << info.family() << ", " << info.num_layers()
     << " layers, hidden " << info.hidden_size() << ", " << info.num_heads()
     << " heads, " << info.num_kv_heads() << " KV heads, head dim "
     << info.head_dim() << ", vocabulary " << info.vocab_size() << "\n";
  os << "KV cache: " << info.seq_length() << " tokens (S), "
     << manifest.kv_cache().dtype() << "; prefill pieces take "
     << info.max_input_length() << " tokens (L)";
  if (!info.prefill_lengths().empty())
    os << ", shorter chunks "
       << llvm::join(llvm::map_range(info.prefill_lengths(),
                                     [](int64_t length) {
                                       return std::to_string(length);
                                     }),
                     ", ");
  os << "\n";
  if (!info.layer_windows().empty())
    os << "attention: sliding windows per layer (0: whole context) "
       << llvm::join(llvm::map_range(info.layer_windows(),
                                     [](int64_t window) {
                                       return std::to_string(window);
                                     }),
                     ", ")
       << "\n";
  if (manifest.has_vision()) {
    const binary::VisionInfo &vision = manifest.vision();
    os << "vision: " << vision.preprocessing() << " tiles of "
       << vision.tile_size() << " px, " << vision.min_tiles() << " to "
       << vision.max_tiles() << " an image"
       << (vision.thumbnail() ? " plus a thumbnail" : "") << ", "
       << vision.tokens_per_tile() << " embeddings a tile at "
       << vision.placeholder() << "\n";
  }
  printPieces(os, summary);
  if (summary.decodeSeconds > 0)
    os << llvm::format("modelled on %s: decode %.3f ms/token (%.1f tokens/s), "
                       "prefill of %lld tokens %.3f ms\n",
                       manifest.chip().c_str(), summary.decodeSeconds * 1e3,
                       1 / summary.decodeSeconds,
                       static_cast<long long>(info.max_input_length()),
                       summary.prefillSeconds * 1e3);
  else
    os << "modelled time: none (" << manifest.chip()
       << " has no time model; `llmc run` measures it)\n";
  os << "weights: " << manifest.weights_size() << " blobs, "
     << formatBytes(summary.weightBytes) << " (each counted once; pieces refer "
     << "to them " << summary.weightReferences << " times), COEFF section "
     << formatBytes(manifest.coeff_bytes()) << "\n";
  if (const tokenizer::Tokenizer *tokenizer = model.getTokenizer())
    os << "tokenizer: yes, vocabulary " << tokenizer->vocabSize() << "\n";
  else
    os << "tokenizer: none (generate from token ids only)\n";
  const chat::ChatTemplate &chat = model.getChatTemplate();
  if (chat.getJinja())
    os << "chat template: the binary's Jinja chat_template (stop strings of "
       << chat::stringifyChatFormat(chat.getFormat()) << ")";
  else
    os << "chat template: " << chat::stringifyChatFormat(chat.getFormat())
       << (manifest.chat_template().empty()
               ? " (from the model family; the binary holds no chat_template)"
               : " (the binary's chat_template is not used: " +
                     model.getChatTemplateProblem().str() + ")");
  if (!chat.getDefaultSystemPrompt().empty())
    os << ", default system message \"" << chat.getDefaultSystemPrompt()
       << "\"";
  os << "\n";
  const binary::GenerationDefaults &generation = manifest.generation();
  os << "generation defaults: stop tokens";
  for (int32_t id : generation.stop_token_ids()) {
    os << " " << id;
    if (model.getTokenizer())
      os << " " << model.getTokenizer()->idToToken(id);
  }
  os << llvm::format(", BOS %d, temperature %g, top-p %g, top-k %lld, "
                     "repetition penalty %g, at most %lld new tokens\n",
                     generation.bos_token_id(), generation.temperature(),
                     generation.top_p(),
                     static_cast<long long>(generation.top_k()),
                     generation.repetition_penalty(),
                     static_cast<long long>(generation.max_new_tokens()));
}

int runInspectCommand() {
  llvm::Expected<std::unique_ptr<Model>> model =
      loadBinaryModel(inspectPath);
  if (!model)
    return reportError(model.takeError());
  llvm::Expected<BinarySummary> summary = summarizeBinary(**model);
  if (!summary)
    return reportError(summary.takeError());
  if (json)
    llvm::outs() << llvm::formatv("{0:2}", summaryToJson(*summary)) << "\n";
  else
    printSummary(llvm::outs(), *summary);
  return 0;
}

} // namespace llmc
