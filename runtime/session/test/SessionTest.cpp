//===- SessionTest.cpp - scheduling a conversation onto pieces ------------===//

#include "runtime/session/Session.h"
#include "runtime/session/test/FakeRunner.h"

#include "pieces/Masks.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::session {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using top::Tensor;

/// Every piece one chunk of `phase` runs, for the two-layer fake.
std::vector<std::string> chunkPieces(std::string_view embed,
                                     std::string_view phase) {
  return {std::string(embed), "block.0." + std::string(phase),
          "block.1." + std::string(phase)};
}

std::vector<std::string>
concat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> all;
  for (const std::vector<std::string> &part : parts)
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

std::vector<int32_t> iota(int32_t first, int32_t count) {
  std::vector<int32_t> ids(count);
  for (int32_t i = 0; i < count; ++i)
    ids[i] = first + i;
  return ids;
}

/// The fake with shorter chunk lengths beside L = 4: 1 and 2.
ModelDims getChunkedDims() {
  ModelDims dims = getFakeDims();
  dims.prefillLengths = {1, 2};
  return dims;
}

/// The fake with a sliding window of 3 positions in its second layer.
ModelDims getWindowedDims() {
  ModelDims dims = getFakeDims();
  dims.layerWindows = {0, 3};
  return dims;
}

/// A session on a fake runner that records its calls.
template <ModelDims (*makeDims)()>
class RecordedSessionTest : public ::testing::Test {
protected:
  ModelDims dims = makeDims();
  FakeRunner runner{dims};
  Session session{runner, dims};

  /// The calls of `piece`, in order.
  std::vector<const RecordedCall *> callsOf(std::string_view piece) const {
    std::vector<const RecordedCall *> found;
    for (const RecordedCall &call : runner.calls)
      if (call.piece == piece)
        found.push_back(&call);
    return found;
  }
};

using SessionTest = RecordedSessionTest<getFakeDims>;
using ChunkLengthTest = RecordedSessionTest<getChunkedDims>;
using WindowTest = RecordedSessionTest<getWindowedDims>;

TEST_F(SessionTest, ShortPromptIsOnePrefill) {
  absl::StatusOr<std::vector<float>> logits = session.feed({7, 8, 9});
  ASSERT_TRUE(logits.ok()) << logits.status().message();
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.prefill", "prefill"), {"lm_head"}}));
  // Padded to L with id 0, positions from 0, the causal mask.
  const RecordedCall &embed = runner.calls[0];
  EXPECT_THAT(embed.inputs[0].getI32(), ElementsAre(7, 8, 9, 0));
  const RecordedCall &block = runner.calls[1];
  EXPECT_THAT(block.inputs[1].getI32(), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(block.inputs[2].getShape(), ElementsAre(1, 4, 4));
  EXPECT_THAT(block.inputs[2].getF32(),
              ElementsAreArray(pieces::buildPrefillMask(4)));
  EXPECT_EQ(block.inputs.size(), 3u);
  // lm_head sees the last real token (9), whose successor the fake predicts.
  EXPECT_EQ(runner.calls.back().inputs[0].getF32()[0], 9.0f);
  EXPECT_EQ(logits->size(), 32u);
  EXPECT_EQ((*logits)[10], 1.0f);
  EXPECT_EQ(session.getHistoryLength(), 3);
  EXPECT_THAT(session.getTokens(), ElementsAre(7, 8, 9));
}

TEST_F(SessionTest, LongPromptRunsInChunksOfL) {
  ASSERT_TRUE(session.feed(iota(1, 10)).ok());
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.prefill", "prefill"),
                    chunkPieces("embed.prefill", "prefill_kv"),
                    chunkPieces("embed.prefill", "prefill_kv"),
                    {"lm_head"}}));
  std::vector<const RecordedCall *> kv = callsOf("block.0.prefill_kv");
  ASSERT_EQ(kv.size(), 2u);
  // The second chunk starts at position 4, the third at 8 with two tokens.
  EXPECT_THAT(kv[0]->inputs[1].getI32(), ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(kv[1]->inputs[1].getI32(), ElementsAre(8, 9, 10, 11));
  EXPECT_THAT(callsOf("embed.prefill")[2]->inputs[0].getI32(),
              ElementsAre(9, 10, 0, 0));
  // prefill_kv reads S - L = 12 history slots and sees the valid ones.
  EXPECT_THAT(kv[1]->inputs[2].getShape(), ElementsAre(1, 4, 16));
  EXPECT_THAT(kv[1]->inputs[2].getF32(),
              ElementsAreArray(pieces::buildPrefillKVMask(4, 12, 8)));
  EXPECT_THAT(kv[1]->inputs[3].getShape(), ElementsAre(1, 12, 2, 3));
  EXPECT_EQ(runner.calls.back().inputs[0].getF32()[0], 10.0f);
  EXPECT_EQ(session.getHistoryLength(), 10);
}

