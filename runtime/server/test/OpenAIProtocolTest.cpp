//===- OpenAIProtocolTest.cpp - parsing what clients send -----------------===//

#include "runtime/server/OpenAIProtocol.h"

#include <gtest/gtest.h>

#include <string>

namespace llmc::server {
namespace {

std::string parseError(std::string_view body, bool chat = true) {
  absl::StatusOr<CompletionRequest> request =
      parseCompletionRequest(body, chat, RequestLimits());
  EXPECT_FALSE(request.ok()) << body;
  return std::string(request.status().message());
}

TEST(OpenAIProtocolTest, ParsesAChatRequest) {
  absl::StatusOr<CompletionRequest> request = parseCompletionRequest(
      R"({"messages": [{"role": "system", "content": "Be brief."},
                       {"role": "user", "content": [
                         {"type": "text", "text": "Hi "},
                         {"type": "text", "text": "there"}]}],
          "max_tokens": 12, "temperature": 0.5, "seed": 3, "stream": true,
          "stream_options": {"include_usage": true}, "stop": ["\n", "END"],
          "chat_template_kwargs": {"enable_thinking": false, "a": 1}})",
      /*chat=*/true, RequestLimits());
  ASSERT_TRUE(request.ok()) << request.status().message();
  ASSERT_EQ(request->messages.size(), 2u);
  EXPECT_EQ(request->messages[1].role, chat::Role::User);
  EXPECT_EQ(request->messages[1].content, "Hi there");
  EXPECT_EQ(request->maxTokens, 12);
  ASSERT_TRUE(request->sampling.has_value());
  EXPECT_FLOAT_EQ(request->sampling->temperature, 0.5f);
  EXPECT_EQ(request->sampling->seed, 3u);
  EXPECT_TRUE(request->stream);
  EXPECT_TRUE(request->includeUsage);
  EXPECT_EQ(request->stop, (std::vector<std::string>{"\n", "END"}));
  ASSERT_TRUE(request->templateVariables.has_value());
  // The keywords in sorted order, as the template has always seen them.
  EXPECT_EQ(request->templateVariables->dump(),
            R"({"a":1,"enable_thinking":false})");
}

TEST(OpenAIProtocolTest, TemperatureZeroDecodesGreedily) {
  absl::StatusOr<CompletionRequest> request = parseCompletionRequest(
      R"({"prompt": "x", "temperature": 0})", /*chat=*/false, RequestLimits());
  ASSERT_TRUE(request.ok()) << request.status().message();
  EXPECT_EQ(request->prompt, "x");
  EXPECT_FALSE(request->sampling.has_value());
}

TEST(OpenAIProtocolTest, NamesTheFieldAtFault) {
  EXPECT_EQ(parseError("[1]"), "the body must be a JSON object");
  EXPECT_EQ(parseError(R"({"messages": []})"),
            "'messages' must be a non-empty array");
  EXPECT_EQ(parseError(R"({"messages": [{"role": "user"}]})"),
            "messages[0] needs a 'role' and a 'content'");
  EXPECT_EQ(parseError(R"({"messages": [{"role": "user", "content": 1}]})"),
            "messages[0].content must be a string or an array of text parts");
  EXPECT_EQ(
      parseError(
          R"({"messages": [{"role": "user", "content": [{"type": 1}]}]})"),
      "messages[0].content: only text parts are supported");
  EXPECT_EQ(parseError(R"({"prompt": ""})", /*chat=*/false),
            "'prompt' must be a non-empty string");
  EXPECT_EQ(parseError(R"({"prompt": "x", "max_tokens": 1.5})", false),
            "'max_tokens' must be a positive integer");
  EXPECT_EQ(parseError(R"({"prompt": "x", "max_tokens": 1e300})", false),
            "'max_tokens' must be a positive integer");
  EXPECT_EQ(parseError(R"({"prompt": "x", "top_p": "high"})", false),
            "'top_p' must be a number");
  EXPECT_EQ(parseError(R"({"prompt": "x", "stop": [1]})", false),
            "'stop' must be a string or strings");
  EXPECT_EQ(parseError(R"({"prompt": "x", "stop": [""]})", false),
            "'stop' holds at most 16 non-empty strings");
  EXPECT_EQ(parseError(R"({"prompt": "x", "chat_template_kwargs": {}})", false),
            "'chat_template_kwargs' must be an object, in a chat request");
  EXPECT_EQ(parseError(R"({"messages": [{"role": "robot", "content": "x"}]})")
                .rfind("messages[0]: ", 0),
            0u);
  // The parser's message places the fault.
  EXPECT_EQ(parseError("{bad").rfind("the body is not JSON: [1:", 0), 0u)
      << parseError("{bad");
}

