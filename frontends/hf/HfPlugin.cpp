//===- HfPlugin.cpp - registers the Hugging Face checkpoint frontend ------===//

#include "frontends/hf/HfCheckpoint.h"
#include "plugins/Plugin.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace llmc::plugins {
namespace {

/// A Hugging Face checkpoint is a directory with `config.json`.
class HfFrontend : public FrontendPlugin {
public:
  llvm::StringRef getId() const override { return "hf"; }
  llvm::StringRef getSummary() const override {
    return "Hugging Face checkpoint directory (config.json, safetensors)";
  }
  bool accepts(llvm::StringRef path) const override {
    llvm::SmallString<256> config(path);
    llvm::sys::path::append(config, "config.json");
    return llvm::sys::fs::is_directory(path) &&
           llvm::sys::fs::is_regular_file(config);
  }
  llvm::Expected<Checkpoint> load(llvm::StringRef path) const override {
    return hf::loadCheckpoint(path);
  }
};

} // namespace

void register_hf(Registrar &registrar) {
  registrar.addFrontend(std::make_unique<HfFrontend>());
}

} // namespace llmc::plugins
