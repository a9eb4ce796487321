//===- Bm1688Plugin.cpp - registers the BM1688 backend --------------------===//
//
// The BM1688 lowers with the common top -> tpu patterns and pipeline, sized
// by its descriptor.
//
//===----------------------------------------------------------------------===//

#include "backends/bm1688/Bm1688Descriptor.h"
#include "backends/common/lowering/CommonBackend.h"
#include "plugins/Plugin.h"

namespace llmc::plugins {
namespace {

class Bm1688Backend : public lowering::CommonBackendPlugin {
public:
  const ChipDescriptor &getDescriptor() const override {
    return bm1688::getDescriptor();
  }
};

} // namespace

void register_bm1688(Registrar &registrar) {
  registrar.addBackend(std::make_unique<Bm1688Backend>());
}

} // namespace llmc::plugins
