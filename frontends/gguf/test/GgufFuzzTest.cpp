//===- GgufFuzzTest.cpp - drives the GGUF fuzz target without libFuzzer ---===//
//
// Debian's gcc has no libFuzzer, so this test drives LLVMFuzzerTestOneInput
// itself: seeded mutations (bit flips, interesting integers over header
// fields, truncation, chunk copies and deletions) of the reference GGUF
// files' headers and of small complete models built here, for a bounded number of
// iterations and seconds. The binary is compiled with AddressSanitizer and
// UndefinedBehaviorSanitizer, and each input sits in a buffer of exactly its
// size, so a read past the end is a finding too.
//
// The inputs depend only on the seed, so a failure reproduces with the same
// LLMC_FUZZ_SEED; the input that failed is written to crash.gguf in the
// test's undeclared outputs. LLMC_FUZZ_ITERATIONS and LLMC_FUZZ_SECONDS
// lengthen a local run.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufFile.h"
#include "frontends/gguf/test/GgufBuilder.h"
#include "tests/TestData.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <fcntl.h>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Every sanitizer finding aborts, so the handler below saves the input. Leak
// checking needs ptrace, which test sandboxes may deny.
extern "C" const char *__asan_default_options() {
  return "abort_on_error=1:detect_leaks=0";
}
extern "C" const char *__ubsan_default_options() {
  return "halt_on_error=1:abort_on_error=1:print_stacktrace=1";
}

using namespace llmc::gguf;
using namespace llmc::gguf::test;

namespace {

int64_t getEnvInt(const char *name, int64_t fallback) {
  const char *text = std::getenv(name);
  return text ? std::strtoll(text, nullptr, 10) : fallback;
}

//===----------------------------------------------------------------------===//
// Seeds
//===----------------------------------------------------------------------===//

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
std::vector<std::string> loadReferenceSeeds() {
  std::vector<std::string> seeds;
  for (const char *model : {"tiny-llama", "tiny-qwen2", "tiny-qwen3"})
    for (const char *type : {"f32", "f16", "q8_0", "q4_0"}) {
      llvm::Expected<std::unique_ptr<GgufFile>> file =
          GgufFile::open(llmc::test::getRefdataPath(
              std::string("models/") + model + "/model-" + type + ".gguf"));
      if (!file) {
        ADD_FAILURE() << llvm::toString(file.takeError());
        continue;
      }
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
      seeds.push_back(builder.build());
    }
  return seeds;
}

//===----------------------------------------------------------------------===//
// Mutation and crash capture
//===----------------------------------------------------------------------===//

/// Values that stress size and type fields.
constexpr uint64_t kInteresting[] = {0,          1,          2,
                                     4,          9,          13,
                                     31,         32,         33,
                                     255,        0x7fffffff, 0x80000000,
                                     0xffffffff, 1ull << 32, 1ull << 62,
                                     1ull << 63, ~0ull};

void mutate(std::string &input, std::mt19937_64 &rng) {
  auto below = [&](uint64_t bound) {
    return bound ? std::uniform_int_distribution<uint64_t>(0, bound - 1)(rng)
                 : 0;
  };
  if (input.empty()) {
    input = "GGUF";
    return;
  }
  switch (below(6)) {
  case 0: // flip a bit
    input[below(input.size())] ^= static_cast<char>(1 << below(8));
    break;
  case 1: // a random byte
    input[below(input.size())] = static_cast<char>(below(256));
    break;
  case 2: { // an interesting integer over a 4- or 8-byte field
    uint64_t value = kInteresting[below(std::size(kInteresting))];
    size_t width = below(2) ? 8 : 4;
    size_t at = below(input.size());
    for (size_t i = 0; i < width && at + i < input.size(); ++i)
      input[at + i] = static_cast<char>(value >> (8 * i));
    break;
  }
  case 3: // truncate
    input.resize(below(input.size()));
    break;
  case 4: { // copy a chunk elsewhere
    size_t from = below(input.size());
    size_t length = below(std::min<size_t>(64, input.size() - from)) + 1;
    input.insert(below(input.size()), input.substr(from, length));
    break;
  }
  default: { // delete a chunk
    size_t from = below(input.size());
    input.erase(from, below(std::min<size_t>(64, input.size() - from)) + 1);
    break;
  }
  }
}

/// The input being run, for the signal handler.
const std::string *currentInput = nullptr;

/// Writes the failing input beside the test's outputs, then dies as before.
void saveCrash(int signal) {
  const char *directory = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (currentInput && directory) {
    char path[4096];
    std::snprintf(path, sizeof(path), "%s/crash.gguf", directory);
    int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t written = ::write(fd, currentInput->data(), currentInput->size());
      (void)written;
      ::close(fd);
    }
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

TEST(GgufFuzzTest, SeededMutationsFailOnlyWithNamedErrors) {
  const int64_t maxIterations = getEnvInt("LLMC_FUZZ_ITERATIONS", 50000);
  const int64_t maxSeconds = getEnvInt("LLMC_FUZZ_SECONDS", 60);
  std::mt19937_64 rng(getEnvInt("LLMC_FUZZ_SEED", 1));

  std::vector<std::string> seeds = loadReferenceSeeds();
  seeds.push_back(buildTensorZoo());
  seeds.push_back(buildTinyModel("llama", /*Q8_0=*/8, 34));
  seeds.push_back(buildTinyModel("qwen2", /*Q4_0=*/2, 18));
  seeds.push_back(buildTinyModel("qwen3", /*F16=*/1, 64));
  for (int signal : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE})
    std::signal(signal, saveCrash);

  auto start = std::chrono::steady_clock::now();
  int64_t iterations = 0, parsed = 0;
  for (; iterations < maxIterations; ++iterations) {
    if (std::chrono::steady_clock::now() - start >
        std::chrono::seconds(maxSeconds))
      break;
    // The seeds themselves first, then mutants of them.
    std::string input = seeds[iterations % seeds.size()];
    if (iterations >= static_cast<int64_t>(seeds.size()))
      for (uint64_t count = 1 + rng() % 4; count > 0; --count)
        mutate(input, rng);
    currentInput = &input;
    // An exactly sized heap copy, so reading past the end is caught.
    std::vector<uint8_t> exact(input.begin(), input.end());
    LLVMFuzzerTestOneInput(exact.data(), exact.size());
    auto file = GgufFile::parse(
        "count.gguf", llvm::MemoryBuffer::getMemBuffer(input, "count.gguf",
                                                       false));
    if (file)
      ++parsed;
    else
      llvm::consumeError(file.takeError());
  }
  currentInput = nullptr;
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  std::printf("%lld inputs in %.1f s, %lld parsed as GGUF\n",
              static_cast<long long>(iterations), seconds,
              static_cast<long long>(parsed));
  EXPECT_GE(iterations, std::min<int64_t>(maxIterations, 1000))
      << "too few inputs ran to mean anything";
  EXPECT_GT(parsed, static_cast<int64_t>(seeds.size()));
}

} // namespace
