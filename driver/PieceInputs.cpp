//===- PieceInputs.cpp - plausible inputs for one piece -------------------===//

#include "driver/PieceInputs.h"

#include "dialects/top/IR/TopOps.h"
#include "pieces/ChunkLengths.h"
#include "pieces/Masks.h"

#include "llvm/ADT/StringMap.h"

#include <random>

using namespace mlir;

namespace llmc::driver {

std::vector<top::Tensor> makePieceInputs(func::FuncOp function,
                                         int64_t seqLength,
                                         int64_t maxInputLength,
                                         int64_t vocab) {
  std::mt19937 random(7);
  std::normal_distribution<float> normal;
  std::vector<top::Tensor> inputs;
  // A shorter chunk's piece (`block.0.prefill_kv.16`) has its own L.
  llvm::StringRef name = function.getName();
  std::optional<int64_t> chunk = pieces::getChunkLengthOfName(name);
  llvm::StringRef base = chunk ? name.rsplit('.').first : name;
  int64_t s = seqLength, l = chunk.value_or(maxInputLength);
  bool decode = base.ends_with("decode");
  bool prefillKV = base.ends_with("prefill_kv");
  function.walk([&](top::InputOp input) {
    auto type = cast<RankedTensorType>(input.getType());
    llvm::SmallVector<int64_t> shape(type.getShape());
    int64_t count = type.getNumElements();
    llvm::StringRef role = input.getRole().value_or("");
    if (type.getElementType().isInteger(32)) {
      std::vector<int32_t> values(count);
      for (int64_t i = 0; i < count; ++i) {
        if (role == "position_ids")
          values[i] = decode ? s / 2 : (prefillKV ? s - l : 0) + i;
        else if (role == "top_k")
          values[i] = 20;
        else if (role == "recent_ids" && i % 5 == 4)
          values[i] = i % 2 ? -1 : values[i - 1];
        else
          values[i] = static_cast<int32_t>(random() % vocab);
      }
      inputs.push_back(top::Tensor::fromI32(shape, std::move(values)));
      return;
    }
    std::vector<float> values(count);
    // Sampling parameters: penalty, temperature and top_p.
    static const llvm::StringMap<float> scalars = {
        {"penalty", 1.3f}, {"temperature", 0.8f}, {"top_p", 0.9f}};
    if (auto it = scalars.find(role); it != scalars.end())
      values.assign(count, it->second);
    else if (role == "mask")
      values = decode      ? pieces::buildDecodeMask(s, s / 2)
               : prefillKV ? pieces::buildPrefillKVMask(l, s - l, (s - l) / 2)
                           : pieces::buildPrefillMask(l);
    else
      for (float &value : values)
        value = normal(random) * (role == "logits" ? 3.0f : 1.0f);
    inputs.push_back(top::Tensor::fromF32(shape, std::move(values)));
  });
  return inputs;
}

} // namespace llmc::driver
