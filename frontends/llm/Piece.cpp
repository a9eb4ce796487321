//===- Piece.cpp - one separately compiled part of a model ----------------===//

#include "frontends/llm/Piece.h"

#include "llvm/ADT/StringSwitch.h"

namespace llmc::llm {

llvm::StringRef stringifyPhase(Phase phase) {
  switch (phase) {
  case Phase::None: return "none";
  case Phase::Prefill: return "prefill";
  case Phase::PrefillKV: return "prefill_kv";
  case Phase::Decode: return "decode";
  }
  llvm_unreachable("unknown phase");
}

llvm::StringRef stringifyIORole(IORole role) {
  switch (role) {
  case IORole::InputIds: return "input_ids";
  case IORole::Hidden: return "hidden";
  case IORole::PositionIds: return "position_ids";
  case IORole::Mask: return "mask";
  case IORole::HistoryK: return "history_k";
  case IORole::HistoryV: return "history_v";
  case IORole::NewK: return "new_k";
  case IORole::NewV: return "new_v";
  case IORole::Logits: return "logits";
  case IORole::Token: return "token";
  case IORole::RecentIds: return "recent_ids";
  case IORole::Penalty: return "penalty";
  case IORole::Temperature: return "temperature";
  case IORole::TopP: return "top_p";
  case IORole::TopK: return "top_k";
  case IORole::Probs: return "probs";
  case IORole::TokenIds: return "token_ids";
  case IORole::PixelValues: return "pixel_values";
  case IORole::VisionEmbeds: return "vision_embeds";
  case IORole::PatchMask: return "patch_mask";
  case IORole::PositionEmbeds: return "position_embeds";
  case IORole::QueryMask: return "query_mask";
  }
  llvm_unreachable("unknown IO role");
}

std::optional<IORole> symbolizeIORole(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<IORole>>(name)
      .Case("input_ids", IORole::InputIds)
      .Case("hidden", IORole::Hidden)
      .Case("position_ids", IORole::PositionIds)
      .Case("mask", IORole::Mask)
      .Case("history_k", IORole::HistoryK)
      .Case("history_v", IORole::HistoryV)
      .Case("new_k", IORole::NewK)
      .Case("new_v", IORole::NewV)
      .Case("logits", IORole::Logits)
      .Case("token", IORole::Token)
      .Case("recent_ids", IORole::RecentIds)
      .Case("penalty", IORole::Penalty)
      .Case("temperature", IORole::Temperature)
      .Case("top_p", IORole::TopP)
      .Case("top_k", IORole::TopK)
      .Case("probs", IORole::Probs)
      .Case("token_ids", IORole::TokenIds)
      .Case("pixel_values", IORole::PixelValues)
      .Case("vision_embeds", IORole::VisionEmbeds)
      .Case("patch_mask", IORole::PatchMask)
      .Case("position_embeds", IORole::PositionEmbeds)
      .Case("query_mask", IORole::QueryMask)
      .Default(std::nullopt);
}

mlir::Operation *Piece::getFunction() const {
  return &module.get().getBody()->front();
}

} // namespace llmc::llm
