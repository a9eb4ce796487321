//===- LlamaCppSupport.h - what the llama.cpp programs share ----*- C++ -*-===//
//
// The glue between a small program and llama.cpp's prebuilt CPU libraries
// (node-llama-cpp's npm package), shared by the programs that run
// llama.cpp: LlamaCppBench.cpp here (llamacpp_bench, for
// tools/bench/vs_llamacpp.sh), tools/checkpoints/families/
// LlamaCppLogits.cpp (llamacpp_logits, for the reference logits of
// tests/families) and tools/tokenizers/LlamaCppTokenize.cpp
// (llamacpp_tokenize, for tests/tokenizer/data/llama_cpp_vocab). It holds:
//   fail               an error on stderr, prefixed with the program's name
//                      (each program defines llamacpp::programName), and
//                      exit status 1;
//   loadCpuBackend     llama.cpp's log filtered to warnings and errors
//                      (unless verbose), and ggml's CPU backends loaded from
//                      the libraries' directory: which variant ggml picked
//                      for this CPU, for the program to report;
//   decode             one llama_decode of a batch of tokens of sequence 0.
// Header-only: build.sh compiles each program alone, with -I of this
// directory. Not built by Bazel.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_BENCH_LLAMACPP_LLAMACPPSUPPORT_H
#define LLMC_TOOLS_BENCH_LLAMACPP_LLAMACPPSUPPORT_H

#include "ggml-backend.h"
#include "llama.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace llamacpp {

/// The program's name, which prefixes its messages; each program defines
/// it (const char llamacpp::programName[] = "...";).
extern const char programName[];

[[noreturn]] inline void fail(const std::string &message) {
  std::fprintf(stderr, "%s: %s\n", programName, message.c_str());
  std::exit(1);
}

/// llama.cpp and ggml log every load step at INFO; only warnings and errors
/// are shown unless verbose, so a model file's defects stand out.
struct LogFilter {
  bool verbose = false;
  ggml_log_level lastLevel = GGML_LOG_LEVEL_INFO;
};

inline void logCallback(ggml_log_level level, const char *text,
                        void *userData) {
  auto *filter = static_cast<LogFilter *>(userData);
  // CONT continues the previous message at that message's level.
  if (level != GGML_LOG_LEVEL_CONT)
    filter->lastLevel = level;
  if (filter->verbose || filter->lastLevel >= GGML_LOG_LEVEL_WARN)
    std::fputs(text, stderr);
}

/// The directory of the libllama this program runs with: the prebuilt ggml
/// CPU backends (one .so per instruction-set variant) lie beside it, and
/// ggml only looks in the executable's and the current directories itself.
inline std::string libllamaDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&llama_backend_init), &info) ||
      !info.dli_fname)
    fail("cannot locate libllama");
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

inline int collectCpuBackendLibrary(dl_phdr_info *info, size_t, void *data) {
  const char *name =
      info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
  if (name && std::strncmp(name + 1, "libggml-cpu", 11) == 0)
    *static_cast<std::string *>(data) = name + 1;
  return 0;
}

/// The ggml CPU backend ggml loaded: the variant (zen4, haswell, ...) whose
/// score function rates best for this CPU.
struct CpuBackend {
  std::string variant = "unknown";
  /// libggml-cpu-VARIANT.so, or empty when no such library is mapped in.
  std::string library;
  /// The CPU's name (the device's description).
  std::string cpu;
  /// The backend's features, each as " NAME=VALUE".
  std::string features;
};

/// ggml's API names only the device, so the variant is read off the
/// libggml-cpu-VARIANT.so mapped in.
inline CpuBackend findCpuBackend(const std::string &searchedDirectory) {
  ggml_backend_dev_t device =
      ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  if (!device)
    fail("no ggml CPU backend could be loaded from " + searchedDirectory);
  CpuBackend backend;
  backend.cpu = ggml_backend_dev_description(device);
  dl_iterate_phdr(collectCpuBackendLibrary, &backend.library);
  const std::string &library = backend.library;
  const std::string prefix = "libggml-cpu-", suffix = ".so";
  if (library.size() > prefix.size() + suffix.size() &&
      library.compare(library.size() - suffix.size(), suffix.size(), suffix) ==
          0)
    backend.variant = library.substr(
        prefix.size(), library.size() - prefix.size() - suffix.size());

  ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(device);
  auto getFeatures = reinterpret_cast<ggml_backend_get_features_t>(
      ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features"));
  for (auto *feature = getFeatures ? getFeatures(reg) : nullptr;
       feature && feature->name; ++feature)
    backend.features += std::string(" ") + feature->name + "=" + feature->value;
  return backend;
}

/// Filters llama.cpp's log (see LogFilter), loads ggml's backends from the
/// directory of libllama and returns the CPU backend ggml picked. The
/// program reports it, then calls llama_backend_init.
inline CpuBackend loadCpuBackend(bool verbose) {
  static LogFilter logFilter;
  logFilter.verbose = verbose;
  llama_log_set(logCallback, &logFilter);
  std::string backendDirectory = libllamaDirectory();
  ggml_backend_load_all_from_path(backendDirectory.c_str());
  return findCpuBackend(backendDirectory);
}

/// Decodes tokens at positions firstPosition... of sequence 0, asking for
/// the last token's logits only (as generation needs), and waits for it.
inline void decode(llama_context *ctx, const std::vector<llama_token> &tokens,
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

} // namespace llamacpp

#endif // LLMC_TOOLS_BENCH_LLAMACPP_LLAMACPPSUPPORT_H
