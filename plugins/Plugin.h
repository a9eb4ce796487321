//===- Plugin.h - the frontend and backend plugin interfaces ---*- C++ -*-===//
//
// llmc is composed from plugins: a frontend per checkpoint format and a
// backend per chip generation. Each plugin library exports one function,
//
//   void llmc::plugins::register_<id>(Registrar &registrar);
//
// which adds its plugin objects. The set of plugins linked into a tool is
// chosen by the Bazel flag //plugins:enabled; a generated list calls each
// chosen register_<id> explicitly (no static initializers that a linker could
// silently drop).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PLUGINS_PLUGIN_H
#define LLMC_PLUGINS_PLUGIN_H

#include "plugins/ChipDescriptor.h"
#include "plugins/ModelSpec.h"
#include "plugins/WeightSource.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace mlir {
class OpPassManager;
class Operation;
class RewritePatternSet;
} // namespace mlir

namespace llmc::lowering {
struct LoweringOptions;
} // namespace llmc::lowering

namespace llmc::cmd {
class CommandStream;
} // namespace llmc::cmd

namespace llmc::cmodel {
struct DeviceOptions;
class StreamDevice;
} // namespace llmc::cmodel

namespace llmc::plugins {

/// A checkpoint as a frontend reads it: the model's description and its
/// tensors (memory-mapped, read on demand).
struct Checkpoint {
  ModelSpec spec;
  std::unique_ptr<WeightSource> weights;
  /// What the user should know about how llmc reads the checkpoint (a
  /// storage format it converts), one sentence each.
  std::vector<std::string> warnings;
};

/// Reads one checkpoint format (a Hugging Face directory, ONNX, GGUF).
class FrontendPlugin {
public:
  virtual ~FrontendPlugin();

  /// The format's short name (`hf`, `onnx`, `gguf`).
  virtual llvm::StringRef getId() const = 0;
  /// One line for `llmc --list-plugins`.
  virtual llvm::StringRef getSummary() const = 0;
  /// A cheap check, without reading weights, of whether `path` is a
  /// checkpoint in this format. The driver asks every frontend and uses the
  /// one that accepts.
  virtual bool accepts(llvm::StringRef path) const = 0;
  /// Reads the checkpoint at `path`: parses its description and indexes its
  /// tensors without loading them. Errors name the file and the problem.
  virtual llvm::Expected<Checkpoint> load(llvm::StringRef path) const = 0;
};

/// Compiles for one chip generation.
class BackendPlugin {
public:
  virtual ~BackendPlugin();

  /// The chip's figures; its `id` is the name users pass to `--chip`.
  virtual const ChipDescriptor &getDescriptor() const = 0;

  /// Adds the chip's top -> tpu lowering patterns for `options`. A chip
  /// dispatches on element types and pattern benefits: it adds the common
  /// patterns (backends/common/lowering) and, with a higher benefit, its own
  /// for what it computes differently. The default adds none.
  virtual void
  populateLoweringPatterns(mlir::RewritePatternSet &patterns,
                           const lowering::LoweringOptions &options) const;

  /// Adds to `pm` the passes that lower a piece's top module to tpu under
  /// `options`, after checking that the chip compiles every mode `options`
  /// uses (errors name the chip and the mode). The default reports that
  /// the chip has no lowering; backends/common/lowering's
  /// CommonBackendPlugin builds the common pipeline with
  /// populateLoweringPatterns.
  virtual llvm::Error
  buildLoweringPipeline(mlir::OpPassManager &pm,
                        const lowering::LoweringOptions &options) const;

  /// Writes into `stream` the commands of `function`, a piece's func.func
  /// that the lowering pipeline and tpu-address-assign produced, its
  /// weights at `weightOffsets` (bytes into the coeff region, by name).
  /// The default reports that the chip has no codegen; CommonBackendPlugin
  /// uses backends/common/codegen.
  virtual llvm::Error
  generateStream(mlir::Operation *function,
                 const llvm::StringMap<uint64_t> &weightOffsets,
                 cmd::CommandStream &stream) const;

  /// The device that runs this chip's streams: the cmodel for a TPU-class
  /// chip, the CPU itself for the host; null for a chip with none.
  virtual std::unique_ptr<cmodel::StreamDevice>
  createDevice(const cmodel::DeviceOptions &options) const = 0;
};

/// What a plugin's register_<id> function receives.
class Registrar {
public:
  virtual ~Registrar();
  virtual void addFrontend(std::unique_ptr<FrontendPlugin> frontend) = 0;
  virtual void addBackend(std::unique_ptr<BackendPlugin> backend) = 0;
};

} // namespace llmc::plugins

#endif // LLMC_PLUGINS_PLUGIN_H
