//===- Bm1684xPlugin.cpp - registers the BM1684X backend ------------------===//

#include "backends/bm1684x/Bm1684xDescriptor.h"
#include "plugins/Plugin.h"

namespace llmc::plugins {
namespace {

class Bm1684xBackend : public BackendPlugin {
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