TEST_F(SessionTest, CacheHoldsEveryTokenInItsSlot) {
  ASSERT_TRUE(session.feed({5, 6, 7, 8}).ok());
  ASSERT_TRUE(session.feed({20}).ok());
  // The decode of token 20 (position 4) reads the S-slot cache: keys hold
  // position + 1 and values id + 1 for the four cached tokens, then zeros.
  std::vector<const RecordedCall *> decode = callsOf("block.1.decode");
  ASSERT_EQ(decode.size(), 1u);
  const std::vector<Tensor> &inputs = decode[0]->inputs;
  ASSERT_EQ(inputs.size(), 5u);
  EXPECT_THAT(inputs[1].getI32(), ElementsAre(4));
  EXPECT_THAT(inputs[2].getF32(),
              ElementsAreArray(pieces::buildDecodeMask(16, 4)));
  EXPECT_THAT(inputs[3].getShape(), ElementsAre(1, 16, 2, 3));
  int64_t row = dims.getKvRowSize();
  absl::Span<const float> keys = inputs[3].getF32(),
                          values = inputs[4].getF32();
  for (int64_t slot = 0; slot < 16; ++slot) {
    float key = slot < 4 ? static_cast<float>(slot + 1) : 0.0f;
    float value = slot < 4 ? static_cast<float>(slot + 6) : 0.0f;
    EXPECT_EQ(keys[slot * row], key) << "slot " << slot;
    EXPECT_EQ(values[slot * row + row - 1], value) << "slot " << slot;
  }
  // The next token sees token 20's keys and values in slot 4.
  ASSERT_TRUE(session.feed({21}).ok());
  const RecordedCall *next = callsOf("block.0.decode")[1];
  EXPECT_EQ(next->inputs[3].getF32()[4 * row], 5.0f);
  EXPECT_EQ(next->inputs[4].getF32()[4 * row], 21.0f);
  EXPECT_EQ(session.getHistoryLength(), 6);
}

TEST_F(SessionTest, LaterTurnGoesThroughPrefillKV) {
  ASSERT_TRUE(session.feed({1, 2, 3}).ok());
  runner.calls.clear();
  ASSERT_TRUE(session.feed({4, 5}).ok());
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.prefill", "prefill_kv"), {"lm_head"}}));
  EXPECT_THAT(runner.calls[1].inputs[1].getI32(), ElementsAre(3, 4, 5, 6));
  EXPECT_EQ(runner.calls.back().inputs[0].getF32()[0], 5.0f);
}

TEST_F(SessionTest, PromptAfterLongHistoryGoesThroughDecode) {
  // 13 tokens of history exceed prefill_kv's S - L = 12 slots.
  ASSERT_TRUE(session.feed(iota(1, 13)).ok());
  runner.calls.clear();
  ASSERT_TRUE(session.feed({20, 21}).ok());
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.decode", "decode"),
                    chunkPieces("embed.decode", "decode"),
                    {"lm_head"}}));
  EXPECT_EQ(session.getHistoryLength(), 15);
}

