//===- ModelTest.cpp - loading a binary and generating from it ------------===//

#include "runtime/api/test/TestModels.h"
#include "runtime/device/BinaryRunner.h"
#include "runtime/llmc.h"
#include "runtime/tokenizer/Tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

class ModelTest : public ::testing::Test {
protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Model>> loaded =
        Model::load(test::getDemoBinary());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    model = std::move(*loaded);
  }

  /// Greedy options for `tokens` tokens that ignore stop tokens.
  static GenerateOptions exactly(int64_t tokens) {
    GenerateOptions options;
    options.maxNewTokens = tokens;
    options.stopAtStopTokens = false;
    return options;
  }

  std::unique_ptr<Model> model;
};

TEST_F(ModelTest, DescribesTheBinary) {
  EXPECT_EQ(model->getManifest().chip(), "bm1684x");
  ASSERT_NE(model->getTokenizer(), nullptr);
  EXPECT_EQ(model->getTokenizer()->vocabSize(), 4096);
  EXPECT_EQ(model->getDims().seqLength, 512);
  // The checkpoint's ChatML template, with the default system message it
  // writes out.
  EXPECT_EQ(model->getChatTemplate().getFormat(), chat::ChatFormat::ChatML);
  EXPECT_EQ(model->getChatTemplate().getDefaultSystemPrompt(),
            "You are a helpful assistant.");
  // <|endoftext|> from the generation config, <|im_end|> from the template.
  EXPECT_THAT(model->getStopTokens(), Contains(4093));
  EXPECT_THAT(model->getStopTokens(), Contains(4095));
  EXPECT_EQ(model->getDefaultMaxNewTokens(), 512);
}

TEST_F(ModelTest, StreamsTheTextOfEachToken) {
  std::vector<int32_t> seen;
  std::string streamed;
  absl::StatusOr<GenerateResult> result =
      model->generate("A computer is like", exactly(12),
                      [&](int32_t id, std::string_view text) {
                        seen.push_back(id);
                        streamed += text;
                        return true;
                      });
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->ids.size(), 12u);
  EXPECT_EQ(result->ids, seen);
  EXPECT_EQ(result->finish, FinishReason::MaxTokens);
  EXPECT_EQ(streamed, result->text);
  EXPECT_EQ(result->text,
            model->getTokenizer()->decode(result->ids, /*skipSpecial=*/true));
  EXPECT_EQ(result->promptIds,
            model->getTokenizer()->encode("A computer is like", true));
  EXPECT_TRUE(result->logits.empty());

  const GenerateTimings &timings = result->timings;
  EXPECT_EQ(timings.promptTokens,
            static_cast<int64_t>(result->promptIds.size()));
  EXPECT_EQ(timings.decodeTokens, 11);
  EXPECT_GT(timings.firstTokenSeconds, 0);
  EXPECT_GT(timings.promptModelledSeconds, 0);
  EXPECT_GT(timings.getHostTokensPerSecond(), 0);
  // The time model's decode step, as `llmc convert` reports it, is far
  // below a millisecond for this model.
  EXPECT_GT(timings.getModelledTokensPerSecond(), 1000);
}

TEST_F(ModelTest, TextAndIdsGenerateTheSame) {
  GenerateOptions options = exactly(6);
  options.keepLogits = true;
  absl::StatusOr<GenerateResult> fromText =
      model->generate("Q: What is the meaning of life?", options);
  ASSERT_TRUE(fromText.ok()) << fromText.status().message();
  absl::StatusOr<GenerateResult> fromIds =
      model->generate(absl::Span<const int32_t>(fromText->promptIds), options);
  ASSERT_TRUE(fromIds.ok()) << fromIds.status().message();
  EXPECT_EQ(fromText->ids, fromIds->ids);
  EXPECT_EQ(fromText->logits, fromIds->logits);
  EXPECT_EQ(fromIds->logits.size(), 6u * 4096u);
}

TEST_F(ModelTest, CallbackEndsTheTurn) {
  int calls = 0;
  absl::StatusOr<GenerateResult> result =
      model->generate("A computer is like", exactly(20),
                      [&](int32_t, std::string_view) { return ++calls < 3; });
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(result->ids.size(), 3u);
  EXPECT_EQ(result->finish, FinishReason::Callback);
}

TEST_F(ModelTest, EndsAtAStopToken) {
  // The first Chinese line of a poem ends, then the model writes the
  // attribution and <|endoftext|>; greedy decoding reaches it well within
  // the cache.
  absl::StatusOr<GenerateResult> result = model->generate("床前明月光，");
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->finish, FinishReason::StopToken);
  EXPECT_THAT(model->getStopTokens(), Contains(result->ids.back()));
  EXPECT_THAT(result->text, ::testing::Not(HasSubstr("<|endoftext|>")));
}

