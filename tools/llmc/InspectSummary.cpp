//===- InspectSummary.cpp - the figures llmc inspect reports --------------===//

#include "tools/llmc/InspectSummary.h"

#include "pieces/ChunkLengths.h"
#include "runtime/tokenizer/Tokenizer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

namespace llmc {

llvm::Expected<BinarySummary> summarizeBinary(const Model &model) {
  const binary::LoadedBinary &binary = model.getBinary();
  BinarySummary summary{model};
  if (std::error_code error =
          llvm::sys::fs::file_size(binary.name(), summary.fileBytes))
    return llvm::createStringError(error, "%s: cannot read its size: %s",
                                   binary.name().c_str(),
                                   error.message().c_str());
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

std::string formatTensorType(const binary::Tensor &tensor) {
  return tensor.dtype() + "[" +
         llvm::join(
             llvm::map_range(tensor.shape(),
                             [](int64_t dim) { return std::to_string(dim); }),
             ",") +
         "]";
}

static llvm::json::Array
tensorsToJson(const google::protobuf::RepeatedPtrField<binary::Tensor> &list) {
  llvm::json::Array tensors;
  for (const binary::Tensor &tensor : list) {
    llvm::json::Array shape;
    for (int64_t dim : tensor.shape())
      shape.push_back(dim);
    tensors.push_back(
        llvm::json::Object{{"name", tensor.name()},
                           {"role", tensor.role()},
                           {"dtype", tensor.dtype()},
                           {"shape", std::move(shape)},
                           {"bytes", static_cast<int64_t>(tensor.bytes())}});
  }
  return tensors;
}

static llvm::json::Array piecesToJson(const BinarySummary &summary) {
  llvm::json::Array pieces;
  for (auto [index, piece] :
       llvm::enumerate(summary.model.getManifest().pieces()))
    pieces.push_back(llvm::json::Object{
        {"name", piece.name()},
        {"phase", piece.phase()},
        {"layer", piece.layer()},
        {"inputs", tensorsToJson(piece.inputs())},
        {"outputs", tensorsToJson(piece.outputs())},
        {"io_bytes", static_cast<int64_t>(piece.io_bytes())},
        {"activation_bytes", static_cast<int64_t>(piece.activation_bytes())},
        {"stream_bytes", static_cast<int64_t>(summary.streamBytes[index])},
        {"modelled_us", piece.modelled_seconds() * 1e6},
        {"weights", piece.weights_size()}});
  return pieces;
}

static llvm::json::Object generationToJson(const Model &model) {
  const binary::GenerationDefaults &generation =
      model.getManifest().generation();
  llvm::json::Array stopTokens;
  for (int32_t id : generation.stop_token_ids())
    stopTokens.push_back(id);
  return llvm::json::Object{
      {"stop_token_ids", std::move(stopTokens)},
      {"bos_token_id", generation.bos_token_id()},
      {"temperature", generation.temperature()},
      {"top_p", generation.top_p()},
      {"top_k", generation.top_k()},
      {"repetition_penalty", generation.repetition_penalty()},
      {"max_new_tokens", generation.max_new_tokens()}};
}

llvm::json::Value summaryToJson(const BinarySummary &summary) {
  const Model &model = summary.model;
  const binary::Manifest &manifest = model.getManifest();
  const binary::ModelInfo &info = manifest.model();
  const tokenizer::Tokenizer *tokenizer = model.getTokenizer();
  const chat::ChatTemplate &chat = model.getChatTemplate();
  return llvm::json::Object{
      {"file", model.getBinary().name()},
      {"file_bytes", static_cast<int64_t>(summary.fileBytes)},
      {"format_version", static_cast<int64_t>(manifest.format_version())},
      {"compiler_version", manifest.compiler_version()},
      {"chip", manifest.chip()},
      {"precision", manifest.precision()},
      {"q_group_size", manifest.q_group_size()},
      {"asymmetric", manifest.asymmetric()},
      {"model",
       llvm::json::Object{{"family", info.family()},
                          {"num_layers", info.num_layers()},
                          {"hidden_size", info.hidden_size()},
                          {"vocab_size", info.vocab_size()},
                          {"num_heads", info.num_heads()},
                          {"num_kv_heads", info.num_kv_heads()},
                          {"head_dim", info.head_dim()},
                          {"seq_length", info.seq_length()},
                          {"max_input_length", info.max_input_length()},
                          {"prefill_lengths",
                           llvm::json::Array(info.prefill_lengths())},
                          {"layer_windows",
                           llvm::json::Array(info.layer_windows())}}},
      {"kv_cache", llvm::json::Object{{"dtype", manifest.kv_cache().dtype()},
                                      {"slots", manifest.kv_cache().slots()}}},
      {"pieces", piecesToJson(summary)},
      {"weights",
       llvm::json::Object{
           {"count", manifest.weights_size()},
           {"bytes", static_cast<int64_t>(summary.weightBytes)},
           {"references", summary.weightReferences},
           {"coeff_bytes", static_cast<int64_t>(manifest.coeff_bytes())}}},
      {"modelled",
       llvm::json::Object{{"decode_seconds", summary.decodeSeconds},
                          {"prefill_seconds", summary.prefillSeconds}}},
      {"tokenizer",
       llvm::json::Object{
           {"present", tokenizer != nullptr},
           {"vocab_size", tokenizer ? llvm::json::Value(tokenizer->vocabSize())
                                    : llvm::json::Value(nullptr)}}},
      {"chat_template",
       llvm::json::Object{
           {"format", chat::stringifyChatFormat(chat.getFormat())},
           {"default_system_prompt", chat.getDefaultSystemPrompt()},
           {"in_binary", !manifest.chat_template().empty()},
           {"jinja", chat.getJinja().has_value()},
           {"problem", model.getChatTemplateProblem()}}},
      {"generation", generationToJson(model)},
      {"vision", manifest.has_vision()
                     ? llvm::json::Value(llvm::json::Object{
                           {"preprocessing", manifest.vision().preprocessing()},
                           {"tile_size", manifest.vision().tile_size()},
                           {"min_tiles", manifest.vision().min_tiles()},
                           {"max_tiles", manifest.vision().max_tiles()},
                           {"thumbnail", manifest.vision().thumbnail()},
                           {"tokens_per_tile",
                            manifest.vision().tokens_per_tile()},
                           {"placeholder", manifest.vision().placeholder()}})
                     : llvm::json::Value(nullptr)}};
}

} // namespace llmc
