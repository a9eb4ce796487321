//===- GgufFuzzer.cpp - a GGUF file from a stranger -----------------------===//
//
// Feeds one input through everything the frontend does with a file: the
// parser, every metadata value, the model description and tokenizer, and
// every tensor (dequantized when quantized). An input may be rejected, but
// only with an llvm::Error that names the file; anything else (a crash, a
// sanitizer report, an unnamed error) is a finding.
//
// //fuzz:gguf runs it under libFuzzer; GgufFuzzTest (frontends/gguf/test)
// also drives it with mutations of complete models built in memory.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufSpec.h"
#include "frontends/gguf/GgufWeights.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llmc::gguf;

namespace {

constexpr llvm::StringLiteral kName = "fuzz.gguf";

/// Consumes `error`; aborts unless its message names the file.
void expectNamedError(llvm::Error error) {
  if (!error)
    return;
  std::string message = llvm::toString(std::move(error));
  if (llvm::StringRef(message).starts_with((kName + ": ").str()))
    return;
  llvm::errs() << "error without the file name: " << message << "\n";
  std::abort();
}

/// Reads every metadata value, as consumers of the file may.
void readMetadata(const GgufFile &file) {
  for (const std::string &key : file.getKeys()) {
    const Value &value = *file.lookup(key);
    (void)value.print();
    if (value.getType() == ValueType::Array && value.getArraySize() > 0) {
      (void)value.getElement(0).print();
      (void)value.getElement(value.getArraySize() - 1).print();
    }
  }
}

void readTensors(const GgufWeights &weights) {
  for (const std::string &name : weights.getTensorNames()) {
    if (weights.getStoredQuantization(name)) {
      if (llvm::Expected<llmc::plugins::StoredQuantizedTensor> stored =
              weights.getStoredQuantized(name))
        (void)stored->values.size();
      else
        expectNamedError(stored.takeError());
    }
    llvm::Expected<llmc::plugins::TensorInfo> info =
        weights.getTensorInfo(name);
    if (!info) {
      expectNamedError(info.takeError());
      continue;
    }
    if (llvm::Expected<llvm::ArrayRef<uint8_t>> data =
            weights.getTensorData(name)) {
      if (static_cast<int64_t>(data->size()) != info->getNumBytes()) {
        llvm::errs() << "tensor '" << name << "' has " << data->size()
                     << " bytes, its info says " << info->getNumBytes() << "\n";
        std::abort();
      }
    } else {
      expectNamedError(data.takeError());
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<std::unique_ptr<GgufFile>> file = GgufFile::parse(
      kName, llvm::MemoryBuffer::getMemBuffer(
                 llvm::StringRef(reinterpret_cast<const char *>(data), size),
                 kName, /*RequiresNullTerminator=*/false));
  if (!file) {
    expectNamedError(file.takeError());
    return 0;
  }
  readMetadata(**file);
  if (llvm::Expected<llmc::plugins::ModelSpec> spec = readModelSpec(**file))
    (void)spec->tokenizerJson.size();
  else
    expectNamedError(spec.takeError());
  readTensors(GgufWeights(std::move(*file)));
  return 0;
}