TEST_F(ModelTest, SamplingIsReproducibleAndGreedyMatchesTheDevice) {
  GenerateOptions sampled = exactly(10);
  sampled.sampling.emplace();
  sampled.sampling->temperature = 0.9f;
  sampled.sampling->topK = 40;
  sampled.sampling->seed = 7;
  absl::StatusOr<GenerateResult> first = model->generate("A computer", sampled);
  absl::StatusOr<GenerateResult> second =
      model->generate("A computer", sampled);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->ids, second->ids);

  GenerateOptions hostGreedy = exactly(10);
  hostGreedy.sampling.emplace();
  hostGreedy.sampling->greedy = true;
  absl::StatusOr<GenerateResult> host =
      model->generate("A computer", hostGreedy);
  absl::StatusOr<GenerateResult> device =
      model->generate("A computer", exactly(10));
  ASSERT_TRUE(host.ok() && device.ok());
  EXPECT_EQ(host->ids, device->ids);

  sampled.sampling->temperature = -1;
  absl::StatusOr<GenerateResult> invalid =
      model->generate("A computer", sampled);
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(invalid.status().message(), HasSubstr("temperature"));
}

TEST_F(ModelTest, RejectsPromptsItCannotRun) {
  absl::StatusOr<GenerateResult> empty =
      model->generate(absl::Span<const int32_t>(), exactly(2));
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("no tokens"));

  std::vector<int32_t> tooLong(513, 65);
  absl::StatusOr<GenerateResult> overflow =
      model->generate(absl::Span<const int32_t>(tooLong), exactly(2));
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(),
            "the conversation needs 513 tokens but the KV cache holds 512");

  std::vector<int32_t> outside = {4096};
  absl::StatusOr<GenerateResult> bad =
      model->generate(absl::Span<const int32_t>(outside), exactly(2));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("outside the vocabulary"));
}

//===----------------------------------------------------------------------===//
// Binaries that do not load
//===----------------------------------------------------------------------===//

/// The message of loading `path`, or "" when it loads.
std::string loadError(std::string_view path) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::load(path);
  return model.ok() ? "" : std::string(model.status().message());
}

TEST(ModelLoadTest, MissingTruncatedAndCorruptFilesFail) {
  std::string binary = test::getDemoBinary();
  std::string scratch = test::makeScratchDirectory();
  EXPECT_THAT(loadError(scratch + "/none.llmc"), HasSubstr("none.llmc"));

  std::unique_ptr<llvm::MemoryBuffer> bytes =
      std::move(*llvm::MemoryBuffer::getFile(binary));
  std::string truncated = scratch + "/truncated.llmc";
  std::string corrupt = scratch + "/corrupt.llmc";
  {
    std::error_code error;
    llvm::raw_fd_ostream(truncated, error)
        << bytes->getBuffer().take_front(bytes->getBufferSize() / 2);
    std::string flipped = bytes->getBuffer().str();
    flipped[flipped.size() / 2] ^= 0x10;
    llvm::raw_fd_ostream(corrupt, error) << flipped;
  }
  EXPECT_THAT(loadError(truncated), HasSubstr("truncated"));
  EXPECT_THAT(loadError(corrupt), HasSubstr("checksum mismatch"));
}

TEST(ModelLoadTest, UnknownChipFails) {
  std::string other = test::makeScratchDirectory() + "/other.llmc";
  ASSERT_FALSE(static_cast<bool>(
      test::rewriteChip(test::getDemoBinary(), other, "npu2077")));
  std::string message = loadError(other);
  EXPECT_THAT(message, HasSubstr("other.llmc"));
  EXPECT_THAT(message, HasSubstr("unknown chip 'npu2077'"));
}

TEST(ModelLoadTest, WithoutATokenizerOnlyIdsWork) {
  // The demo checkpoint without tokenizer.json gives a binary without one.
  std::string scratch = test::makeScratchDirectory();
  std::string checkpoint = scratch + "/bare";
  ASSERT_FALSE(llvm::sys::fs::create_directory(checkpoint));
  for (const char *name :
       {"config.json", "generation_config.json", "model.safetensors"})
    ASSERT_FALSE(llvm::sys::fs::create_link(
        test::getDemoCheckpoint() + "/" + name, checkpoint + "/" + name));
  test::ConvertRequest request;
  request.checkpoint = checkpoint;
  std::string binary = scratch + "/bare.llmc";
  llvm::Error converted = test::convertForTest(request, binary);
  ASSERT_FALSE(static_cast<bool>(converted))
      << llvm::toString(std::move(converted));

  std::unique_ptr<Model> model = Model::load(binary).value();
  EXPECT_EQ(model->getTokenizer(), nullptr);
  absl::StatusOr<std::unique_ptr<ChatSession>> chat = model->startChat();
  ASSERT_FALSE(chat.ok());
  EXPECT_THAT(chat.status().message(), HasSubstr("holds no tokenizer"));
  absl::StatusOr<GenerateResult> text = model->generate("A computer");
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("holds no tokenizer"));
  std::vector<int32_t> ids = {65, 1651, 321, 701};
  GenerateOptions options;
  options.maxNewTokens = 4;
  absl::StatusOr<GenerateResult> fromIds =
      model->generate(absl::Span<const int32_t>(ids), options);
  ASSERT_TRUE(fromIds.ok()) << fromIds.status().message();
  EXPECT_EQ(fromIds->text, "");
}

} // namespace
} // namespace llmc