TEST_F(SessionTest, PickGreedyRunsTheGreedyHead) {
  absl::StatusOr<std::vector<float>> logits = session.feed({3});
  ASSERT_TRUE(logits.ok());
  absl::StatusOr<int32_t> token = session.pickGreedy(*logits);
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(*token, 4);
  EXPECT_EQ(runner.calls.back().piece, "greedy_head");
  EXPECT_THAT(runner.calls.back().inputs[0].getShape(), ElementsAre(1, 32));
}

TEST_F(SessionTest, RejectsTooLongConversationBeforeRunning) {
  ASSERT_TRUE(session.feed(iota(1, 10)).ok());
  runner.calls.clear();
  absl::StatusOr<std::vector<float>> logits = session.feed(iota(1, 7));
  ASSERT_FALSE(logits.ok());
  std::optional<CacheCapacity> capacity = getCacheCapacity(logits.status());
  ASSERT_TRUE(capacity.has_value());
  EXPECT_TRUE(absl::IsResourceExhausted(logits.status()));
  EXPECT_EQ(capacity->needed, 17);
  EXPECT_EQ(capacity->capacity, 16);
  EXPECT_EQ(logits.status().message(), "the conversation needs 17 tokens but "
                                       "the KV cache holds 16");
  EXPECT_FALSE(getCacheCapacity(session.feed({}).status()).has_value());
  EXPECT_TRUE(runner.calls.empty());
  EXPECT_EQ(session.getHistoryLength(), 10);
}

TEST_F(SessionTest, RejectsBadTokens) {
  absl::StatusOr<std::vector<float>> empty = session.feed({});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(std::string(empty.status().message()),
            "nothing to feed: the prompt is empty");
  absl::StatusOr<std::vector<float>> outside = session.feed({1, 32});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(std::string(outside.status().message()),
            "token id 32 is outside the vocabulary [0, 32)");
  EXPECT_TRUE(runner.calls.empty());
}

TEST_F(SessionTest, PlacedRowsReplaceTheirTokensEmbeddings) {
  // Positions 1, 4 and 5 of six tokens: one in the prefill chunk, two in
  // the prefill_kv chunk after it.
  PlacedEmbeddings placed;
  placed.positions = {1, 4, 5};
  for (float row : {100.0f, 200.0f, 300.0f})
    placed.rows.insert(placed.rows.end(), dims.hiddenSize, row);
  ASSERT_TRUE(session.feed(iota(1, 6), &placed).ok());
  absl::Span<const float> first =
      callsOf("block.0.prefill")[0]->inputs[0].getF32();
  absl::Span<const float> second =
      callsOf("block.0.prefill_kv")[0]->inputs[0].getF32();
  int64_t width = dims.hiddenSize;
  EXPECT_THAT(first.subspan(0, width), ElementsAre(1, 0, 0, 0, 0));
  EXPECT_THAT(first.subspan(width, width),
              ElementsAre(100, 100, 100, 100, 100));
  EXPECT_THAT(first.subspan(2 * width, width), ElementsAre(3, 0, 0, 0, 0));
  EXPECT_THAT(second.subspan(0, width), ElementsAre(200, 200, 200, 200, 200));
  EXPECT_THAT(second.subspan(width, width),
              ElementsAre(300, 300, 300, 300, 300));
  // The token ids stay in the conversation.
  EXPECT_THAT(session.getTokens(), ElementsAreArray(iota(1, 6)));
}

TEST_F(SessionTest, RejectsPlacedRowsThatDoNotFit) {
  PlacedEmbeddings outside;
  outside.positions = {3};
  outside.rows.assign(dims.hiddenSize, 1.0f);
  absl::StatusOr<std::vector<float>> logits = session.feed({1, 2, 3}, &outside);
  ASSERT_FALSE(logits.ok());
  EXPECT_THAT(std::string(logits.status().message()),
              HasSubstr("position 3 is out of order or outside the 3 tokens"));
  PlacedEmbeddings tooFew;
  tooFew.positions = {0, 1};
  tooFew.rows.assign(dims.hiddenSize, 1.0f);
  logits = session.feed({1, 2, 3}, &tooFew);
  ASSERT_FALSE(logits.ok());
  EXPECT_EQ(std::string(logits.status().message()),
            "the placed embeddings hold 5 values, not 2 rows of 5");
  EXPECT_TRUE(runner.calls.empty());
}

