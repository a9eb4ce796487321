//===- LlamaCppLogits.cpp - llama.cpp's greedy logits for a reference -----===//
//
// Runs a GGUF model in llama.cpp on the CPU, F32 KV cache, and writes the
// logits of greedy generation in the format of ../shared/refdata/refs (and
// tests/families/refs):
//   OUT.npy   float32 [generated tokens, vocab]: row i holds the logits
//             generated token i was chosen from (argmax, lowest id on a tie);
//   OUT.json  {"prompt": [...all turns' input ids...], "generated": [...],
//              "turns": [{"input_ids": [...], "generated": [...]}, ...]}.
// Each --turn's ids (comma-separated, fed as they are: no BOS is added) are
// decoded after the whole history, which includes every token generated
// before, then --gen tokens are generated one decode at a time. A turn is
// one llama_decode (one ubatch), as is every generated token. ggml's CPU
// backend variant for this CPU is reported on stderr.
//
//   llamacpp_logits MODEL.gguf -o OUT_PREFIX --turn IDS [--turn IDS ...]
//                   [--gen 16] [--threads 1] [--flash-attn] [--verbose]
//
// Not built by Bazel: tools/checkpoints/families/make_family_refs.sh
// compiles it against the prebuilt libraries of node-llama-cpp's npm package
// (tools/bench/llamacpp/build.sh installs them).
//
//===----------------------------------------------------------------------===//

#include "ggml-backend.h"
#include "llama.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string modelPath;
  std::string outputPrefix;
  std::vector<std::vector<llama_token>> turns;
  int gen = 16;
  int threads = 1;
  bool flashAttention = false;
  bool verbose = false;
};

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "llamacpp_logits: %s\n", message.c_str());
  std::exit(1);
}

void usage() {
  std::fprintf(stderr,
               "usage: llamacpp_logits MODEL.gguf -o OUT_PREFIX --turn IDS "
               "[--turn IDS ...] [--gen 16] [--threads 1] [--flash-attn] "
               "[--verbose]\n");
  std::exit(2);
}

long parseInteger(const std::string &text, const std::string &what) {
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 0 || value > 1 << 20)
    fail("bad " + what + ": " + text);
  return value;
}

std::vector<llama_token> parseIds(const std::string &text) {
  std::vector<llama_token> ids;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t comma = text.find(',', begin);
    if (comma == std::string::npos)
      comma = text.size();
    ids.push_back(static_cast<llama_token>(
        parseInteger(text.substr(begin, comma - begin), "token id")));
    begin = comma + 1;
  }
  return ids;
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "--flash-attn") {
      options.flashAttention = true;
    } else if (arg == "-o" || arg == "--turn" || arg == "--gen" ||
               arg == "--threads") {
      if (i + 1 == argc)
        usage();
      std::string value = argv[++i];
      if (arg == "-o")
        options.outputPrefix = value;
      else if (arg == "--turn")
        options.turns.push_back(parseIds(value));
      else if (arg == "--gen")
        options.gen = static_cast<int>(parseInteger(value, arg));
      else
        options.threads = static_cast<int>(parseInteger(value, arg));
    } else if (arg[0] != '-' && options.modelPath.empty()) {
      options.modelPath = arg;
    } else {
      usage();
    }
  }
  if (options.modelPath.empty() || options.outputPrefix.empty() ||
      options.turns.empty())
    usage();
  if (options.threads < 1 || options.gen < 1)
    fail("--threads and --gen must be at least 1");
  return options;
}

/// llama.cpp and ggml log every load step at INFO; only warnings and errors
/// are shown unless --verbose.
struct LogFilter {
  bool verbose = false;
  ggml_log_level lastLevel = GGML_LOG_LEVEL_INFO;
};

void logCallback(ggml_log_level level, const char *text, void *userData) {
  auto *filter = static_cast<LogFilter *>(userData);
  // CONT continues the previous message at that message's level.
  if (level != GGML_LOG_LEVEL_CONT)
    filter->lastLevel = level;
  if (filter->verbose || filter->lastLevel >= GGML_LOG_LEVEL_WARN)
    std::fputs(text, stderr);
}

/// The directory of the libllama this program runs with: the prebuilt ggml
/// CPU backends (one .so per instruction-set variant) lie beside it.
std::string libllamaDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&llama_backend_init), &info) ||
      !info.dli_fname)
    fail("cannot locate libllama");
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

int collectCpuBackendLibrary(dl_phdr_info *info, size_t, void *data) {
  const char *name =
      info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
  if (name && std::strncmp(name + 1, "libggml-cpu", 11) == 0)
    *static_cast<std::string *>(data) = name + 1;
  return 0;
}

/// Reports which libggml-cpu-VARIANT.so ggml loaded for this CPU.
void reportCpuBackend(const std::string &searchedDirectory) {
  ggml_backend_dev_t device =
      ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  if (!device)
    fail("no ggml CPU backend could be loaded from " + searchedDirectory);
  std::string library;
  dl_iterate_phdr(collectCpuBackendLibrary, &library);
  std::fprintf(stderr, "llamacpp_logits: ggml CPU backend %s on %s\n",
               library.empty() ? "(library not found)" : library.c_str(),
               ggml_backend_dev_description(device));
}

