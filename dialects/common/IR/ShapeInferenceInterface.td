//===- ShapeInferenceInterface.td - result shapes from operands -*- tablegen -*-===//
//
// The interface every computational op of `top` and `tpu` implements. One
// shape function per op serves the verifier (declared result shapes must agree
// with the inferred ones) and the shape-inference passes (results with dynamic
// dimensions are refined).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_COMMON_SHAPEINFERENCEINTERFACE_TD
#define LLMC_DIALECTS_COMMON_SHAPEINFERENCEINTERFACE_TD

include "mlir/IR/OpBase.td"

def ShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::llmc";
  let description = [{
    Computes the shapes of an op's results from the shapes of its operands and
    its attributes. Dimensions that the operands leave unknown are reported as
    `ShapedType::kDynamic`. An inconsistent op gets an error naming the
    offending operand or attribute, so the interface doubles as the op's shape
    verifier: every declared static result dimension must equal the inferred
    one.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Appends one shape per result to `shapes`. Emits an error on the op and
        fails when operands and attributes are inconsistent. Only called when
        every shaped operand is ranked.
      }],
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"inferResultShapes",
      /*args=*/(ins "::llvm::SmallVectorImpl<::llvm::SmallVector<int64_t>> &":$shapes)
    >,
  ];
  let verify = [{ return ::llmc::verifyInferredShapes($_op); }];
}

#endif // LLMC_DIALECTS_COMMON_SHAPEINFERENCEINTERFACE_TD