TEST_F(SessionTest, TruncateContinuesFromAPrefix) {
  ASSERT_TRUE(session.feed({1, 2, 3, 4, 5}).ok());
  session.truncate(3);
  EXPECT_THAT(session.getTokens(), ElementsAre(1, 2, 3));
  runner.calls.clear();
  ASSERT_TRUE(session.feed({9}).ok());
  // Token 9 takes position 3 and sees the three kept tokens only.
  const RecordedCall *decode = callsOf("block.0.decode")[0];
  EXPECT_THAT(decode->inputs[1].getI32(), ElementsAre(3));
  EXPECT_THAT(decode->inputs[2].getF32(),
              ElementsAreArray(pieces::buildDecodeMask(16, 3)));
  EXPECT_THAT(session.getTokens(), ElementsAre(1, 2, 3, 9));
}

TEST_F(SessionTest, TruncateResendsTheHistoryARunnerKept) {
  // The decode piece last held rows of tokens 4 and 5; after truncating to
  // three tokens and feeding two more through prefill_kv, it must not take
  // its old rows for the new tokens'.
  runner.keepHistory = true;
  ASSERT_TRUE(session.feed({1, 2, 3, 4}).ok());
  ASSERT_TRUE(session.feed({5}).ok());
  ASSERT_TRUE(session.feed({6}).ok());
  session.truncate(3);
  ASSERT_TRUE(session.feed({7, 8}).ok());
  runner.calls.clear();
  ASSERT_TRUE(session.feed({9}).ok());
  const RecordedCall *decode = callsOf("block.0.decode")[0];
  EXPECT_EQ(decode->historyFrom, 0);
  int64_t row = dims.getKvRowSize();
  // Slot 3 holds token 7 (value id + 1), not the forgotten token 4.
  EXPECT_EQ(decode->inputs[4].getF32()[3 * row], 8.0f);
}

TEST_F(SessionTest, PropagatesPieceErrors) {
  runner.failing = {"block.1.prefill"};
  absl::StatusOr<std::vector<float>> logits = session.feed({1, 2});
  ASSERT_FALSE(logits.ok());
  EXPECT_EQ(std::string(logits.status().message()),
            "piece block.1.prefill: fails");
}

TEST_F(SessionTest, ResetForgetsTheConversation) {
  ASSERT_TRUE(session.feed({1, 2}).ok());
  session.reset();
  EXPECT_EQ(session.getHistoryLength(), 0);
  runner.calls.clear();
  ASSERT_TRUE(session.feed({3}).ok());
  EXPECT_EQ(runner.calls[0].piece, "embed.prefill");
}

TEST_F(SessionTest, RunnerKeepingHistoryGetsOnlyTheRowsItLacks) {
  runner.keepHistory = true;
  ASSERT_TRUE(session.feed({5, 6, 7, 8}).ok());
  ASSERT_TRUE(session.feed({20}).ok());
  ASSERT_TRUE(session.feed({21}).ok());
  std::vector<const RecordedCall *> decode = callsOf("block.0.decode");
  ASSERT_EQ(decode.size(), 2u);
  // The first decode gets the four prompt rows, the next only token 20's.
  EXPECT_EQ(decode[0]->historyFrom, 0);
  EXPECT_THAT(decode[0]->inputs[3].getShape(), ElementsAre(1, 4, 2, 3));
  EXPECT_EQ(decode[1]->historyFrom, 4);
  EXPECT_THAT(decode[1]->inputs[3].getShape(), ElementsAre(1, 1, 2, 3));
  EXPECT_EQ(decode[1]->inputs[3].getF32()[0], 5.0f);
  EXPECT_EQ(decode[1]->inputs[4].getF32()[0], 21.0f);
}