/// Decodes `tokens` at positions firstPosition... of sequence 0, with the
/// logits of the last token only.
void decode(llama_context *ctx, const std::vector<llama_token> &tokens,
            int firstPosition) {
  llama_batch batch =
      llama_batch_init(static_cast<int32_t>(tokens.size()), 0, 1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    batch.token[i] = tokens[i];
    batch.pos[i] = firstPosition + static_cast<int>(i);
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = i + 1 == tokens.size();
  }
  batch.n_tokens = static_cast<int32_t>(tokens.size());
  int32_t status = llama_decode(ctx, batch);
  llama_synchronize(ctx);
  llama_batch_free(batch);
  if (status != 0)
    fail("llama_decode failed (" + std::to_string(status) + ")");
}

std::string jsonList(const std::vector<llama_token> &ids) {
  std::string text = "[";
  for (size_t i = 0; i < ids.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ids[i]);
  return text + "]";
}

/// numpy's .npy format 1.0, as np.save writes a float32 C-order matrix: the
/// header dict padded with spaces and a newline to a multiple of 64 bytes.
void writeNpy(const std::string &path, const std::vector<float> &values,
              size_t rows, size_t columns) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(columns) +
                       "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    fail("cannot write " + path);
  uint16_t length = static_cast<uint16_t>(header.size());
  unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                static_cast<unsigned char>(length & 0xff),
                                static_cast<unsigned char>(length >> 8)};
  std::fwrite(preamble, 1, sizeof preamble, file);
  std::fwrite(header.data(), 1, header.size(), file);
  std::fwrite(values.data(), sizeof(float), values.size(), file);
  if (std::fclose(file) != 0)
    fail("cannot write " + path);
}

void writeText(const std::string &path, const std::string &text) {
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(text.data(), 1, text.size(), file) != text.size() ||
      std::fclose(file) != 0)
    fail("cannot write " + path);
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  LogFilter logFilter{options.verbose};
  llama_log_set(logCallback, &logFilter);

  std::string backendDirectory = libllamaDirectory();
  ggml_backend_load_all_from_path(backendDirectory.c_str());
  reportCpuBackend(backendDirectory);
  llama_backend_init();

  llama_model_params modelParams = llama_model_default_params();
  modelParams.n_gpu_layers = 0;
  llama_model *model =
      llama_model_load_from_file(options.modelPath.c_str(), modelParams);
  if (!model)
    fail("cannot load " + options.modelPath);
  const int vocabSize = llama_vocab_n_tokens(llama_model_get_vocab(model));

  size_t total = 0, longestDecode = 1;
  for (const auto &turn : options.turns) {
    total += turn.size() + options.gen;
    longestDecode = std::max(longestDecode, turn.size() + 1);
  }
  llama_context_params contextParams = llama_context_default_params();
  contextParams.n_ctx = static_cast<uint32_t>(total);
  // A turn, with the last token generated before it, is one ubatch.
  contextParams.n_batch = contextParams.n_ubatch =
      static_cast<uint32_t>(longestDecode);
  contextParams.n_seq_max = 1;
  contextParams.n_threads = contextParams.n_threads_batch = options.threads;
  contextParams.type_k = GGML_TYPE_F32;
  contextParams.type_v = GGML_TYPE_F32;
  contextParams.flash_attn_type = options.flashAttention
                                      ? LLAMA_FLASH_ATTN_TYPE_ENABLED
                                      : LLAMA_FLASH_ATTN_TYPE_DISABLED;
  llama_context *ctx = llama_init_from_model(model, contextParams);
  if (!ctx)
    fail("cannot create a context");

  std::vector<float> rows;
  std::vector<llama_token> allInputs, allGenerated, pending;
  std::string turnsJson;
  int position = 0;
  for (const auto &turn : options.turns) {
    for (llama_token id : turn)
      if (id < 0 || id >= vocabSize)
        fail("token id " + std::to_string(id) + " is outside the vocabulary");
    // The last token generated before this turn has not been decoded yet.
    std::vector<llama_token> tokens = pending;
    tokens.insert(tokens.end(), turn.begin(), turn.end());
    decode(ctx, tokens, position);
    position += static_cast<int>(tokens.size());
    std::vector<llama_token> generated;
    for (int step = 0; step < options.gen; ++step) {
      if (step > 0) {
        decode(ctx, {generated.back()}, position);
        position += 1;
      }
      const float *logits = llama_get_logits_ith(ctx, -1);
      if (!logits)
        fail("llama.cpp returned no logits");
      int best = 0;
      for (int i = 1; i < vocabSize; ++i)
        if (logits[i] > logits[best])
          best = i;
      rows.insert(rows.end(), logits, logits + vocabSize);
      generated.push_back(best);
    }
    pending = {generated.back()};
    allInputs.insert(allInputs.end(), turn.begin(), turn.end());
    allGenerated.insert(allGenerated.end(), generated.begin(), generated.end());
    turnsJson += std::string(turnsJson.empty() ? "" : ", ") +
                 "{\"input_ids\": " + jsonList(turn) +
                 ", \"generated\": " + jsonList(generated) + "}";
  }

  writeNpy(options.outputPrefix + ".npy", rows, allGenerated.size(),
           static_cast<size_t>(vocabSize));
  writeText(options.outputPrefix + ".json",
            "{\"prompt\": " + jsonList(allInputs) +
                ", \"generated\": " + jsonList(allGenerated) +
                ", \"turns\": [" + turnsJson + "]}");
  std::fprintf(stderr, "llamacpp_logits: wrote %s.{npy,json}: %zu tokens\n",
               options.outputPrefix.c_str(), allGenerated.size());

  llama_free(ctx);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
