//===- GenerationTest.cpp - the turn-by-turn generation loop --------------===//

#include "runtime/session/Generation.h"
#include "runtime/session/test/FakeRunner.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::session {
namespace {

using ::testing::ElementsAre;

class GenerationTest : public ::testing::Test {
protected:
  absl::Status generate(std::vector<Turn> &turns,
                        const GenerationLimits &limits) {
    return generateTurns(
        session, turns, limits,
        [&](absl::Span<const float> logits) {
          return session.pickGreedy(logits);
        },
        [&](const GeneratedToken &token) {
          seen.push_back({token.id, token.turn, token.step});
          EXPECT_EQ(token.logits.size(), 32u);
          return token.id != endingToken;
        });
  }

  struct Seen {
    int32_t id;
    size_t turn;
    int64_t step;
    bool operator==(const Seen &other) const {
      return id == other.id && turn == other.turn && step == other.step;
    }
  };

  ModelDims dims = getFakeDims();
  FakeRunner runner{dims};
  Session session{runner, dims};
  std::vector<Seen> seen;
  /// The sink ends the turn after this token.
  int32_t endingToken = -1;
};

TEST_F(GenerationTest, PlacedRowsFollowTheirTurnsIds) {
  // The second turn's placed row stands at its input id 0, which follows
  // the pending token; the fake predicts channel 0 plus one.
  Turn second;
  second.inputIds = {5};
  second.placed.positions = {0};
  second.placed.rows.assign(dims.hiddenSize, 20.0f);
  std::vector<Turn> turns = {{{1, 2}, {}, {}}, second};
  GenerationLimits limits;
  limits.maxNewTokens = 1;
  ASSERT_TRUE(generate(turns, limits).ok());
  EXPECT_THAT(turns[1].generated, ElementsAre(21));
  EXPECT_THAT(session.getTokens(), ElementsAre(1, 2, 3, 5));
}

TEST_F(GenerationTest, LaterTurnsStartWithThePendingToken) {
  std::vector<Turn> turns = {{{1, 2}, {}}, {{5}, {}}};
  GenerationLimits limits;
  limits.maxNewTokens = 3;
  ASSERT_TRUE(generate(turns, limits).ok());
  EXPECT_THAT(turns[0].generated, ElementsAre(3, 4, 5));
  EXPECT_THAT(turns[1].generated, ElementsAre(6, 7, 8));
  // The last token of a turn is fed with the next turn's prompt, and the
  // last token of all is never fed.
  EXPECT_THAT(session.getTokens(), ElementsAre(1, 2, 3, 4, 5, 5, 6, 7));
  EXPECT_THAT(seen, ElementsAre(Seen{3, 0, 0}, Seen{4, 0, 1}, Seen{5, 0, 2},
                                Seen{6, 1, 0}, Seen{7, 1, 1}, Seen{8, 1, 2}));
}

TEST_F(GenerationTest, StopTokenEndsTheTurn) {
  std::vector<Turn> turns = {{{1, 2}, {}}, {{5}, {}}};
  std::vector<int32_t> stop = {4};
  GenerationLimits limits;
  limits.maxNewTokens = 3;
  limits.stopTokens = stop;
  ASSERT_TRUE(generate(turns, limits).ok());
  EXPECT_THAT(turns[0].generated, ElementsAre(3, 4));
  EXPECT_THAT(turns[1].generated, ElementsAre(6, 7, 8));
  EXPECT_THAT(session.getTokens(), ElementsAre(1, 2, 3, 4, 5, 6, 7));
}

TEST_F(GenerationTest, SinkEndsTheTurn) {
  std::vector<Turn> turns = {{{1, 2}, {}}, {{5}, {}}};
  GenerationLimits limits;
  limits.maxNewTokens = 3;
  endingToken = 3;
  ASSERT_TRUE(generate(turns, limits).ok());
  EXPECT_THAT(turns[0].generated, ElementsAre(3));
  EXPECT_THAT(turns[1].generated, ElementsAre(6, 7, 8));
  EXPECT_THAT(session.getTokens(), ElementsAre(1, 2, 3, 5, 6, 7));
}

TEST_F(GenerationTest, OneTurnLeavesItsLastTokenUnfed) {
  std::vector<int32_t> generated;
  GenerationLimits limits;
  limits.maxNewTokens = 2;
  ASSERT_TRUE(generateTurn(
                  session, {1, 2}, 0, limits,
                  [&](absl::Span<const float> logits) {
                    return session.pickGreedy(logits);
                  },
                  [](const GeneratedToken &) { return true; }, generated)
                  .ok());
  EXPECT_THAT(generated, ElementsAre(3, 4));
  EXPECT_THAT(session.getTokens(), ElementsAre(1, 2, 3));
}

TEST_F(GenerationTest, ReportsErrors) {
  std::vector<Turn> turns = {{{1}, {}}};
  GenerationLimits limits;
  limits.maxNewTokens = 0;
  EXPECT_EQ(std::string(generate(turns, limits).message()),
            "at least one token must be generated");
  limits.maxNewTokens = 2;
  runner.failing = {"greedy_head"};
  EXPECT_EQ(std::string(generate(turns, limits).message()),
            "piece greedy_head: fails");
  EXPECT_TRUE(seen.empty());
}

} // namespace
} // namespace llmc::session