TEST_F(SessionTest, ResetAndOtherSessionsResendTheHistory) {
  runner.keepHistory = true;
  ASSERT_TRUE(session.feed({5, 6}).ok());
  ASSERT_TRUE(session.feed({7}).ok());
  // Another conversation on the same runner overwrites what it kept.
  Session other(runner, dims);
  ASSERT_TRUE(other.feed({9, 9, 9}).ok());
  ASSERT_TRUE(other.feed({9}).ok());
  ASSERT_TRUE(session.feed({8}).ok());
  EXPECT_EQ(callsOf("block.0.decode").back()->historyFrom, 0);
  EXPECT_THAT(callsOf("block.0.decode").back()->inputs[3].getShape(),
              ElementsAre(1, 3, 2, 3));
  session.reset();
  ASSERT_TRUE(session.feed({1, 2}).ok());
  ASSERT_TRUE(session.feed({3}).ok());
  EXPECT_EQ(callsOf("block.0.decode").back()->historyFrom, 0);
}

TEST_F(ChunkLengthTest, ShortPromptRunsInTheShortestChunkThatHoldsIt) {
  ASSERT_TRUE(session.feed({7, 8}).ok());
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.prefill.2", "prefill.2"), {"lm_head"}}));
  // No padding: two ids, two positions, a 2 x 2 causal mask.
  EXPECT_THAT(runner.calls[0].inputs[0].getI32(), ElementsAre(7, 8));
  EXPECT_THAT(runner.calls[1].inputs[1].getI32(), ElementsAre(0, 1));
  EXPECT_THAT(runner.calls[1].inputs[2].getF32(),
              ElementsAreArray(pieces::buildPrefillMask(2)));
  runner.calls.clear();
  // Three tokens need L; one token after history is a decode step.
  ASSERT_TRUE(session.feed({1, 2, 3}).ok());
  ASSERT_TRUE(session.feed({4}).ok());
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.prefill", "prefill_kv"), {"lm_head"},
                    chunkPieces("embed.decode", "decode"), {"lm_head"}}));
  EXPECT_EQ(session.getHistoryLength(), 6);
}

TEST_F(ChunkLengthTest, LaterTurnRunsItsOwnLengthAgainstMoreHistory) {
  ASSERT_TRUE(session.feed(iota(1, 4)).ok());
  runner.calls.clear();
  ASSERT_TRUE(session.feed({20, 21}).ok());
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.prefill.2", "prefill_kv.2"),
                    {"lm_head"}}));
  // prefill_kv.2 reads S - 2 = 14 history slots, of which 4 hold tokens.
  const RecordedCall &block = runner.calls[1];
  EXPECT_THAT(block.inputs[1].getI32(), ElementsAre(4, 5));
  EXPECT_THAT(block.inputs[2].getF32(),
              ElementsAreArray(pieces::buildPrefillKVMask(2, 14, 4)));
  EXPECT_THAT(block.inputs[3].getShape(), ElementsAre(1, 14, 2, 3));
}

TEST_F(ChunkLengthTest, HistoryBeyondLsPrefillKVTakesAShorterChunk) {
  // 13 tokens of history exceed the S - L = 12 slots of prefill_kv but fit
  // prefill_kv.2's 14: of three new tokens, two run there and the last
  // through decode.
  ASSERT_TRUE(session.feed(iota(1, 12)).ok());
  ASSERT_TRUE(session.feed({1}).ok());
  runner.calls.clear();
  ASSERT_TRUE(session.feed({20, 21, 22}).ok());
  EXPECT_EQ(runner.getPieceNames(),
            concat({chunkPieces("embed.prefill.2", "prefill_kv.2"),
                    chunkPieces("embed.decode", "decode"), {"lm_head"}}));
  EXPECT_EQ(session.getHistoryLength(), 16);
}

