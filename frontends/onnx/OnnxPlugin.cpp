//===- OnnxPlugin.cpp - registers the ONNX frontend -----------------------===//

#include "frontends/onnx/OnnxCheckpoint.h"
#include "plugins/Plugin.h"

namespace llmc::plugins {
namespace {

/// An ONNX export in the per-piece layout: a directory with block_0.onnx.
class OnnxFrontend : public FrontendPlugin {
public:
  llvm::StringRef getId() const override { return "onnx"; }
  llvm::StringRef getSummary() const override {
    return "ONNX export, one file per piece (embedding, block_<i>, lm_head): "
           "llama, qwen2, qwen3";
  }
  bool accepts(llvm::StringRef path) const override {
    return onnx::isOnnxExport(path);
  }
  llvm::Expected<Checkpoint> load(llvm::StringRef path) const override {
    return onnx::loadCheckpoint(path);
  }
};

} // namespace

void register_onnx(Registrar &registrar) {
  registrar.addFrontend(std::make_unique<OnnxFrontend>());
}

} // namespace llmc::plugins
