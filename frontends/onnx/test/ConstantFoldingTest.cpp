//===- ConstantFoldingTest.cpp - the tensor ops the importer evaluates ----===//
//
// The ops that evaluate rotary tables while importing (Expand, MatMul,
// Transpose, Concat on any axis, Cos, Sin), on small tensors whose results
// are written out by hand.
//
//===----------------------------------------------------------------------===//

#include "frontends/onnx/ConstantFolding.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace llmc::onnx;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

::onnx::NodeProto makeNode(const std::string &type) {
  ::onnx::NodeProto node;
  node.set_op_type(type);
  node.set_name(type + "_0");
  return node;
}

void addInts(::onnx::NodeProto &node, const std::string &name,
             std::vector<int64_t> values) {
  ::onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INTS);
  for (int64_t value : values)
    attr->add_ints(value);
}

void addInt(::onnx::NodeProto &node, const std::string &name, int64_t value) {
  ::onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INT);
  attr->set_i(value);
}

/// The single result of folding `node`, which must fold.
ConstantTensor fold(const ::onnx::NodeProto &node,
                    std::vector<std::optional<ConstantTensor>> inputs) {
  llvm::Expected<std::optional<std::vector<ConstantTensor>>> folded =
      foldNode(node, inputs);
  if (!folded) {
    ADD_FAILURE() << llvm::toString(folded.takeError());
    return {};
  }
  if (!*folded) {
    ADD_FAILURE() << node.op_type() << " did not fold";
    return {};
  }
  return (**folded)[0];
}

std::string foldError(const ::onnx::NodeProto &node,
                      std::vector<std::optional<ConstantTensor>> inputs) {
  llvm::Expected<std::optional<std::vector<ConstantTensor>>> folded =
      foldNode(node, inputs);
  return folded ? "" : llvm::toString(folded.takeError());
}

TEST(ConstantFoldingTest, TransposeMovesAxes) {
  ::onnx::NodeProto node = makeNode("Transpose");
  addInts(node, "perm", {0, 2, 1});
  ConstantTensor result =
      fold(node, {ConstantTensor::ofInts({1, 2, 3}, {0, 1, 2, 3, 4, 5})});
  EXPECT_THAT(result.shape, ElementsAre(1, 3, 2));
  EXPECT_THAT(result.ints, ElementsAre(0, 3, 1, 4, 2, 5));
  // Without perm the axes reverse.
  ConstantTensor reversed = fold(
      makeNode("Transpose"), {ConstantTensor::ofFloats({2, 3}, {0, 1, 2, 3, 4, 5})});
  EXPECT_THAT(reversed.shape, ElementsAre(3, 2));
  EXPECT_THAT(reversed.floats, ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(ConstantFoldingTest, TransposeRejectsABadPerm) {
  ::onnx::NodeProto node = makeNode("Transpose");
  addInts(node, "perm", {0, 0, 1});
  EXPECT_THAT(foldError(node, {ConstantTensor::ofInts({1, 2, 3},
                                                      {0, 1, 2, 3, 4, 5})}),
              HasSubstr("is not a permutation"));
}

TEST(ConstantFoldingTest, MatMulBroadcastsBatches) {
  // [1, 2, 1] x [3, 1, 2]: an outer product per batch of the right side.
  ConstantTensor lhs = ConstantTensor::ofFloats({1, 2, 1}, {1, 2});
  ConstantTensor rhs = ConstantTensor::ofFloats({3, 1, 2}, {1, 10, 2, 20, 3, 30});
  ConstantTensor result = fold(makeNode("MatMul"), {lhs, rhs});
  EXPECT_THAT(result.shape, ElementsAre(3, 2, 2));
  EXPECT_THAT(result.floats, ElementsAre(1, 10, 2, 20, 2, 20, 4, 40, 3, 30, 6,
                                         60));
  // Integer operands (position ids before a Cast) multiply as floats.
  ConstantTensor ints = fold(
      makeNode("MatMul"), {ConstantTensor::ofInts({2, 2}, {1, 2, 3, 4}),
                           ConstantTensor::ofFloats({2, 1}, {0.5, 0.25})});
  EXPECT_TRUE(ints.isFloat);
  EXPECT_THAT(ints.floats, ElementsAre(1.0, 2.5));
  EXPECT_THAT(foldError(makeNode("MatMul"),
                        {ConstantTensor::ofFloats({2, 3}, {0, 0, 0, 0, 0, 0}),
                         ConstantTensor::ofFloats({2, 2}, {0, 0, 0, 0})}),
              HasSubstr("mismatched inner sizes"));
}

TEST(ConstantFoldingTest, ExpandBroadcastsToTheShape) {
  ConstantTensor result =
      fold(makeNode("Expand"), {ConstantTensor::ofFloats({1, 2, 1}, {7, 8}),
                                ConstantTensor::ofInts({3}, {2, 1, 3})});
  EXPECT_THAT(result.shape, ElementsAre(2, 2, 3));
  EXPECT_THAT(result.floats,
              ElementsAre(7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8));
}

TEST(ConstantFoldingTest, ConcatJoinsAnyAxis) {
  ::onnx::NodeProto node = makeNode("Concat");
  addInt(node, "axis", -1);
  ConstantTensor result =
      fold(node, {ConstantTensor::ofFloats({2, 1}, {1, 2}),
                  ConstantTensor::ofFloats({2, 0}, {}),
                  ConstantTensor::ofFloats({2, 2}, {3, 4, 5, 6})});
  EXPECT_THAT(result.shape, ElementsAre(2, 3));
  EXPECT_THAT(result.floats, ElementsAre(1, 3, 4, 2, 5, 6));
  EXPECT_THAT(foldError(node, {ConstantTensor::ofFloats({2, 1}, {1, 2}),
                               ConstantTensor::ofFloats({3, 1}, {1, 2, 3})}),
              HasSubstr("dimension 0 differs"));
}

TEST(ConstantFoldingTest, CosAndSinInFloat32) {
  ConstantTensor angles = ConstantTensor::ofFloats({3}, {0.0, 1.0, 100.0});
  ConstantTensor cos = fold(makeNode("Cos"), {angles});
  ConstantTensor sin = fold(makeNode("Sin"), {angles});
  for (int i = 0; i < 3; ++i) {
    float angle = float(angles.floats[i]);
    EXPECT_EQ(cos.floats[i], double(std::cos(angle)));
    EXPECT_EQ(sin.floats[i], double(std::sin(angle)));
  }
}

} // namespace
