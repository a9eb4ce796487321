#include "support/Json.h"

#include <gtest/gtest.h>

namespace llmc::support {
namespace {

TEST(JsonTest, ParsesValues) {
  absl::StatusOr<nlohmann::json> value = parseJson(R"({"a": [1, "x"]})");
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ((*value)["a"][1], "x");
}

TEST(JsonTest, ErrorsPlaceTheFault) {
  absl::StatusOr<nlohmann::json> value = parseJson("{");
  ASSERT_FALSE(value.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(value.status()));
  EXPECT_EQ(value.status().message(),
            "[1:1, byte=1]: syntax error while parsing object key - "
            "unexpected end of input; expected string literal");
  value = parseJson("{\"a\":\n  tru}");
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().message().substr(0, 16), "[2:5, byte=11]: ");
  EXPECT_FALSE(parseJson("").ok());
  EXPECT_FALSE(parseJson("[1] x").ok());
  EXPECT_FALSE(parseJson("\"\xff\"").ok());
}

} // namespace
} // namespace llmc::support
