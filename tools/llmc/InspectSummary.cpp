//===- InspectSummary.cpp - the figures llmc inspect reports --------------===//

#include "tools/llmc/InspectSummary.h"

#include "pieces/ChunkLengths.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "support/Strings.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace llmc {

using nlohmann::json;

absl::StatusOr<BinarySummary> summarizeBinary(const Model &model) {
  const binary::LoadedBinary &binary = model.getBinary();
  BinarySummary summary{model};
  std::string path(binary.name());
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return absl::NotFoundError(support::strCat(
        path, ": cannot read its size: ", std::strerror(errno)));
  summary.fileBytes = static_cast<uint64_t>(info.st_size);
  const binary::Manifest &manifest = binary.manifest();
  for (const binary::WeightBlob &blob : manifest.weights())
    summary.weightBytes += blob.bytes();
  for (const binary::Piece &piece : manifest.pieces()) {
    // The reader checked that every stream_section is a STREAM section.
    summary.streamBytes.push_back(
        binary.sections()[piece.stream_section()].size);
    summary.weightReferences += piece.weights_size();
    bool head = piece.name() == "lm_head" || piece.name() == "greedy_head";
    if (piece.phase() == "decode" || piece.name() == "embed.decode" || head)
      summary.decodeSeconds += piece.modelled_seconds();
    // A prefill of L tokens: the shorter chunks' pieces are not part of it.
    if ((piece.phase() == "prefill" &&
         !pieces::getChunkLengthOfName(piece.name())) ||
        piece.name() == "embed.prefill" || head)
      summary.prefillSeconds += piece.modelled_seconds();
  }
  return summary;
}

/// A JSON array of the integers of a repeated field.
template <typename Integers> static json integersToJson(const Integers &list) {
  json array = json::array();
  for (int64_t value : list)
    array.push_back(value);
  return array;
}

std::string formatTensorType(const binary::Tensor &tensor) {
  return tensor.dtype() + "[" + joinIntegers(tensor.shape(), ",") + "]";
}

static json
tensorsToJson(const google::protobuf::RepeatedPtrField<binary::Tensor> &list) {
  json tensors = json::array();
  for (const binary::Tensor &tensor : list)
    tensors.push_back({{"name", tensor.name()},
                       {"role", tensor.role()},
                       {"dtype", tensor.dtype()},
                       {"shape", integersToJson(tensor.shape())},
                       {"bytes", static_cast<int64_t>(tensor.bytes())}});
  return tensors;
}

static json piecesToJson(const BinarySummary &summary) {
  json pieces = json::array();
  const binary::Manifest &manifest = summary.model.getManifest();
  for (int index = 0; index < manifest.pieces_size(); ++index) {
    const binary::Piece &piece = manifest.pieces(index);
    pieces.push_back(
        {{"name", piece.name()},
         {"phase", piece.phase()},
         {"layer", piece.layer()},
         {"inputs", tensorsToJson(piece.inputs())},
         {"outputs", tensorsToJson(piece.outputs())},
         {"io_bytes", static_cast<int64_t>(piece.io_bytes())},
         {"activation_bytes", static_cast<int64_t>(piece.activation_bytes())},
         {"stream_bytes", static_cast<int64_t>(summary.streamBytes[index])},
         {"modelled_us", piece.modelled_seconds() * 1e6},
         {"weights", piece.weights_size()}});
  }
  return pieces;
}

static json generationToJson(const Model &model) {
  const binary::GenerationDefaults &generation =
      model.getManifest().generation();
  return {{"stop_token_ids", integersToJson(generation.stop_token_ids())},
          {"bos_token_id", generation.bos_token_id()},
          {"temperature", generation.temperature()},
          {"top_p", generation.top_p()},
          {"top_k", generation.top_k()},
          {"repetition_penalty", generation.repetition_penalty()},
          {"max_new_tokens", generation.max_new_tokens()}};
}

json summaryToJson(const BinarySummary &summary) {
  const Model &model = summary.model;
  const binary::Manifest &manifest = model.getManifest();
  const binary::ModelInfo &info = manifest.model();
  const tokenizer::Tokenizer *tokenizer = model.getTokenizer();
  const chat::ChatTemplate &chat = model.getChatTemplate();
  json vision = nullptr;
  if (manifest.has_vision())
    vision = {{"preprocessing", manifest.vision().preprocessing()},
              {"tile_size", manifest.vision().tile_size()},
              {"min_tiles", manifest.vision().min_tiles()},
              {"max_tiles", manifest.vision().max_tiles()},
              {"thumbnail", manifest.vision().thumbnail()},
              {"tokens_per_tile", manifest.vision().tokens_per_tile()},
              {"placeholder", manifest.vision().placeholder()}};
  return {
      {"file", std::string(model.getBinary().name())},
      {"file_bytes", static_cast<int64_t>(summary.fileBytes)},
      {"format_version", static_cast<int64_t>(manifest.format_version())},
      {"compiler_version", manifest.compiler_version()},
      {"chip", manifest.chip()},
      {"precision", manifest.precision()},
      {"q_group_size", manifest.q_group_size()},
      {"asymmetric", manifest.asymmetric()},
      {"model",
       {{"family", info.family()},
        {"num_layers", info.num_layers()},
        {"hidden_size", info.hidden_size()},
        {"vocab_size", info.vocab_size()},
        {"num_heads", info.num_heads()},
        {"num_kv_heads", info.num_kv_heads()},
        {"head_dim", info.head_dim()},
        {"seq_length", info.seq_length()},
        {"max_input_length", info.max_input_length()},
        {"prefill_lengths", integersToJson(info.prefill_lengths())},
        {"layer_windows", integersToJson(info.layer_windows())}}},
      {"kv_cache",
       {{"dtype", manifest.kv_cache().dtype()},
        {"slots", manifest.kv_cache().slots()}}},
      {"pieces", piecesToJson(summary)},
      {"weights",
       {{"count", manifest.weights_size()},
        {"bytes", static_cast<int64_t>(summary.weightBytes)},
        {"references", summary.weightReferences},
        {"coeff_bytes", static_cast<int64_t>(manifest.coeff_bytes())}}},
      {"modelled",
       {{"decode_seconds", summary.decodeSeconds},
        {"prefill_seconds", summary.prefillSeconds}}},
      {"tokenizer",
       {{"present", tokenizer != nullptr},
        {"vocab_size", tokenizer ? json(tokenizer->vocabSize()) : json()}}},
      {"chat_template",
       {{"format", std::string(chat::stringifyChatFormat(chat.getFormat()))},
        {"default_system_prompt", std::string(chat.getDefaultSystemPrompt())},
        {"in_binary", !manifest.chat_template().empty()},
        {"jinja", chat.getJinja().has_value()},
        {"problem", std::string(model.getChatTemplateProblem())}}},
      {"generation", generationToJson(model)},
      {"vision", std::move(vision)}};
}

} // namespace llmc
