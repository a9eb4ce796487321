//===- CommonBackend.h - lowering with the common patterns ---*- C++ -*-===//
//
// The lowering half of a chip backend that starts from what all chips share:
// its patterns are the common top -> tpu patterns, its pipeline the common
// top -> tpu pipeline, after a check of the chip's supported modes. A chip
// derives from it and overrides populateLoweringPatterns to add its own
// patterns (calling the base for the common ones).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_COMMONBACKEND_H
#define LLMC_BACKENDS_COMMON_LOWERING_COMMONBACKEND_H

#include "backends/common/lowering/LoweringOptions.h"
#include "plugins/Plugin.h"

namespace llmc::lowering {

/// Fails when `chip` does not list every mode `options` uses (the mode and
/// the qtable's) among its quantModes; the error names the chip, the mode
/// (and qtable line) and the modes the chip supports.
llvm::Error checkQuantModes(const plugins::ChipDescriptor &chip,
                            const LoweringOptions &options);

class CommonBackendPlugin : public plugins::BackendPlugin {
public:
  /// The common patterns (populateTopToTpuPatterns).
  void populateLoweringPatterns(mlir::RewritePatternSet &patterns,
                                const LoweringOptions &options) const override;
  /// checkQuantModes, options.validate(), then the common pipeline lowering
  /// with this plugin's populateLoweringPatterns, then tpu-core-split over
  /// the chip's cores (or options.cores).
  llvm::Error
  buildLoweringPipeline(mlir::OpPassManager &pm,
                        const LoweringOptions &options) const override;
  /// codegen::generateCommandStream for this plugin's chip.
  llvm::Error generateStream(mlir::Operation *function,
                             const llvm::StringMap<uint64_t> &weightOffsets,
                             cmd::CommandStream &stream) const override;
  /// The cmodel of this plugin's chip.
  std::unique_ptr<cmodel::StreamDevice>
  createDevice(const cmodel::DeviceOptions &options) const override;
};

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_COMMONBACKEND_H
