//===- CxxApiDemo.cpp - the C++ API of llmc.hpp from a C++ program --------===//
//
//   cxx_api_demo MODEL.llmc PROMPT MAX_NEW_TOKENS
//
// Generates greedily through llmc.hpp and prints the generated ids as
// "ids: a,b,c" for the test to compare with `llmc run`; checks on the way
// that the streamed text is the result's, that a callback can end a turn,
// that a callback's exception reaches the caller, that a chat answers, and
// that bad calls throw llmc::sdk::Error with the C API's status. Exits
// non-zero on the first check that fails.
//
//===----------------------------------------------------------------------===//

#include "llmc/llmc.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      std::fprintf(stderr, "cxx_api_demo: check failed at line %d: %s\n",     \
                   __LINE__, #condition);                                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace sdk = llmc::sdk;

/// The status of the Error `call` throws, or LLMC_OK when it throws none.
template <typename Call> llmc_status statusOf(Call call) {
  try {
    call();
  } catch (const sdk::Error &error) {
    return error.status();
  }
  return LLMC_OK;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr,
                 "usage: cxx_api_demo MODEL.llmc PROMPT MAX_NEW_TOKENS\n");
    return 2;
  }
  try {
    sdk::Model model = sdk::Model::load(argv[1], /*threads=*/1);
    CHECK(model.vocabSize() > 0);

    sdk::GenerateOptions options;
    options.maxNewTokens = std::atoi(argv[3]);
    options.stopAtStopTokens = false;
    std::string streamed;
    int tokens = 0;
    sdk::Result result = model.generate(
        argv[2], options, [&](int32_t, std::string_view text) {
          streamed += text;
          ++tokens;
          return true;
        });
    CHECK(int64_t(result.ids.size()) == options.maxNewTokens);
    CHECK(tokens == options.maxNewTokens);
    CHECK(streamed == result.text);
    CHECK(result.finishReason == sdk::FinishReason::MaxTokens);
    CHECK(result.logits.empty());
    std::printf("ids: ");
    for (size_t i = 0; i < result.ids.size(); ++i)
      std::printf(i ? ",%d" : "%d", result.ids[i]);
    std::printf("\n");

    // The same prompt as ids, logits kept, ended by the callback.
    options.keepLogits = true;
    int seen = 0;
    sdk::Result stopped =
        model.generate(std::vector<int32_t>{2170, 389, 2242, 264, 849},
                       options, [&](int32_t, std::string_view) {
                         return ++seen < 3;
                       });
    CHECK(stopped.ids.size() == 3);
    CHECK(stopped.ids[0] == result.ids[0]);
    CHECK(stopped.finishReason == sdk::FinishReason::Callback);
    CHECK(int64_t(stopped.logits.size()) == 3 * model.vocabSize());

    // A callback's exception ends the turn and reaches the caller.
    bool rethrown = false;
    try {
      model.generate("x", options, [](int32_t, std::string_view) -> bool {
        throw std::runtime_error("from the callback");
      });
    } catch (const std::runtime_error &error) {
      rethrown = std::string(error.what()) == "from the callback";
    }
    CHECK(rethrown);

    sdk::Chat chat = model.startChat("You tell fortunes.");
    options.keepLogits = false;
    options.maxNewTokens = 4;
    sdk::Result reply = chat.send("Hello", options);
    CHECK(!reply.ids.empty() && reply.ids.size() <= 4);
    chat.reset();

    CHECK(statusOf([] { sdk::Model::load("/nonexistent/model.llmc"); }) ==
          LLMC_ERROR_LOAD);
    sdk::GenerateOptions negative;
    negative.temperature = -1.0f;
    CHECK(statusOf([&] { model.generate("x", negative); }) ==
          LLMC_ERROR_GENERATE);
  } catch (const sdk::Error &error) {
    std::fprintf(stderr, "cxx_api_demo: %s\n", error.what());
    return 1;
  }
  return 0;
}
