//===- WriteFuzzSeeds.cpp - the GGUF fuzz target's seed corpus -----------===//
//
//   write_fuzz_seeds OUT_DIR REFDATA_DIR
//
// Writes complete GGUF files for fuzz/corpus/gguf (fuzz/make_seeds.sh runs
// it): the reference models' files with their metadata as is and every
// tensor cut to one block of its type (real converter output, small enough
// to mutate often), one tensor of every type the frontend reads, and small
// complete models of three families built here.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufFile.h"
#include "frontends/gguf/test/GgufBuilder.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace llmc::gguf;
using namespace llmc::gguf::test;

namespace {

std::string pattern(size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<char>(i * 73 + 41);
  return bytes;
}

/// One tensor of every type the frontend reads, one it rejects (iq4_nl), and
/// one of no dimensions.
std::string buildTensorZoo() {
  struct Entry {
    uint32_t type;
    uint64_t rowLength, rowBytes;
  };
  const Entry entries[] = {
      {/*F32=*/0, 16, 64},     {/*F16=*/1, 16, 32},   {/*BF16=*/30, 16, 32},
      {/*I8=*/24, 16, 16},     {/*I32=*/26, 16, 64},  {/*Q4_0=*/2, 64, 36},
      {/*Q4_1=*/3, 64, 40},    {/*Q5_0=*/6, 64, 44},  {/*Q5_1=*/7, 64, 48},
      {/*Q8_0=*/8, 64, 68},    {/*Q4_K=*/12, 256, 144},
      {/*Q5_K=*/13, 256, 176}, {/*Q6_K=*/14, 256, 210},
      {/*IQ4_NL=*/20, 64, 36}};
  GgufBuilder builder;
  for (const Entry &entry : entries)
    builder.addTensor("t" + std::to_string(entry.type), entry.type,
                      {entry.rowLength, 2}, pattern(2 * entry.rowBytes));
  builder.addTensor("scalar", 0, {}, pattern(4));
  return builder.build();
}

/// A complete model: hidden 32, 2 layers, 2 heads of 16, one KV head, FFN
/// 64, 4 tokens; matrices of ggml type `matrixType` (`blockBytes` bytes per
/// 32 elements), vectors F32.
std::string buildTinyModel(llvm::StringRef arch, uint32_t matrixType,
                           uint64_t blockBytes) {
  std::string prefix = arch.str() + ".";
  GgufBuilder builder;
  builder.addString("general.architecture", arch)
      .addU32(prefix + "block_count", 2)
      .addU32(prefix + "embedding_length", 32)
      .addU32(prefix + "feed_forward_length", 64)
      .addU32(prefix + "attention.head_count", 2)
      .addU32(prefix + "attention.head_count_kv", 1)
      .addU32(prefix + "context_length", 64)
      .addF32(prefix + "attention.layer_norm_rms_epsilon", 1e-6f)
      .addString("tokenizer.chat_template", "{{ messages }}")
      .addStrings("tokenizer.ggml.tokens", {"<s>", "a", "b", "ab"})
      .addI32s("tokenizer.ggml.token_type", {3, 1, 1, 1})
      .addU32("tokenizer.ggml.bos_token_id", 0);
  if (arch == "llama")
    builder.addString("tokenizer.ggml.model", "llama")
        .addF32s("tokenizer.ggml.scores", {0, -1e6f, -1e6f, -1});
  else
    builder.addString("tokenizer.ggml.model", "gpt2")
        .addString("tokenizer.ggml.pre", "qwen2")
        .addStrings("tokenizer.ggml.merges", {"a b"});
  auto matrix = [&](const std::string &name, uint64_t in, uint64_t out) {
    builder.addTensor(name, matrixType, {in, out},
                      pattern(in / 32 * blockBytes * out));
  };
  auto vector = [&](const std::string &name, uint64_t size) {
    builder.addF32Tensor(name, {size}, std::vector<float>(size, 1.0f));
  };
  matrix("token_embd.weight", 32, 4);
  vector("output_norm.weight", 32);
  for (int layer = 0; layer < 2; ++layer) {
    std::string blk = "blk." + std::to_string(layer) + ".";
    vector(blk + "attn_norm.weight", 32);
    matrix(blk + "attn_q.weight", 32, 32);
    matrix(blk + "attn_k.weight", 32, 16);
    matrix(blk + "attn_v.weight", 32, 16);
    matrix(blk + "attn_output.weight", 32, 32);
    if (arch == "qwen2")
      for (const char *bias : {"attn_q.bias", "attn_k.bias", "attn_v.bias"})
        vector(blk + bias, bias[5] == 'q' ? 32 : 16);
    if (arch == "qwen3")
      for (const char *norm : {"attn_q_norm.weight", "attn_k_norm.weight"})
        vector(blk + norm, 16);
    vector(blk + "ffn_norm.weight", 32);
    matrix(blk + "ffn_gate.weight", 32, 64);
    matrix(blk + "ffn_up.weight", 32, 64);
    matrix(blk + "ffn_down.weight", 64, 32);
  }
  return builder.build();
}

/// The stored payload of `value` (without its type id).
std::string encodeValue(const Value &value) {
  ValueType type = value.getType();
  if (type == ValueType::String)
    return encodeString(*value.getAsString());
  if (type == ValueType::Array) {
    std::string elements;
    for (uint64_t i = 0; i < value.getArraySize(); ++i)
      elements += encodeValue(value.getElement(i));
    return encodeArray(static_cast<uint32_t>(value.getElementType()),
                       value.getArraySize(), elements);
  }
  if (type == ValueType::F32)
    return encodeF32(static_cast<float>(*value.getAsFloat()));
  if (type == ValueType::F64) {
    double number = *value.getAsFloat();
    uint64_t bits;
    std::memcpy(&bits, &number, sizeof(bits));
    return encodeU64(bits);
  }
  uint64_t bits = type == ValueType::Bool
                      ? *value.getAsBool()
                      : static_cast<uint64_t>(value.getAsInteger().value_or(-1));
  return encodeU64(bits).substr(0, getScalarSize(type));
}

/// The reference files with their metadata as is and every tensor cut to
/// one block of its type: real converter output, small enough to run often.
llvm::Error addReferenceSeeds(llvm::StringRef refdata,
                               std::vector<std::pair<std::string, std::string>> &seeds) {
  for (const char *model : {"tiny-llama", "tiny-qwen2", "tiny-qwen3"})
    for (const char *type : {"f32", "f16", "q8_0", "q4_0"}) {
      llvm::Expected<std::unique_ptr<GgufFile>> file =
          GgufFile::open((refdata + "/models/" + model + "/model-" + type +
                          ".gguf")
                             .str());
      if (!file)
        return file.takeError();
      GgufBuilder builder;
      for (const std::string &key : (*file)->getKeys()) {
        const Value &value = *(*file)->lookup(key);
        builder.addRaw(key, static_cast<uint32_t>(value.getType()),
                       encodeValue(value));
      }
      for (const TensorEntry &tensor : (*file)->getTensors()) {
        const GgmlTypeTraits &traits = getGgmlTypeTraits(tensor.type);
        builder.addTensor(tensor.name, static_cast<uint32_t>(tensor.type),
                          {static_cast<uint64_t>(traits.blockSize)},
                          pattern(traits.blockBytes));
      }
      seeds.push_back({std::string(model) + "-" + type + "-blocks.gguf",
                       builder.build()});
    }
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: write_fuzz_seeds OUT_DIR REFDATA_DIR\n";
    return 1;
  }
  std::vector<std::pair<std::string, std::string>> seeds;
  if (llvm::Error error = addReferenceSeeds(argv[2], seeds)) {
    llvm::errs() << "write_fuzz_seeds: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  seeds.push_back({"tensor-zoo.gguf", buildTensorZoo()});
  seeds.push_back({"tiny-llama-q8_0.gguf", buildTinyModel("llama", 8, 34)});
  seeds.push_back({"tiny-qwen2-q4_0.gguf", buildTinyModel("qwen2", 2, 18)});
  seeds.push_back({"tiny-qwen3-f16.gguf", buildTinyModel("qwen3", 1, 64)});
  for (const auto &[name, bytes] : seeds) {
    std::string path = std::string(argv[1]) + "/" + name;
    std::error_code error;
    llvm::raw_fd_ostream file(path, error, llvm::sys::fs::OF_None);
    if (error) {
      llvm::errs() << path << ": cannot write: " << error.message() << "\n";
      return 1;
    }
    file << bytes;
  }
  return 0;
}
