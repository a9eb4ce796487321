//===- ConversationTest.cpp - turns on one KV cache -----------------------===//
//
// A later turn runs through prefill_kv after the history kept in the cache;
// it must generate what one prompt holding the whole conversation does.
//
//===----------------------------------------------------------------------===//

#include "runtime/api/test/TestModels.h"
#include "runtime/llmc.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc {
namespace {

using ::testing::ElementsAreArray;

GenerateOptions exactly(int64_t tokens) {
  GenerateOptions options;
  options.maxNewTokens = tokens;
  options.stopAtStopTokens = false;
  return options;
}

std::unique_ptr<Model> loadDemo(int64_t seqLength = 512,
                                int64_t maxInputLength = 128) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::load(test::getDemoBinary(seqLength, maxInputLength));
  if (!model.ok()) {
    ADD_FAILURE() << model.status().message();
    return nullptr;
  }
  return std::move(*model);
}

TEST(ConversationTest, LaterTurnMatchesTheWholeConversationAtOnce) {
  std::unique_ptr<Model> model = loadDemo();
  ASSERT_TRUE(model);
  std::vector<int32_t> first =
      model->encode("Q: What is the meaning of life?\nA:", false).value();
  std::vector<int32_t> second =
      model->encode("\nQ: And what is a computer?\nA:", false).value();

  std::unique_ptr<Conversation> conversation = model->startConversation();
  absl::StatusOr<GenerateResult> one = conversation->send(first, exactly(8));
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(conversation->getPendingToken(), one->ids.back());
  absl::StatusOr<GenerateResult> two = conversation->send(second, exactly(8));
  ASSERT_TRUE(two.ok()) << two.status().message();
  // The first turn's last token is fed before the second prompt.
  EXPECT_EQ(two->promptIds.front(), one->ids.back());
  EXPECT_EQ(two->timings.promptTokens, static_cast<int64_t>(second.size()) + 1);

  std::vector<int32_t> whole = first;
  whole.insert(whole.end(), one->ids.begin(), one->ids.end());
  whole.insert(whole.end(), second.begin(), second.end());
  std::vector<int32_t> fed = whole;
  fed.insert(fed.end(), two->ids.begin(), two->ids.end() - 1);
  EXPECT_THAT(conversation->getTokens(), ElementsAreArray(fed));

  absl::StatusOr<GenerateResult> atOnce =
      model->generate(absl::Span<const int32_t>(whole), exactly(8));
  ASSERT_TRUE(atOnce.ok()) << atOnce.status().message();
  EXPECT_EQ(two->ids, atOnce->ids);
}

TEST(ConversationTest, DroppedPendingTokenIsNeverFed) {
  std::unique_ptr<Model> model = loadDemo();
  ASSERT_TRUE(model);
  std::unique_ptr<Conversation> conversation = model->startConversation();
  std::vector<int32_t> prompt = model->encode("A computer", false).value();
  ASSERT_TRUE((conversation->send(prompt, exactly(3))).ok());
  absl::StatusOr<GenerateResult> next = conversation->send(
      prompt, exactly(1), /*callback=*/{}, PendingToken::Drop);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->promptIds, prompt);
  EXPECT_EQ(conversation->getHistoryLength(),
            static_cast<int64_t>(2 * prompt.size() + 2));
}

TEST(ConversationTest, CacheOverflowIsRefusedOrEndsTheTurn) {
  // S = 64, L = 16: prompts of more than 16 tokens run in chunks.
  std::unique_ptr<Model> model = loadDemo(64, 16);
  ASSERT_TRUE(model);
  std::unique_ptr<Conversation> conversation = model->startConversation();
  std::vector<int32_t> prompt(40, 65);
  absl::StatusOr<GenerateResult> first =
      conversation->send(prompt, exactly(100));
  ASSERT_TRUE(first.ok()) << first.status().message();
  // 40 prompt tokens, then 25 generated of which all but the last are fed:
  // the cache is full.
  EXPECT_EQ(first->finish, FinishReason::CacheFull);
  EXPECT_EQ(first->ids.size(), 25u);
  EXPECT_EQ(conversation->getHistoryLength(), 64);

  absl::StatusOr<GenerateResult> refused = conversation->send({65});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "the conversation needs 66 tokens but the KV cache holds 64");
  EXPECT_EQ(conversation->getHistoryLength(), 64);

  conversation->reset();
  EXPECT_EQ(conversation->getHistoryLength(), 0);
  EXPECT_FALSE(conversation->getPendingToken());
  EXPECT_TRUE((conversation->send(prompt, exactly(2))).ok());
}

} // namespace
} // namespace llmc
