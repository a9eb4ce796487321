//===- TokenizerFuzzer.cpp - a tokenizer.json from a stranger -------------===//
//
// A tokenizer.json, loaded as the runtime loads one from a checkpoint or a
// binary, then used: texts that touch the normalizer, the pre-tokenizer's
// split patterns, byte fallback and the added tokens are encoded, and the
// ids decoded again. Every id a loaded tokenizer gives must name a token.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Tokenizer.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace llmc::tokenizer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::fromJson(
      std::string_view(reinterpret_cast<const char *>(data), size),
      "fuzz.json");
  if (!tokenizer.ok())
    return 0;
  static const char *const texts[] = {
      "Hello, world! It's 2024: 3.14159 ",
      "  leading spaces\n\n\ttabs and\r\nnewlines  ",
      "<|im_start|>user\nhi<|im_end|><s></s>[INST]<|eot_id|>",
      "\xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80 caf\xc3\xa9 \xff\xfe",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  };
  for (const char *text : texts) {
    for (bool special : {false, true}) {
      std::vector<int32_t> ids = (*tokenizer)->encode(text, special);
      for (int32_t id : ids)
        if (id < 0 || id >= (*tokenizer)->vocabSize()) {
          std::fprintf(stderr, "encode gave id %d of a vocabulary of %lld\n",
                       id, static_cast<long long>((*tokenizer)->vocabSize()));
          std::abort();
        }
      (void)(*tokenizer)->decode(ids);
      (void)(*tokenizer)->decodeBytes(ids, /*skipSpecial=*/true);
    }
  }
  for (int32_t id : {-1, 0, 1, 2, 100000, 2147483647})
    (void)(*tokenizer)->idToToken(id);
  return 0;
}
