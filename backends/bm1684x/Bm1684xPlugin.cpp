//===- Bm1684xPlugin.cpp - registers the BM1684X backend ------------------===//
//
// The BM1684X lowers with the common top -> tpu patterns and pipeline; the
// modes it compiles are those its descriptor lists, and others are rejected
// when the pipeline is built.
//
//===----------------------------------------------------------------------===//

#include "backends/bm1684x/Bm1684xDescriptor.h"
#include "backends/common/lowering/CommonBackend.h"
#include "plugins/Plugin.h"

namespace llmc::plugins {
namespace {

class Bm1684xBackend : public lowering::CommonBackendPlugin {
public:
  const ChipDescriptor &getDescriptor() const override {
    return bm1684x::getDescriptor();
  }
};

} // namespace

void register_bm1684x(Registrar &registrar) {
  registrar.addBackend(std::make_unique<Bm1684xBackend>());
}

} // namespace llmc::plugins
