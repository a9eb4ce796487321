//===- Generate.cpp - what a generation takes and gives back --------------===//

#include "runtime/api/Generate.h"

namespace llmc {

std::string_view stringifyFinishReason(FinishReason reason) {
  switch (reason) {
  case FinishReason::StopToken:
    return "stop token";
  case FinishReason::MaxTokens:
    return "max tokens";
  case FinishReason::Callback:
    return "callback";
  case FinishReason::CacheFull:
    return "cache full";
  }
  return "unknown";
}

double GenerateTimings::getHostTokensPerSecond() const {
  return decodeSeconds > 0 ? decodeTokens / decodeSeconds : 0;
}

double GenerateTimings::getModelledTokensPerSecond() const {
  return decodeModelledSeconds > 0 ? decodeTokens / decodeModelledSeconds : 0;
}

void GenerateTimings::add(const GenerateTimings &later) {
  promptTokens += later.promptTokens;
  promptModelledSeconds += later.promptModelledSeconds;
  decodeTokens += later.decodeTokens;
  decodeSeconds += later.decodeSeconds;
  decodeModelledSeconds += later.decodeModelledSeconds;
}

} // namespace llmc
