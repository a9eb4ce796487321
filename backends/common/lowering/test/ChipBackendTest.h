//===- ChipBackendTest.h - a chip plugin as the driver sees it --*- C++ -*-===//
//
// The fixture every chip's lowering test starts from: the plugin registered
// and found by its id, its pipeline run on a piece, and the piece placed
// and written as a command stream for the chip.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_TEST_CHIPBACKENDTEST_H
#define LLMC_BACKENDS_COMMON_LOWERING_TEST_CHIPBACKENDTEST_H

#include "backends/common/cmodel/command_stream.pb.h"
#include "backends/common/lowering/LoweringOptions.h"
#include "plugins/Registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <string>

namespace llmc::test {

/// An LM head piece: x [1, hidden] times `lm_head.weight` [vocab, hidden],
/// in f32.
std::string makeLmHeadPiece(int64_t hidden, int64_t vocab);

class ChipBackendTest : public ::testing::Test {
protected:
  /// `registerPlugin` registers the chip `chipId`.
  ChipBackendTest(void (*registerPlugin)(plugins::Registrar &),
                  std::string chipId);

  void SetUp() override;

  const plugins::BackendPlugin &backend();
  /// `piece` lowered with the chip's pipeline, printed.
  std::string lower(llvm::StringRef piece,
                    const lowering::LoweringOptions &options);
  /// Expects every mode the chip lists to lower the piece's MatMul to
  /// tpu.MatMul, tpu.A16MatMul for weight-only modes, or tpu.A8MatMul for
  /// INT8 (calibrated as `lm_head`).
  void expectLowersEveryModeItLists(llvm::StringRef piece);
  /// `piece` lowered, placed and written for the chip, its weights laid out
  /// one after another.
  cmd::CommandStream compile(llvm::StringRef piece,
                             const lowering::LoweringOptions &options);
  /// Expects every local tensor of `stream` within the chip's lanes and
  /// local memory, and some spanning all the lanes.
  void expectFitsTheChip(const cmd::CommandStream &stream);

  plugins::Registry registry;
  mlir::MLIRContext context;

private:
  void (*registerPlugin)(plugins::Registrar &);
  std::string chipId;
};

} // namespace llmc::test

#endif // LLMC_BACKENDS_COMMON_LOWERING_TEST_CHIPBACKENDTEST_H