TEST(OpenAIProtocolTest, HostileBodiesAreErrorsNotExceptions) {
  for (std::string_view body :
       {"", "null", "\"text\"", "{\"messages\": {}}", "{\"messages\": [1]}",
        "{\"messages\": [{\"role\": 1, \"content\": \"x\"}]}",
        "{\"messages\": [{\"role\": \"user\", \"content\": [1, null]}]}",
        "{\"prompt\": 5}", "{\"prompt\": \"x\", \"stop\": {}}",
        "{\"prompt\": \"x\", \"seed\": [1]}", "\xff\xfe", "{\"a\": \"\xc3\"}"})
    for (bool chat : {true, false}) {
      absl::StatusOr<CompletionRequest> request =
          parseCompletionRequest(body, chat, RequestLimits());
      EXPECT_FALSE(request.ok()) << body;
    }
  // Fields of the wrong type that are only hints are ignored.
  absl::StatusOr<CompletionRequest> request = parseCompletionRequest(
      R"({"prompt": "x", "stream": "yes", "stream_options": [true]})",
      /*chat=*/false, RequestLimits());
  ASSERT_TRUE(request.ok()) << request.status().message();
  EXPECT_FALSE(request->stream);
  EXPECT_FALSE(request->includeUsage);
}

TEST(OpenAIProtocolTest, ParsesTokenizeAndDetokenizeBodies) {
  absl::StatusOr<TokenizeRequest> tokenize =
      parseTokenizeRequest(R"({"content": "hi", "add_special": true})");
  ASSERT_TRUE(tokenize.ok()) << tokenize.status().message();
  EXPECT_EQ(tokenize->content, "hi");
  EXPECT_TRUE(tokenize->addSpecial);
  for (std::string_view body : {"{bad", "[]", R"({"content": 1})"})
    EXPECT_EQ(parseTokenizeRequest(body).status().message(),
              "'content' must be a string");

  absl::StatusOr<std::vector<int32_t>> ids =
      parseDetokenizeRequest(R"({"tokens": [0, 5.0, 9]})", 10);
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(*ids, (std::vector<int32_t>{0, 5, 9}));
  for (std::string_view body : {"{bad", R"({"tokens": 1})", "[1]"})
    EXPECT_EQ(parseDetokenizeRequest(body, 10).status().message(),
              "'tokens' must be an array of token ids");
  for (std::string_view body :
       {R"({"tokens": [10]})", R"({"tokens": [-1]})", R"({"tokens": [0.5]})",
        R"({"tokens": ["1"]})", R"({"tokens": [18446744073709551615]})"})
    EXPECT_EQ(parseDetokenizeRequest(body, 10).status().message(),
              "'tokens' holds an id outside the vocabulary");
}

TEST(OpenAIProtocolTest, WritesRepliesWithSortedKeys) {
  EXPECT_EQ(makeError("no such route: /x", "invalid_request_error", 404).dump(),
            R"({"error":{"code":404,"message":"no such route: /x",)"
            R"("type":"invalid_request_error"}})");
  EXPECT_EQ(makeUsage(5, 3, 2).dump(),
            R"({"completion_tokens":3,"prompt_tokens":5,)"
            R"("prompt_tokens_details":{"cached_tokens":2},"total_tokens":8})");
  EXPECT_EQ(getFinishReason(FinishReason::StopToken, false), "stop");
  EXPECT_EQ(getFinishReason(FinishReason::MaxTokens, true), "stop");
  EXPECT_EQ(getFinishReason(FinishReason::MaxTokens, false), "length");
}

} // namespace
} // namespace llmc::server
