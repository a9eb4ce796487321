//===- LlamaCppBench.cpp - llama.cpp on the CPU, timed as host_bench ------===//
//
// llama.cpp's half of tools/bench/vs_llamacpp.sh: loads a GGUF model on the
// CPU and times, on random token ids, what host_bench times for llmc's host
// backend:
//   pp   one llama_decode of --prompt tokens from an empty cache (tokens/s);
//   tg   --gen single-token decodes from an empty cache, as llama-bench's
//        tg128 (tokens/s);
//   turn the time to the first token of a --turn-token follow-up turn: one
//        llama_decode of those tokens after --prompt tokens of history (ms).
// Each figure is the mean over --reps runs, after one untimed warm-up of a
// prompt and of a single token. The threads wait in a threadpool polling at
// --poll (0-100; llama-bench's default 50). Prints one JSON line on stdout
// (pp_tps, tg_tps, turn_ms, the settings, and as isa and cpu the ggml CPU
// backend variant ggml picked for this CPU); llama.cpp's warnings and errors
// go to stderr (--verbose adds the rest of its log).
//
//   llamacpp_bench MODEL.gguf [--threads 2] [--prompt 512] [--gen 128]
//                  [--turn 16] [--reps 1] [--poll 50] [--verbose]
//
// Not built by Bazel: tools/bench/llamacpp/build.sh compiles it against the
// prebuilt libraries of node-llama-cpp's npm package.
//
//===----------------------------------------------------------------------===//

#include "LlamaCppSupport.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "llama.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

const char llamacpp::programName[] = "llamacpp_bench";

namespace {

using llamacpp::decode;
using llamacpp::fail;

struct Options {
  std::string modelPath;
  int threads = 2;
  int prompt = 512;
  int gen = 128;
  int turn = 16;
  int reps = 1;
  int poll = 50;
  bool verbose = false;
};

void usage() {
  std::fprintf(stderr,
               "usage: llamacpp_bench MODEL.gguf [--threads 2] [--prompt 512] "
               "[--gen 128] [--turn 16] [--reps 1] [--poll 50] [--verbose]\n");
  std::exit(2);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--verbose") {
      options.verbose = true;
      continue;
    }
    int *value = arg == "--threads"  ? &options.threads
                 : arg == "--prompt" ? &options.prompt
                 : arg == "--gen"    ? &options.gen
                 : arg == "--turn"   ? &options.turn
                 : arg == "--reps"   ? &options.reps
                 : arg == "--poll"   ? &options.poll
                                     : nullptr;
    if (value) {
      if (i + 1 == argc)
        usage();
      char *end = nullptr;
      long parsed = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || parsed < 0 || parsed > 1 << 20)
        fail("bad value for " + arg + ": " + argv[i]);
      *value = static_cast<int>(parsed);
    } else if (arg[0] != '-' && options.modelPath.empty()) {
      options.modelPath = arg;
    } else {
      usage();
    }
  }
  if (options.modelPath.empty())
    usage();
  if (options.threads < 1 || options.prompt < 1 || options.reps < 1)
    fail("--threads, --prompt and --reps must be at least 1");
  if (options.poll > 100)
    fail("--poll is a level from 0 to 100");
  return options;
}

class Bench {
public:
  Bench(llama_context *ctx, int vocabSize)
      : ctx(ctx), tokenId(0, vocabSize - 1) {}

  std::vector<llama_token> randomTokens(int count) {
    std::vector<llama_token> tokens(count);
    for (auto &token : tokens)
      token = tokenId(rng);
    return tokens;
  }

  void clearCache() { llama_memory_clear(llama_get_memory(ctx), true); }

  /// Seconds of one decode of `count` random tokens from `firstPosition`.
  double timeDecode(int count, int firstPosition) {
    std::vector<llama_token> tokens = randomTokens(count);
    auto start = std::chrono::steady_clock::now();
    decode(ctx, tokens, firstPosition);
    return seconds(start);
  }

  /// Seconds of `count` single-token decodes from an empty cache.
  double timeGeneration(int count) {
    clearCache();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i)
      decode(ctx, randomTokens(1), i);
    return seconds(start);
  }

private:
  static double seconds(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

  llama_context *ctx;
  std::mt19937 rng{20240601};
  std::uniform_int_distribution<llama_token> tokenId;
};

