//===- RefdataChatTemplatesTest.cpp - detection on real checkpoints -------===//
//
// Detects the chat template of the reference checkpoints and tokenizers in
// ../shared/refdata from their tokenizer_config.json, and checks that the
// rendered prompt's special tokens encode as single ids.
//
//===----------------------------------------------------------------------===//

#include "runtime/chat/ChatTemplate.h"
#include "runtime/tokenizer/Tokenizer.h"

#include "tests/TestData.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace llmc::chat;

namespace {

/// The text of `refdata/<relative>`; empty with a test failure when it
/// cannot be read.
std::string readRefdata(llvm::StringRef relative) {
  std::string path = llmc::test::getRefdataPath(relative);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    ADD_FAILURE() << path << ": " << buffer.getError().message();
    return "";
  }
  return (*buffer)->getBuffer().str();
}

/// The model_type of `refdata/<directory>/config.json`.
std::string readModelType(llvm::StringRef directory) {
  llvm::Expected<llvm::json::Value> config =
      llvm::json::parse(readRefdata((directory + "/config.json").str()));
  if (!config) {
    ADD_FAILURE() << llvm::toString(config.takeError());
    return "";
  }
  const llvm::json::Object *object = config->getAsObject();
  std::optional<llvm::StringRef> type =
      object ? object->getString("model_type") : std::nullopt;
  EXPECT_TRUE(type.has_value()) << directory.str();
  return type ? type->str() : "";
}

struct Expectation {
  /// A directory of refdata holding tokenizer_config.json.
  std::string directory;
  /// The model type to pass; read from config.json when empty.
  std::string modelType;
  ChatFormat format;
  std::string defaultSystemPrompt;
};

class RefdataChatTemplatesTest : public ::testing::TestWithParam<Expectation> {
};

TEST_P(RefdataChatTemplatesTest, DetectsTheFamilyTemplate) {
  const Expectation &expected = GetParam();
  std::string modelType = expected.modelType.empty()
                              ? readModelType(expected.directory)
                              : expected.modelType;
  absl::StatusOr<ChatTemplate> chat = ChatTemplate::detect(
      readRefdata(expected.directory + "/tokenizer_config.json"), modelType);
  ASSERT_TRUE(chat.ok()) << chat.status().message();
  EXPECT_EQ(stringifyChatFormat(chat->getFormat()),
            stringifyChatFormat(expected.format));
  EXPECT_EQ(chat->getDefaultSystemPrompt(), expected.defaultSystemPrompt);
}

INSTANTIATE_TEST_SUITE_P(
    Refdata, RefdataChatTemplatesTest,
    ::testing::Values(
        // The tiny models have no chat_template: the model type decides.
        Expectation{"models/tiny-llama", "", ChatFormat::Llama2, ""},
        Expectation{"models/tiny-qwen2", "", ChatFormat::ChatML, ""},
        Expectation{"models/tiny-qwen3", "", ChatFormat::ChatML, ""},
        // Qwen2-Instruct's template, with its default system message.
        Expectation{"demo/fortune-qwen2", "", ChatFormat::ChatML,
                    "You are a helpful assistant."},
        // Public tokenizer packages, which come without a config.json.
        Expectation{"tokenizer/llama2", "llama", ChatFormat::Llama2, ""},
        Expectation{"tokenizer/llama3", "llama", ChatFormat::Llama3, ""},
        Expectation{"tokenizer/qwen3", "qwen3", ChatFormat::ChatML, ""}));

TEST(RefdataChatTemplatesTest, DemoPromptEncodesItsMarkersAsSingleTokens) {
  absl::StatusOr<ChatTemplate> chat = ChatTemplate::detect(
      readRefdata("demo/fortune-qwen2/tokenizer_config.json"), "qwen2");
  ASSERT_TRUE(chat.ok()) << chat.status().message();
  absl::StatusOr<ChatPrompt> prompt =
      chat->render({{Role::User, "Tell me my fortune."}}, true);
  ASSERT_TRUE(prompt.ok()) << prompt.status().message();
  EXPECT_EQ(prompt->text,
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
            "<|im_start|>user\nTell me my fortune.<|im_end|>\n"
            "<|im_start|>assistant\n");

  auto tokenizer = llmc::tokenizer::Tokenizer::fromFile(
      llmc::test::getRefdataPath("demo/fortune-qwen2"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  std::optional<int32_t> start = (*tokenizer)->tokenToId("<|im_start|>");
  std::optional<int32_t> end = (*tokenizer)->tokenToId("<|im_end|>");
  ASSERT_TRUE(start && end);
  std::vector<int32_t> ids = (*tokenizer)->encode(prompt->text);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), *start);
  EXPECT_EQ(llvm::count(ids, *start), 3);
  EXPECT_EQ(llvm::count(ids, *end), 2);
  for (const std::string &stop : chat->stopStrings())
    EXPECT_TRUE((*tokenizer)->tokenToId(stop).has_value()) << stop;
  EXPECT_EQ((*tokenizer)->decode(ids), prompt->text);
}

TEST(RefdataChatTemplatesTest, Llama3PromptStartsWithBeginOfText) {
  absl::StatusOr<ChatTemplate> chat = ChatTemplate::detect(
      readRefdata("tokenizer/llama3/tokenizer_config.json"), "llama");
  ASSERT_TRUE(chat.ok()) << chat.status().message();
  absl::StatusOr<ChatPrompt> prompt =
      chat->render({{Role::System, "Be brief."}, {Role::User, "Hi"}}, true);
  ASSERT_TRUE(prompt.ok()) << prompt.status().message();
  auto tokenizer = llmc::tokenizer::Tokenizer::fromFile(
      llmc::test::getRefdataPath("tokenizer/llama3"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  std::vector<int32_t> ids = (*tokenizer)->encode(prompt->text);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), (*tokenizer)->tokenToId("<|begin_of_text|>"));
  EXPECT_EQ(llvm::count(ids, *(*tokenizer)->tokenToId("<|eot_id|>")), 2);
  EXPECT_EQ(ids.back(), (*tokenizer)->tokenToId("\xC4\x8A\xC4\x8A"));
}

} // namespace
