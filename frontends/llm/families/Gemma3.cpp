//===- Gemma3.cpp - Gemma 3 text models -----------------------------------===//
//
// transformers' Gemma3ForCausalLM (`gemma3_text`; llama.cpp's `gemma3`):
// Gemma 2's layout with Q and K RMS-normalized per head, no attention soft
// cap, five sliding layers to each global one, and the sliding layers
// rotating with their own base (rope_local_base_freq) and no rope scaling.
//
//===----------------------------------------------------------------------===//

#include "frontends/llm/families/Family.h"

namespace llmc::families {

const Family &getGemma3Family() {
  static constexpr llvm::StringLiteral kHfNames[] = {"gemma3_text"};
  static constexpr llvm::StringLiteral kGgufNames[] = {"gemma3"};
  static const Family kFamily = [] {
    Family family = makeGemmaFamily();
    family.name = "gemma3";
    family.hfModelTypes = kHfNames;
    family.ggufArchitectures = kGgufNames;
    family.qkNorm = true;
    family.slidingWindowPattern = 6;
    family.defaultSlidingRopeTheta = 10000.0;
    family.ggufWideScaleLayers = 62;
    // Gemma3TextConfig's (the soft caps, query_pre_attn_scalar and
    // rope_local_base_freq have fields of their own above).
    family.hfConfigDefaults =
        R"({"vocab_size": 262208, "hidden_size": 2304,)"
        R"( "intermediate_size": 9216, "num_hidden_layers": 26,)"
        R"( "num_attention_heads": 8, "num_key_value_heads": 4,)"
        R"( "head_dim": 256, "max_position_embeddings": 131072,)"
        R"( "rms_norm_eps": 1e-6, "rope_theta": 1000000.0})";
    return family;
  }();
  return kFamily;
}

} // namespace llmc::families
