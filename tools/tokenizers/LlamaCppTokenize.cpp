//===- LlamaCppTokenize.cpp - llama.cpp's ids for a vocabulary's texts ----===//
//
// Tokenizes texts with llama.cpp's own tokenizer for a GGUF file's
// vocabulary, for tests/tokenizer/data/llama_cpp_vocab (its README.md):
//
//   llamacpp_tokenize VOCAB.gguf TEXTS.inp > IDS.out
//
// TEXTS.inp holds texts separated by `\n__ggml_vocab_test__\n` (llama.cpp's
// .inp files); IDS.out gets one line per text, its ids separated by spaces,
// as llama.cpp's .out files have them but without their leading space. No
// special token is added and none is parsed in the text
// (llama_tokenize(..., add_special = false, parse_special = false)). Only
// the vocabulary is loaded. Built by tools/bench/llamacpp/build.sh, not by
// Bazel.
//
//===----------------------------------------------------------------------===//

#include "LlamaCppSupport.h"

#include <fstream>
#include <sstream>

const char llamacpp::programName[] = "llamacpp_tokenize";

namespace {

/// llama.cpp's test texts, without the empty one after the last separator.
std::vector<std::string> readTexts(const char *path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    llamacpp::fail(std::string("cannot read ") + path);
  std::stringstream contents;
  contents << in.rdbuf();
  const std::string all = contents.str();
  const std::string separator = "\n__ggml_vocab_test__\n";
  std::vector<std::string> texts;
  for (size_t at = 0; at < all.size();) {
    size_t end = all.find(separator, at);
    if (end == std::string::npos)
      end = all.size();
    texts.push_back(all.substr(at, end - at));
    at = end + separator.size();
  }
  return texts;
}

std::vector<llama_token> tokenize(const llama_vocab *vocab,
                                  const std::string &text) {
  std::vector<llama_token> ids(text.size() + 1);
  int32_t count =
      llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()),
                     ids.data(), static_cast<int32_t>(ids.size()),
                     /*add_special=*/false,
                     /*parse_special=*/false);
  if (count < 0) {
    // -count ids did not fit.
    ids.resize(-count);
    count = llama_tokenize(vocab, text.data(),
                           static_cast<int32_t>(text.size()), ids.data(),
                           static_cast<int32_t>(ids.size()), false, false);
  }
  if (count < 0)
    llamacpp::fail("llama_tokenize failed");
  ids.resize(count);
  return ids;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3)
    llamacpp::fail("usage: llamacpp_tokenize VOCAB.gguf TEXTS.inp");
  llamacpp::loadCpuBackend(/*verbose=*/false);
  llama_backend_init();
  llama_model_params params = llama_model_default_params();
  params.vocab_only = true;
  llama_model *model = llama_model_load_from_file(argv[1], params);
  if (!model)
    llamacpp::fail(std::string("cannot load ") + argv[1]);
  const llama_vocab *vocab = llama_model_get_vocab(model);
  for (const std::string &text : readTexts(argv[2])) {
    std::vector<llama_token> ids = tokenize(vocab, text);
    for (size_t i = 0; i < ids.size(); ++i)
      std::printf(i ? " %d" : "%d", ids[i]);
    std::printf("\n");
  }
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
