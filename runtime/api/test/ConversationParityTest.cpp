//===- ConversationParityTest.cpp - two turns against a reference ---------===//
//
// The `turns` case of the shared reference data: a 12-token prompt and 16
// greedy tokens, then a 24-token turn after the whole history (the first
// turn's last token included) and 16 more, computed by llama.cpp. A
// Conversation on the F32 binary of the same model must generate the same
// ids, with logits within 1e-4, as `llmc run` does (tests/parity).
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/NpyFile.h"
#include "runtime/api/test/TestModels.h"
#include "runtime/llmc.h"
#include "tests/TestData.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc {
namespace {

std::vector<int32_t> readIds(const llvm::json::Value *value) {
  std::vector<int32_t> ids;
  if (const llvm::json::Array *array = value ? value->getAsArray() : nullptr)
    for (const llvm::json::Value &id : *array)
      ids.push_back(static_cast<int32_t>(id.getAsInteger().value_or(-1)));
  return ids;
}

TEST(ConversationParityTest, TurnsCaseOfTinyQwen2) {
  std::string binary = test::makeScratchDirectory() + "/tiny-qwen2.llmc";
  test::ConvertRequest request;
  request.checkpoint = test::getRefdataPath("models/tiny-qwen2");
  llvm::Error converted = test::convertForTest(request, binary);
  ASSERT_FALSE(static_cast<bool>(converted))
      << llvm::toString(std::move(converted));
  std::unique_ptr<Model> model = Model::load(binary).value();

  std::string refs = test::getRefdataPath("refs") + "/tiny-qwen2.f32.turns";
  std::unique_ptr<llvm::MemoryBuffer> text =
      std::move(*llvm::MemoryBuffer::getFile(refs + ".json"));
  llvm::json::Value reference = cantFail(llvm::json::parse(text->getBuffer()));
  const llvm::json::Array *turns = reference.getAsObject()->getArray("turns");
  ASSERT_TRUE(turns && turns->size() == 2);
  top::Tensor logits = top::readNpyFile(refs + ".npy").value();

  std::unique_ptr<Conversation> conversation = model->startConversation();
  size_t row = 0;
  for (const llvm::json::Value &turn : *turns) {
    const llvm::json::Object &fields = *turn.getAsObject();
    std::vector<int32_t> expected = readIds(fields.get("generated"));
    GenerateOptions options;
    options.maxNewTokens = static_cast<int64_t>(expected.size());
    options.stopAtStopTokens = false;
    options.keepLogits = true;
    absl::StatusOr<GenerateResult> result =
        conversation->send(readIds(fields.get("input_ids")), options);
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(result->ids, expected);
    int64_t vocab = model->getDims().vocabSize;
    float worst = 0;
    for (size_t i = 0; i < result->logits.size(); ++i)
      worst = std::max(worst, std::fabs(result->logits[i] -
                                        logits.getF32()[row * vocab + i]));
    EXPECT_LE(worst, 1e-4f) << "turn " << &turn - &turns->front();
    row += expected.size();
  }
}

} // namespace
} // namespace llmc
