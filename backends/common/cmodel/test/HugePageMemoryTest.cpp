//===- HugePageMemoryTest.cpp - zeroed and copied huge-page memory --------===//

#include "backends/common/cmodel/HugePageMemory.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <vector>

using namespace llmc;
using ::testing::Each;

namespace {

constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

TEST(HugePageMemoryTest, AllocatesAlignedZeros) {
  std::unique_ptr<cmodel::HugePageMemory> memory =
      cmodel::HugePageMemory::allocate((size_t(3) << 20) + 5);
  ASSERT_TRUE(memory);
  absl::Span<uint8_t> bytes = memory->bytes();
  EXPECT_EQ(bytes.size(), (size_t(3) << 20) + 5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes.data()) % kHugePage, 0u);
  EXPECT_THAT(bytes, Each(0));
  bytes.back() = 7;
  EXPECT_EQ(memory->bytes().back(), 7);
  EXPECT_FALSE(cmodel::HugePageMemory::allocate(0));
}

TEST(HugePageMemoryTest, CopiesOntoAlignedMemory) {
  std::vector<uint8_t> bytes((size_t(3) << 20) + 5);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(i * 131 + 7);
  std::unique_ptr<cmodel::HugePageMemory> copy =
      cmodel::HugePageMemory::copyReadOnly(bytes);
  ASSERT_TRUE(copy);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copy->bytes().data()) % kHugePage, 0u);
  EXPECT_EQ(absl::Span<const uint8_t>(copy->bytes()),
            absl::Span<const uint8_t>(bytes));
  EXPECT_FALSE(cmodel::HugePageMemory::copyReadOnly({}));
}

} // namespace
