//===- PieceRunner.cpp - something that runs a model's pieces -------------===//

#include "runtime/session/PieceRunner.h"

namespace llmc::session {

PieceRunner::~PieceRunner() = default;

} // namespace llmc::session
