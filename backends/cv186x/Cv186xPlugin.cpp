//===- Cv186xPlugin.cpp - registers the CV186AH backend -------------------===//
//
// The CV186AH lowers with the common top -> tpu patterns and pipeline, sized
// by its descriptor.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/CommonBackend.h"
#include "backends/cv186x/Cv186xDescriptor.h"
#include "plugins/Plugin.h"

namespace llmc::plugins {
namespace {

class Cv186xBackend : public lowering::CommonBackendPlugin {
public:
  const ChipDescriptor &getDescriptor() const override {
    return cv186x::getDescriptor();
  }
};

} // namespace

void register_cv186x(Registrar &registrar) {
  registrar.addBackend(std::make_unique<Cv186xBackend>());
}

} // namespace llmc::plugins
