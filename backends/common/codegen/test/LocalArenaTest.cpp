//===- LocalArenaTest.cpp - local-memory allocation for codegen -----------===//

#include "backends/common/codegen/LocalArena.h"

#include "gtest/gtest.h"

using namespace llmc::codegen;

namespace {

TEST(LocalArenaTest, PinnedBuffersComeFromTheTopAndShrinkTheRing) {
  LocalArena arena(4096, 64);
  llvm::Expected<uint64_t> pinned = arena.pin(100);
  ASSERT_TRUE(static_cast<bool>(pinned));
  EXPECT_EQ(*pinned, 4096u - 128);
  EXPECT_EQ(arena.ringCapacity(), 4096u - 128);
  arena.beginOp();
  EXPECT_EQ(arena.ringCapacity(), 4096u);
}

TEST(LocalArenaTest, TheRingWrapsAndKeepsItsPositionAcrossOps) {
  LocalArena arena(1024, 64);
  EXPECT_EQ(llvm::cantFail(arena.ring(300)), 0u);
  EXPECT_EQ(llvm::cantFail(arena.ring(300)), 320u);
  arena.beginOp();
  EXPECT_EQ(llvm::cantFail(arena.ring(300)), 640u);
  // 960 + 320 > 1024: back to the start.
  EXPECT_EQ(llvm::cantFail(arena.ring(300)), 0u);
}

TEST(LocalArenaTest, PeekingShowsTheNextTileWithoutTakingIt) {
  LocalArena arena(1024, 64);
  EXPECT_EQ(arena.peekRing(300), std::optional<uint64_t>(0));
  EXPECT_EQ(arena.peekRing(300), std::optional<uint64_t>(0));
  EXPECT_EQ(llvm::cantFail(arena.ring(300)), 0u);
  EXPECT_EQ(arena.peekRing(600), std::optional<uint64_t>(320));
  // 320 + 704 fills the lane exactly; one byte more wraps to the start.
  EXPECT_EQ(arena.peekRing(704), std::optional<uint64_t>(320));
  EXPECT_EQ(arena.peekRing(705), std::optional<uint64_t>(0));
  EXPECT_EQ(arena.peekRing(2048), std::nullopt);
}

TEST(LocalArenaTest, OversizedRequestsFail) {
  LocalArena arena(1024, 64);
  llvm::Expected<uint64_t> tile = arena.ring(2048);
  EXPECT_FALSE(static_cast<bool>(tile));
  llvm::consumeError(tile.takeError());
  // Pinning may not leave less than a quarter of the lane for streaming.
  llvm::Expected<uint64_t> pinned = arena.pin(800);
  ASSERT_FALSE(static_cast<bool>(pinned));
  EXPECT_NE(llvm::toString(pinned.takeError()).find("too little"),
            std::string::npos);
}

} // namespace
