//===- TpuEnums.td - enums of the tpu dialect -------------*- tablegen -*-===//
//
// Kept apart from TpuAttrs.td so that mlir-tblgen's enum generator, which
// emits every enum it sees, does not also emit the `top` enums that the tpu
// ops include.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TPU_TPUENUMS_TD
#define LLMC_DIALECTS_TPU_TPUENUMS_TD

include "mlir/IR/EnumAttr.td"

def Tpu_MemRegion : I32EnumAttr<"MemRegion",
    "the part of global memory a value lives in", [
    I32EnumAttrCase<"Coeff", 0, "coeff">,
    I32EnumAttrCase<"Activation", 1, "activation">,
    I32EnumAttrCase<"IO", 2, "io">,
  ]> {
  let cppNamespace = "::llmc::tpu";
  let genSpecializedAttr = 0;
  let description = [{
    `coeff` holds weights, written once when the binary loads and shared by
    every piece that uses them; `activation` holds intermediate values, whose
    space is reused once a value is dead; `io` holds piece inputs and
    outputs, which the runtime binds (the KV cache among them).
  }];
}

#endif // LLMC_DIALECTS_TPU_TPUENUMS_TD
