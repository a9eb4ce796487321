#include "support/LlvmStatus.h"

#include <gtest/gtest.h>

namespace llmc::support {
namespace {

absl::StatusOr<int> half(int value) {
  if (value % 2)
    return absl::InvalidArgumentError("odd");
  return value / 2;
}

absl::StatusOr<int> quarter(int value) {
  LLMC_ASSIGN_OR_RETURN(int halved, half(value));
  LLMC_ASSIGN_OR_RETURN(halved, half(halved));
  return halved;
}

absl::Status checkQuarter(int value) {
  LLMC_RETURN_IF_ERROR(quarter(value).status());
  return absl::OkStatus();
}

TEST(StatusTest, MacrosPropagateTheFirstError) {
  EXPECT_EQ(*quarter(12), 3);
  EXPECT_EQ(quarter(6).status().message(), "odd");
  EXPECT_TRUE(checkQuarter(8).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(checkQuarter(10)));
}

TEST(StatusTest, PrefixKeepsTheCodeAndThePayloads) {
  absl::Status full = absl::ResourceExhaustedError("cache full");
  full.SetPayload("llmc/test", absl::Cord("8"));
  absl::Status prefixed = prefixStatus("turn 2: ", full);
  EXPECT_EQ(prefixed.message(), "turn 2: cache full");
  EXPECT_TRUE(absl::IsResourceExhausted(prefixed));
  ASSERT_TRUE(prefixed.GetPayload("llmc/test").has_value());
  EXPECT_EQ(*prefixed.GetPayload("llmc/test"), "8");
  EXPECT_TRUE(prefixStatus("turn 2: ", absl::OkStatus()).ok());
  absl::Status suffixed = suffixStatus(full, " (-p)");
  EXPECT_EQ(suffixed.message(), "cache full (-p)");
  EXPECT_TRUE(absl::IsResourceExhausted(suffixed));
  EXPECT_TRUE(suffixed.GetPayload("llmc/test").has_value());
}

TEST(StatusTest, MessagesCrossToLlvmAndBack) {
  llvm::Expected<int> ok = toExpected(half(4));
  ASSERT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(*ok, 2);
  llvm::Expected<int> failed = toExpected(half(3));
  ASSERT_FALSE(static_cast<bool>(failed));
  absl::Status back = toStatus(failed.takeError());
  EXPECT_EQ(back.message(), "odd");
  EXPECT_TRUE(toStatus(llvm::Error::success()).ok());
  EXPECT_FALSE(static_cast<bool>(toLlvmError(absl::OkStatus())));
  absl::StatusOr<int> fromLlvm = toStatusOr(llvm::Expected<int>(7));
  EXPECT_EQ(*fromLlvm, 7);
}

} // namespace
} // namespace llmc::support
