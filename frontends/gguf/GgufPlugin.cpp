//===- GgufPlugin.cpp - registers the GGUF checkpoint frontend ------------===//

#include "frontends/gguf/GgufCheckpoint.h"
#include "plugins/Plugin.h"

namespace llmc::plugins {
namespace {

/// A GGUF checkpoint is one file that starts with the magic `GGUF`.
class GgufFrontend : public FrontendPlugin {
public:
  llvm::StringRef getId() const override { return "gguf"; }
  llvm::StringRef getSummary() const override {
    return "GGUF file (llama.cpp): llama, qwen2, qwen3; float and "
           "q4/q5/q8 block types";
  }
  bool accepts(llvm::StringRef path) const override {
    return gguf::isGgufFile(path);
  }
  llvm::Expected<Checkpoint> load(llvm::StringRef path) const override {
    return gguf::loadCheckpoint(path);
  }
};

} // namespace

void register_gguf(Registrar &registrar) {
  registrar.addFrontend(std::make_unique<GgufFrontend>());
}

} // namespace llmc::plugins
