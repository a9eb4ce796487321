//===- BinaryMerge.cpp - binaries of some pieces into one -----------------===//

#include "backends/common/compile/BinaryMerge.h"

#include "backends/common/cmodel/StreamBuilder.h"
#include "backends/common/compile/StreamRelocation.h"
#include "runtime/format/BinaryReader.h"
#include "runtime/format/BinaryWriter.h"
#include "support/LlvmStatus.h"

#include "llvm/ADT/StringSet.h"

#include <google/protobuf/util/message_differencer.h>

namespace llmc::compile {
namespace {

llvm::Error inputError(const binary::LoadedBinary &input,
                       const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::Twine(input.name()) + ": " + message);
}

/// What every input must share: the manifest without its pieces and
/// weights.
binary::Manifest getSharedPart(const binary::Manifest &manifest) {
  binary::Manifest shared = manifest;
  shared.clear_pieces();
  shared.clear_weights();
  shared.clear_coeff_bytes();
  return shared;
}

class BinaryMerger {
public:
  llvm::Error add(const binary::LoadedBinary &input);
  llvm::Error write(llvm::StringRef path) const {
    return support::toLlvmError(writer.write(path.str()));
  }
  MergeReport getReport() const {
    return {writer.manifest().pieces_size(), writer.coeffBytes()};
  }

private:
  llvm::Error checkShared(const binary::LoadedBinary &input) const;
  /// Adds the weights `piece` reads and returns where they moved.
  llvm::Expected<std::vector<CoeffMove>>
  addWeights(const binary::LoadedBinary &input, const binary::Piece &piece);

  binary::BinaryWriter writer;
  /// The input the shared part came from, for messages.
  std::string first;
  std::string tokenizer;
  llvm::StringSet<> pieceNames;
};

llvm::Error BinaryMerger::checkShared(const binary::LoadedBinary &input) const {
  google::protobuf::util::MessageDifferencer differencer;
  std::string differences;
  differencer.ReportDifferencesToString(&differences);
  if (!differencer.Compare(getSharedPart(writer.manifest()),
                           getSharedPart(input.manifest())))
    return inputError(input, "compiled with other options or from another "
                             "model than '" +
                                 first + "':\n" + differences);
  if (input.tokenizerJson() != tokenizer)
    return inputError(input, "holds another tokenizer than '" + first + "'");
  return llvm::Error::success();
}

llvm::Expected<std::vector<CoeffMove>>
BinaryMerger::addWeights(const binary::LoadedBinary &input,
                         const binary::Piece &piece) {
  llvm::StringMap<const binary::WeightBlob *> blobs;
  for (const binary::WeightBlob &blob : input.manifest().weights())
    blobs[blob.name()] = &blob;
  std::vector<CoeffMove> moves;
  for (const std::string &name : piece.weights()) {
    const binary::WeightBlob &blob = *blobs.lookup(name);
    absl::StatusOr<uint64_t> offset = writer.addWeight(
        name, input.coeff().subspan(blob.offset(), blob.bytes()), blob.dtype(),
        llvm::ArrayRef<int64_t>(blob.shape().data(), blob.shape().size()));
    if (!offset.ok())
      return inputError(input, std::string(offset.status().message()));
    moves.push_back({blob.offset(), blob.offset() + blob.bytes(),
                     static_cast<int64_t>(*offset) -
                         static_cast<int64_t>(blob.offset())});
  }
  return moves;
}

llvm::Error BinaryMerger::add(const binary::LoadedBinary &input) {
  if (first.empty()) {
    first = input.name();
    writer.manifest() = getSharedPart(input.manifest());
    tokenizer = std::string(input.tokenizerJson());
    if (!tokenizer.empty())
      writer.setTokenizerJson(tokenizer);
  } else if (llvm::Error error = checkShared(input)) {
    return error;
  }
  for (const binary::Piece &inputPiece : input.manifest().pieces()) {
    if (!pieceNames.insert(inputPiece.name()).second)
      return inputError(input, "piece '" + inputPiece.name() +
                                   "' is in an earlier input too");
    llvm::Expected<std::vector<CoeffMove>> moves =
        addWeights(input, inputPiece);
    if (!moves)
      return moves.takeError();
    llvm::Expected<std::string_view> bytes =
        support::toExpected(input.streamBytes(inputPiece.stream_section()));
    if (!bytes)
      return bytes.takeError();
    llvm::Expected<cmd::CommandStream> stream =
        support::toExpected(cmodel::parseStream(*bytes));
    if (!stream)
      return inputError(input, "piece '" + inputPiece.name() + "': " +
                                   llvm::toString(stream.takeError()));
    binary::Piece &piece = *writer.manifest().add_pieces();
    piece = inputPiece;
    piece.set_stream_section(writer.addStream(
        cmodel::serializeStream(relocateCoeff(*stream, std::move(*moves)))));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<MergeReport> mergeBinaries(llvm::ArrayRef<std::string> inputs,
                                          llvm::StringRef outputPath) {
  if (inputs.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "nothing to merge: no input binaries");
  BinaryMerger merger;
  for (const std::string &path : inputs) {
    llvm::Expected<std::unique_ptr<binary::LoadedBinary>> input =
        support::toExpected(binary::LoadedBinary::open(path));
    if (!input)
      return input.takeError();
    if (llvm::Error error = merger.add(**input))
      return std::move(error);
  }
  if (llvm::Error error = merger.write(outputPath))
    return std::move(error);
  return merger.getReport();
}

} // namespace llmc::compile
