//===- ListPlugins.cpp - prints the registry of a linked plugin set -------===//
//
// What `llmc --list-plugins` prints, for plugin_set_test's sets.
//
//===----------------------------------------------------------------------===//

#include "plugins/LinkedPlugins.h"

#include "llvm/Support/raw_ostream.h"

int main() {
  auto registry = llmc::plugins::createLinkedPluginRegistry();
  if (!registry) {
    llvm::errs() << llvm::toString(registry.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << (*registry)->describe();
  return 0;
}
