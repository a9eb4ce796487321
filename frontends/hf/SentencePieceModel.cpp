//===- SentencePieceModel.cpp - tokenizer.model as tokenizer.json ---------===//

#include "frontends/hf/SentencePieceModel.h"

#include "frontends/hf/sentencepiece_model.pb.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace llmc::hf {
namespace {

namespace sp = sentencepiece;
using Piece = sp::ModelProto::SentencePiece;

llvm::Error modelError(llvm::StringRef path, const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + problem);
}

/// The merges of a BPE model: each piece split into two pieces of the
/// vocabulary, every split of a piece in the order of the halves' ids, the
/// pieces by score from the highest (ties keep piece order).
llvm::json::Array extractMerges(const sp::ModelProto &model,
                                const llvm::StringMap<int64_t> &vocab) {
  struct Merge {
    int64_t left, right;
    float score;
  };
  std::vector<Merge> merges;
  for (const Piece &piece : model.pieces()) {
    llvm::StringRef text = piece.piece();
    size_t first = merges.size();
    for (size_t split = 1; split < text.size(); ++split) {
      auto left = vocab.find(text.take_front(split));
      auto right = vocab.find(text.drop_front(split));
      if (left != vocab.end() && right != vocab.end())
        merges.push_back({left->second, right->second, piece.score()});
    }
    std::sort(merges.begin() + first, merges.end(),
              [](const Merge &a, const Merge &b) {
                return std::make_pair(a.left, a.right) <
                       std::make_pair(b.left, b.right);
              });
  }
  std::stable_sort(merges.begin(), merges.end(),
                   [](const Merge &a, const Merge &b) {
                     return a.score > b.score;
                   });
  llvm::json::Array result;
  for (const Merge &merge : merges)
    result.push_back(llvm::json::Array{model.pieces(merge.left).piece(),
                                       model.pieces(merge.right).piece()});
  return result;
}

/// The normalizer SentencePiece applies to the text before the model: its
/// precompiled map first (which may turn other spaces into " "), then the
/// space handling.
llvm::json::Object makeNormalizer(const sp::NormalizerSpec &spec) {
  llvm::json::Array steps;
  if (!spec.precompiled_charsmap().empty())
    steps.push_back(llvm::json::Object{
        {"type", "Precompiled"},
        {"precompiled_charsmap",
         llvm::encodeBase64(spec.precompiled_charsmap())}});
  auto replace = [](llvm::StringRef kind, llvm::StringRef pattern,
                    llvm::StringRef content) {
    return llvm::json::Object{
        {"type", "Replace"},
        {"pattern", llvm::json::Object{{kind, pattern}}},
        {"content", content}};
  };
  // SentencePiece trims and collapses spaces (not other whitespace).
  if (spec.remove_extra_whitespaces()) {
    steps.push_back(replace("Regex", "\\A +| +\\z", ""));
    steps.push_back(replace("Regex", " {2,}", " "));
  }
  if (spec.add_dummy_prefix())
    steps.push_back(llvm::json::Object{{"type", "Prepend"}, {"prepend", "▁"}});
  if (spec.escape_whitespaces())
    steps.push_back(replace("String", " ", "▁"));
  return llvm::json::Object{{"type", "Sequence"},
                            {"normalizers", std::move(steps)}};
}

/// The decoder of transformers' SentencePiece converters: "▁" back to
/// spaces, bytes back to text, the dummy prefix's space dropped.
llvm::json::Object makeDecoder(const sp::NormalizerSpec &spec) {
  llvm::json::Array steps;
  steps.push_back(llvm::json::Object{
      {"type", "Replace"},
      {"pattern", llvm::json::Object{{"String", "▁"}}},
      {"content", " "}});
  steps.push_back(llvm::json::Object{{"type", "ByteFallback"}});
  steps.push_back(llvm::json::Object{{"type", "Fuse"}});
  if (spec.add_dummy_prefix())
    steps.push_back(llvm::json::Object{
        {"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
  return llvm::json::Object{{"type", "Sequence"},
                            {"decoders", std::move(steps)}};
}

} // namespace

llvm::Expected<std::string> convertSentencePieceModel(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!file)
    return modelError(path, "cannot read: " + file.getError().message());
  sp::ModelProto model;
  if (!model.ParseFromArray((*file)->getBufferStart(),
                            static_cast<int>((*file)->getBufferSize())))
    return modelError(path, "not a SentencePiece model (the protobuf does "
                            "not parse)");
  if (model.pieces_size() == 0)
    return modelError(path, "the SentencePiece model has no pieces");
  const sp::NormalizerSpec &normalizer = model.normalizer_spec();
  const sp::TrainerSpec &trainer = model.trainer_spec();
  int64_t unkId = trainer.unk_id();
  if (unkId < 0 || unkId >= model.pieces_size())
    return modelError(path, "unk_id " + llvm::Twine(unkId) +
                                " is not a piece of the model");

  llvm::StringMap<int64_t> vocab;
  llvm::json::Array added;
  for (auto [id, piece] : llvm::enumerate(model.pieces())) {
    if (!vocab.try_emplace(piece.piece(), id).second)
      return modelError(path, "piece '" + piece.piece() + "' is defined "
                                                          "twice");
    if (piece.type() == Piece::CONTROL || piece.type() == Piece::UNKNOWN)
      added.push_back(llvm::json::Object{{"id", int64_t(id)},
                                         {"content", piece.piece()},
                                         {"single_word", false},
                                         {"lstrip", false},
                                         {"rstrip", false},
                                         {"normalized", false},
                                         {"special", true}});
  }

  llvm::json::Object tokenizerModel;
  if (trainer.model_type() == sp::TrainerSpec::BPE) {
    llvm::json::Object vocabObject;
    for (auto [id, piece] : llvm::enumerate(model.pieces()))
      vocabObject[piece.piece()] = int64_t(id);
    tokenizerModel = llvm::json::Object{
        {"type", "BPE"},
        {"unk_token", model.pieces(unkId).piece()},
        {"fuse_unk", true},
        {"byte_fallback", trainer.byte_fallback()},
        {"vocab", std::move(vocabObject)},
        {"merges", extractMerges(model, vocab)}};
  } else if (trainer.model_type() == sp::TrainerSpec::UNIGRAM) {
    llvm::json::Array pieces;
    for (const Piece &piece : model.pieces())
      pieces.push_back(
          llvm::json::Array{piece.piece(), double(piece.score())});
    tokenizerModel = llvm::json::Object{{"type", "Unigram"},
                                        {"unk_id", unkId},
                                        {"byte_fallback",
                                         trainer.byte_fallback()},
                                        {"vocab", std::move(pieces)}};
  } else {
    return modelError(path, "the SentencePiece model is of the word or char "
                            "type; llmc reads BPE and Unigram models");
  }

  llvm::json::Object tokenizer{{"version", "1.0"},
                               {"added_tokens", std::move(added)},
                               {"normalizer", makeNormalizer(normalizer)},
                               {"pre_tokenizer", nullptr},
                               {"post_processor", nullptr},
                               {"decoder", makeDecoder(normalizer)},
                               {"model", std::move(tokenizerModel)}};
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(tokenizer));
  return text;
}

} // namespace llmc::hf