TEST(ModelDimsTest, Validate) {
  ModelDims dims = getFakeDims();
  EXPECT_TRUE(dims.validate().ok());
  dims.maxInputLength = 17;
  EXPECT_EQ(std::string(dims.validate().message()),
            "max_input_length (17) exceeds seq_length (16)");
  dims = getFakeDims();
  dims.headDim = 0;
  EXPECT_EQ(std::string(dims.validate().message()),
            "model size head_dim must be positive, not 0");
  dims = getFakeDims();
  dims.prefillLengths = {2, 4};
  EXPECT_EQ(std::string(dims.validate().message()),
            "prefill length 4 is outside [1, 4): every one must be shorter "
            "than the max input length");
}

TEST(ModelDimsTest, RefusesSizesBeyondTheLimits) {
  ModelDims dims = getFakeDims();
  dims.seqLength = int64_t(1) << 40;
  EXPECT_EQ(std::string(dims.validate().message()),
            "model size seq_length (1099511627776) exceeds llmc's limit of "
            "4194304");
  dims = getFakeDims();
  dims.vocabSize = INT64_MAX;
  EXPECT_THAT(std::string(dims.validate().message()),
              HasSubstr("vocab_size (9223372036854775807) exceeds"));
}

TEST(ModelDimsTest, RefusesAKvCacheLargerThanTheMachine) {
  // Within every limit, 2 x 4096 layers x 2^22 slots x 2^12 x 4 bytes is
  // 2^49 bytes (512 TiB), which no machine has.
  ModelDims dims = getFakeDims();
  dims.numLayers = ModelDims::kMaxLayers;
  dims.seqLength = ModelDims::kMaxSeqLength;
  dims.numKvHeads = 1;
  dims.headDim = ModelDims::kMaxHeadDim;
  EXPECT_EQ(dims.getHostKvCacheBytes(), uint64_t(1) << 49);
  EXPECT_THAT(std::string(dims.validate().message()),
              HasSubstr("the KV cache of seq_length 4194304 (4096 layers) "
                        "would take 562949953421312 bytes, more than this "
                        "machine's memory"));
}

/// Every phase's mask in a windowed layer is the windowed one for the query
/// positions it runs; the other layer sees the whole context.
TEST_F(WindowTest, EveryPhaseMasksPastTheWindow) {
  ASSERT_TRUE(session.feed(iota(1, 6)).ok());
  ASSERT_TRUE(session.feed({20}).ok());
  std::vector<const RecordedCall *> prefill = callsOf("block.1.prefill");
  std::vector<const RecordedCall *> kv = callsOf("block.1.prefill_kv");
  std::vector<const RecordedCall *> decode = callsOf("block.1.decode");
  ASSERT_EQ(prefill.size(), 1u);
  ASSERT_EQ(kv.size(), 1u);
  ASSERT_EQ(decode.size(), 1u);
  EXPECT_THAT(prefill[0]->inputs[2].getF32(),
              ElementsAreArray(pieces::buildPrefillMask(4, 3)));
  EXPECT_THAT(kv[0]->inputs[2].getF32(),
              ElementsAreArray(pieces::buildPrefillKVMask(4, 12, 4, 3)));
  EXPECT_THAT(decode[0]->inputs[2].getF32(),
              ElementsAreArray(pieces::buildDecodeMask(16, 6, 3)));
  // The decode at position 6 sees slots 4 and 5 and itself, nothing older.
  absl::Span<const float> mask = decode[0]->inputs[2].getF32();
  EXPECT_EQ(mask[3], pieces::kMaskedScore);
  EXPECT_EQ(mask[4], 0.0f);
  EXPECT_THAT(callsOf("block.0.prefill_kv")[0]->inputs[2].getF32(),
              ElementsAreArray(pieces::buildPrefillKVMask(4, 12, 4)));
  EXPECT_THAT(callsOf("block.0.decode")[0]->inputs[2].getF32(),
              ElementsAreArray(pieces::buildDecodeMask(16, 6)));
}

} // namespace
} // namespace llmc::session
