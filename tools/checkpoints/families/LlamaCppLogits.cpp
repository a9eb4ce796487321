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
// backend variant for this CPU is reported on stderr. The context holds
// the tokens of all turns, or --ctx if that is more (llama.cpp rounds it up
// to a multiple of 256; Phi-3's LongRoPE takes its long factors when it
// exceeds the original context).
//
// --exact-gelu recomputes the output of every GEGLU node (Gemma's MLP) with
// ggml's own float32 GELU, ggml_gelu_f32 (0.5x (1 + tanhf(sqrt(2/pi) x (1 +
// 0.044715 x^2)))), times the up projection, as ggml computes it when built
// without GGML_GELU_FP16. ggml's CPU backend is built with it, and then
// looks GELU up in a float16 table (the input rounded to float16, the
// result stored in float16), which puts the logits of tests/families'
// Gemmas up to about 6e-4 from Hugging Face's. It does so through the
// scheduler's eval callback: the graph is computed up to each GEGLU node,
// whose output is then rewritten from its inputs before the rest runs;
// every other node is computed as without the option.
//
//   llamacpp_logits MODEL.gguf -o OUT_PREFIX --turn IDS [--turn IDS ...]
//                   [--gen 16] [--threads 1] [--ctx N] [--flash-attn]
//                   [--exact-gelu] [--verbose]
//
// Not built by Bazel: tools/checkpoints/families/make_family_refs.sh has
// tools/bench/llamacpp/build.sh compile it, with that directory's
// LlamaCppSupport.h, against the prebuilt libraries of node-llama-cpp's npm
// package.
//
//===----------------------------------------------------------------------===//

#include "LlamaCppSupport.h"

#include "llama.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

const char llamacpp::programName[] = "llamacpp_logits";

namespace {

using llamacpp::decode;
using llamacpp::fail;

struct Options {
  std::string modelPath;
  std::string outputPrefix;
  std::vector<std::vector<llama_token>> turns;
  int gen = 16;
  int threads = 1;
  int context = 0;
  bool flashAttention = false;
  bool exactGelu = false;
  bool verbose = false;
};

void usage() {
  std::fprintf(stderr,
               "usage: llamacpp_logits MODEL.gguf -o OUT_PREFIX --turn IDS "
               "[--turn IDS ...] [--gen 16] [--threads 1] [--ctx N] "
               "[--flash-attn] [--exact-gelu] [--verbose]\n");
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
    } else if (arg == "--exact-gelu") {
      options.exactGelu = true;
    } else if (arg == "-o" || arg == "--turn" || arg == "--gen" ||
               arg == "--threads" || arg == "--ctx") {
      if (i + 1 == argc)
        usage();
      std::string value = argv[++i];
      if (arg == "-o")
        options.outputPrefix = value;
      else if (arg == "--turn")
        options.turns.push_back(parseIds(value));
      else if (arg == "--gen")
        options.gen = static_cast<int>(parseInteger(value, arg));
      else if (arg == "--ctx")
        options.context = static_cast<int>(parseInteger(value, arg));
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

/// ggml_gelu_f32 of ggml-cpu's vec.h, the GELU (tanh) ggml computes without
/// GGML_GELU_FP16, with its float constants.
float geluF32(float x) {
  const float geluCoefA = 0.044715f;
  const float sqrt2OverPi = 0.79788456080286535587989211986876f;
  return 0.5f * x *
         (1.0f + std::tanh(sqrt2OverPi * x * (1.0f + geluCoefA * x * x)));
}

bool isGeglu(const ggml_tensor *t) {
  return t->op == GGML_OP_GLU && ggml_get_glu_op(t) == GGML_GLU_OP_GEGLU;
}

/// The eval callback of --exact-gelu: asks for every GEGLU node and, once
/// it is computed, rewrites its output as ggml_compute_forward_geglu_f32
/// lays it out (rows of nc values; a single source holds the gate and the
/// up halves, in the order op parameter 1, swapped, says), with geluF32.
/// Counts the nodes rewritten in *userData (a long).
bool exactGeluCallback(ggml_tensor *t, bool ask, void *userData) {
  if (ask)
    return isGeglu(t);
  if (!isGeglu(t))
    return true;
  ++*static_cast<long *>(userData);
  const ggml_tensor *src0 = t->src[0];
  const ggml_tensor *src1 = t->src[1];
  if (t->type != GGML_TYPE_F32 || src0->type != GGML_TYPE_F32 ||
      (src1 && src1->type != GGML_TYPE_F32) || !t->data || !src0->data)
    fail("--exact-gelu: a GEGLU node is not F32 in host memory");
  const int64_t columns = src1 ? src0->ne[0] : src0->ne[0] / 2;
  const int64_t rows = ggml_nrows(src0);
  const bool swapped = t->op_params[1] != 0;
  for (int64_t row = 0; row < rows; ++row) {
    const float *gate = reinterpret_cast<const float *>(
        static_cast<const char *>(src0->data) + row * src0->nb[1]);
    const float *up = gate;
    if (src1) {
      up = reinterpret_cast<const float *>(
          static_cast<const char *>(src1->data) + row * src1->nb[1]);
    } else {
      gate += swapped ? columns : 0;
      up += swapped ? 0 : columns;
    }
    float *out = reinterpret_cast<float *>(static_cast<char *>(t->data) +
                                           row * t->nb[1]);
    for (int64_t i = 0; i < columns; ++i)
      out[i] = geluF32(gate[i]) * up[i];
  }
  return true;
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
  llamacpp::CpuBackend cpuBackend = llamacpp::loadCpuBackend(options.verbose);
  std::fprintf(stderr, "llamacpp_logits: ggml CPU backend %s on %s\n",
               cpuBackend.library.empty() ? "(library not found)"
                                          : cpuBackend.library.c_str(),
               cpuBackend.cpu.c_str());
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
  contextParams.n_ctx = static_cast<uint32_t>(
      std::max(total, static_cast<size_t>(options.context)));
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
  long gegluNodes = 0;
  if (options.exactGelu) {
    contextParams.cb_eval = exactGeluCallback;
    contextParams.cb_eval_user_data = &gegluNodes;
  }
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

  if (options.exactGelu) {
    if (gegluNodes == 0)
      fail("--exact-gelu: the model has no GEGLU node");
    std::fprintf(stderr,
                 "llamacpp_logits: --exact-gelu rewrote %ld GEGLU node "
                 "outputs\n",
                 gegluNodes);
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
