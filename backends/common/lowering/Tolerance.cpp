//===- Tolerance.cpp - how close a lowering must compute ------------------===//

#include "backends/common/lowering/Tolerance.h"

namespace llmc::lowering {

double getMinPieceCosine(QuantMode mode) {
  switch (mode) {
  case QuantMode::F32:
    // The same f32 operations in another order (dot products in blocks of
    // 16, softmax in key chunks).
    return 0.99999;
  case QuantMode::F16:
  case QuantMode::BF16:
  case QuantMode::W8F16:
  case QuantMode::W8BF16:
  case QuantMode::W4F16:
  case QuantMode::W4BF16:
  case QuantMode::INT8:
    // Activations rounded to f16 or bf16 (INT8: their 8-bit grid, as the
    // reference rounds them too) between the ops the reference computes
    // in f32.
    return 0.999;
  }
  return 0;
}

} // namespace llmc::lowering
