//===- Passes.td - passes on the tpu dialect -------------*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_TD
#define LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TpuAddressAssignPass
    : Pass<"tpu-address-assign", "::mlir::func::FuncOp"> {
  let summary = "places every value of a lowered piece in global memory";
  let description = [{
    Gives each value of a lowered piece its global-memory range, the plan
    codegen turns into DMA addresses:

    - **IO**: the function's arguments, then its results, each
      `alignment`-aligned, in the `io` region; written as `tpu.addr`
      argument and result attributes. The runtime binds this region (the KV
      cache among it). A result produced by a compute op that nothing else
      places is computed straight into its IO slot. An argument that is the
      first input of a `tpu.Concat` (the cached keys before the new ones)
      gets a slot as large as the concat, which lives there: the new rows
      are computed behind the cached ones, and nothing is copied.
    - **Activations**: every other result of a compute op gets an
      `activation` range, reused once the value is dead (liveness over the
      op order, first fit). `tpu.Reshape` aliases its input. An input of a
      `tpu.Concat` whose dimensions before the axis are all 1 is computed
      in place into its slice of the concat's buffer (the new key written
      behind the cached ones), so the concat copies nothing.
    - **Scratch**: ops whose kernels need global scratch (`tpu.MLP` and
      `tpu.A16MLP` keep the gated activation, `tpu.Arg` and `tpu.TopK`
      their per-lane candidates) get a `scratch` range live for the op
      alone.

    Each compute op gets `addr` (one `#tpu.mem` per result); the function
    gets `tpu.io_bytes` and `tpu.activation_bytes`. Weights and
    `tpu.Constant`s are not placed here: they live in the coeff region,
    shared by the pieces of a binary, which lays them out.

    With `keep-values`, no activation range is reused: every value is still
    in memory after the piece has run, where `llmc compare` reads it.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Byte alignment of every range">,
    Option<"lanes", "lanes", "int64_t", /*default=*/"64",
           "NPU lanes (sizes the per-lane scratch of tpu.Arg and tpu.TopK)">,
    Option<"keepValues", "keep-values", "bool", /*default=*/"false",
           "Never reuse a range, so every value can be read after a run "
           "(llmc compare)">,
  ];
}

def TpuFoldIOCastsPass : Pass<"tpu-fold-io-casts", "::mlir::func::FuncOp"> {
  let summary = "moves a piece's float inputs and outputs to its compute type";
  let description = [{
    Lowering keeps a piece's IO types (f32) and converts at the boundary
    with `tpu.Cast`. A binary does better to exchange hidden states and the
    KV cache in the type it computes in: half the bytes, and no conversion
    per layer. This pass retypes every float argument whose only use is a
    float-to-float cast to the cast's result type, and every float result
    that is such a cast's result to the cast's input type, dropping the
    casts. Results and arguments whose role is in `keep-roles` (by default
    the logits, which sampling wants in f32) stay as they are.
  }];
  let options = [
    ListOption<"keepRoles", "keep-roles", "std::string",
               "IO roles that keep their declared types">,
  ];
}

def TpuCoreSplitPass : Pass<"tpu-core-split", "::mlir::func::FuncOp"> {
  let summary = "splits weight-heavy ops across the chip's cores";
  let description = [{
    On a chip with several cores, annotates the ops whose weights are worth
    streaming in parallel with `core_split = #tpu.core_split<cores = N,
    axis = A>`, A being the last dimension of the result: each core computes
    a range of output channels and streams only their weights.

    - `tpu.MatMul` (a weight on the right) and `tpu.A16MatMul`, the LM head
      among them: split along N.
    - `tpu.MLP` and `tpu.A16MLP`: gate and up along the intermediate
      channels, then down along the output channels (each core needs all of
      the intermediate activation, so codegen puts a barrier between them).

    An op is split when its weights (with scales and zero points) take at
    least `min-weight-bytes`: the split costs a barrier between the cores
    and loads the activations on every core, which only many weight bytes
    pay for. The result must have at least `cores` channels. Ops already
    annotated are left alone; with `cores` 1 the pass does nothing.
  }];
  let options = [
    Option<"cores", "cores", "int64_t", /*default=*/"1",
           "Cores to split across">,
    Option<"minWeightBytes", "min-weight-bytes", "int64_t",
           /*default=*/"262144",
           "Weight bytes below which an op stays on one core">,
  ];
}

#endif // LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_TD