std::string jsonString(const std::string &text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

std::string jsonNumber(double value, bool present) {
  if (!present)
    return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  llamacpp::CpuBackend cpuBackend = llamacpp::loadCpuBackend(options.verbose);
  std::fprintf(stderr, "llamacpp_bench: ggml CPU backend %s (%s) on %s:%s\n",
               cpuBackend.variant.c_str(),
               cpuBackend.library.empty() ? "library not found"
                                          : cpuBackend.library.c_str(),
               cpuBackend.cpu.c_str(), cpuBackend.features.c_str());
  llama_backend_init();

  llama_model_params modelParams = llama_model_default_params();
  modelParams.n_gpu_layers = 0;
  // Mapped, not locked: what llama-bench's default (auto) does on a CPU.
  modelParams.load_mode = LLAMA_LOAD_MODE_MMAP;
  llama_model *model =
      llama_model_load_from_file(options.modelPath.c_str(), modelParams);
  if (!model)
    fail("cannot load " + options.modelPath);

  llama_context_params contextParams = llama_context_default_params();
  contextParams.n_ctx = options.prompt + options.gen + options.turn;
  // One physical batch takes the whole prompt (or turn), as host_bench's
  // prefill does.
  contextParams.n_batch = contextParams.n_ubatch =
      std::max(options.prompt, options.turn);
  contextParams.n_seq_max = 1;
  contextParams.n_threads = contextParams.n_threads_batch = options.threads;
  llama_context *ctx = llama_init_from_model(model, contextParams);
  if (!ctx)
    fail("cannot create a context");

  // A threadpool made once, as llama-bench makes it: without one, ggml's
  // CPU backend (built without OpenMP) starts new threads for every decode.
  // Its functions live in the CPU backend library ggml loaded at run time.
  ggml_backend_reg_t cpuReg = ggml_backend_dev_backend_reg(
      ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));
  auto *newThreadpool = reinterpret_cast<decltype(&ggml_threadpool_new)>(
      ggml_backend_reg_get_proc_address(cpuReg, "ggml_threadpool_new"));
  auto *freeThreadpool = reinterpret_cast<decltype(&ggml_threadpool_free)>(
      ggml_backend_reg_get_proc_address(cpuReg, "ggml_threadpool_free"));
  if (!newThreadpool || !freeThreadpool)
    fail("the CPU backend has no threadpool functions");
  ggml_threadpool_params threadpoolParams =
      ggml_threadpool_params_default(options.threads);
  threadpoolParams.poll = options.poll;
  ggml_threadpool *threadpool = newThreadpool(&threadpoolParams);
  if (!threadpool)
    fail("cannot create a threadpool of " + std::to_string(options.threads) +
         " threads");
  llama_attach_threadpool(ctx, threadpool, nullptr);

  Bench bench(ctx, llama_vocab_n_tokens(llama_model_get_vocab(model)));
  // Warm-up: the first decodes of each shape allocate and plan graphs.
  bench.timeDecode(options.prompt, 0);
  bench.timeGeneration(1);

  double ppRate = 0, tgRate = 0, turnMs = 0;
  for (int rep = 0; rep < options.reps; ++rep) {
    bench.clearCache();
    ppRate += options.prompt / bench.timeDecode(options.prompt, 0);
    if (options.gen > 0)
      tgRate += options.gen / bench.timeGeneration(options.gen);
    if (options.turn > 0) {
      bench.clearCache();
      bench.timeDecode(options.prompt, 0);
      turnMs += 1e3 * bench.timeDecode(options.turn, options.prompt);
    }
  }

  char description[128];
  llama_model_desc(model, description, sizeof description);
  std::printf(
      "{\"engine\":\"llama.cpp\",\"model\":%s,\"desc\":%s,"
      "\"pp_tps\":%s,\"tg_tps\":%s,\"turn_ms\":%s,\"threads\":%d,"
      "\"prompt\":%d,\"gen\":%d,\"turn\":%d,\"reps\":%d,\"poll\":%d,"
      "\"isa\":%s,\"cpu\":%s}\n",
      jsonString(options.modelPath).c_str(), jsonString(description).c_str(),
      jsonNumber(ppRate / options.reps, true).c_str(),
      jsonNumber(tgRate / options.reps, options.gen > 0).c_str(),
      jsonNumber(turnMs / options.reps, options.turn > 0).c_str(),
      options.threads, options.prompt, options.gen, options.turn, options.reps,
      options.poll, jsonString("ggml-cpu-" + cpuBackend.variant).c_str(),
      jsonString(cpuBackend.cpu).c_str());

  llama_free(ctx);
  freeThreadpool(threadpool);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
