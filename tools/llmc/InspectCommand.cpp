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
#include "support/Strings.h"
#include "tools/llmc/BinaryOptions.h"
#include "tools/llmc/CommandSupport.h"
#include "tools/llmc/InspectSummary.h"
#include "tools/llmc/RuntimeCommands.h"

#include "absl/strings/str_format.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace llmc {

namespace {
struct InspectOptions {
  /// The binary, the one positional argument.
  std::string path;
  /// --json.
  bool json = false;
};
} // namespace

/// `bytes` in B, KiB or MiB.
static std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  if (bytes < 1024 * 1024)
    return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  return absl::StrFormat("%.1f MiB", bytes / 1048576.0);
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

static void printPieces(std::ostream &os, const BinarySummary &summary) {
  const binary::Manifest &manifest = summary.model.getManifest();
  os << "pieces: " << manifest.pieces_size() << "\n";
  for (int index = 0; index < manifest.pieces_size(); ++index) {
    const binary::Piece &piece = manifest.pieces(index);
    os << "  " << piece.name() << " ["
       << (piece.phase().empty() ? "no phase" : piece.phase()) << "]: stream "
       << formatBytes(summary.streamBytes[index]);
    if (piece.modelled_seconds() > 0)
      os << absl::StrFormat(", modelled %.1f µs",
                            piece.modelled_seconds() * 1e6);
    os << ", IO " << formatBytes(piece.io_bytes()) << ", activations "
       << formatBytes(piece.activation_bytes()) << ", " << piece.weights_size()
       << " weights\n";
    os << "    in:  " << formatTensors(piece.inputs()) << "\n";
    os << "    out: " << formatTensors(piece.outputs()) << "\n";
  }
}

static void printSummary(std::ostream &os, const BinarySummary &summary) {
  const Model &model = summary.model;
  const binary::Manifest &manifest = model.getManifest();
  const binary::ModelInfo &info = manifest.model();
  os << std::string_view(model.getBinary().name()) << ": "
     << formatBytes(summary.fileBytes) << " (" << summary.fileBytes
     << " bytes), format " << manifest.format_version() << ", written by "
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
    os << ", shorter chunks " << joinIntegers(info.prefill_lengths(), ", ");
  os << "\n";
  if (!info.layer_windows().empty())
    os << "attention: sliding windows per layer (0: whole context) "
       << joinIntegers(info.layer_windows(), ", ") << "\n";
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
    os << absl::StrFormat(
        "modelled on %s: decode %.3f ms/token (%.1f tokens/s), prefill of "
        "%d tokens %.3f ms\n",
        manifest.chip(), summary.decodeSeconds * 1e3, 1 / summary.decodeSeconds,
        info.max_input_length(), summary.prefillSeconds * 1e3);
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
       << std::string_view(chat::stringifyChatFormat(chat.getFormat())) << ")";
  else
    os << "chat template: "
       << std::string_view(chat::stringifyChatFormat(chat.getFormat()))
       << (manifest.chat_template().empty()
               ? " (from the model family; the binary holds no chat_template)"
               : support::strCat(
                     " (the binary's chat_template is not used: ",
                     std::string_view(model.getChatTemplateProblem()), ")"));
  if (!chat.getDefaultSystemPrompt().empty())
    os << ", default system message \""
       << std::string_view(chat.getDefaultSystemPrompt()) << "\"";
  os << "\n";
  const binary::GenerationDefaults &generation = manifest.generation();
  os << "generation defaults: stop tokens";
  for (int32_t id : generation.stop_token_ids()) {
    os << " " << id;
    if (model.getTokenizer())
      os << " " << model.getTokenizer()->idToToken(id);
  }
  os << absl::StrFormat(", BOS %d, temperature %g, top-p %g, top-k %d, "
                        "repetition penalty %g, at most %d new tokens\n",
                        generation.bos_token_id(), generation.temperature(),
                        generation.top_p(), generation.top_k(),
                        generation.repetition_penalty(),
                        generation.max_new_tokens());
}

static int runInspect(const InspectOptions &options) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      loadBinaryModel(options.path, /*threads=*/0);
  if (!model.ok())
    return reportError(model.status());
  absl::StatusOr<BinarySummary> summary = summarizeBinary(**model);
  if (!summary.ok())
    return reportError(summary.status());
  if (options.json)
    // A binary's names may hold any bytes: invalid UTF-8 prints as U+FFFD.
    std::cout << summaryToJson(*summary).dump(
                     2, ' ', /*ensure_ascii=*/false,
                     nlohmann::json::error_handler_t::replace)
              << "\n";
  else
    printSummary(std::cout, *summary);
  return 0;
}

CommandAction addInspectCommand(CLI::App &command) {
  auto options = std::make_shared<InspectOptions>();
  command.add_option("model", options->path, "The compiled binary")
      ->type_name("<model.llmc>")
      ->required();
  command.add_flag("--json", options->json, "Print one JSON object");
  return [options] { return runInspect(*options); };
}

} // namespace llmc
