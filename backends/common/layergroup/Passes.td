//===- Passes.td - layer groups of the chips' common backend -*- tablegen -*-===//
//
// Forming layer groups is a chip decision (what fits a lane, what the time
// model prefers), so the pass lives with the common backend, not in the tpu
// dialect.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LAYERGROUP_PASSES_TD
#define LLMC_BACKENDS_COMMON_LAYERGROUP_PASSES_TD

include "mlir/Pass/PassBase.td"

def TpuLayerGroupPass : Pass<"tpu-layer-group", "::mlir::func::FuncOp"> {
  let summary = "groups tpu ops whose intermediates stay in local memory";
  let description = [{
    Partitions a lowered piece's ops into `tpu.Group` regions: the ops of a
    group pass their intermediate values through local memory, and only the
    group's inputs (`tpu.Load`) and results (`tpu.Store`) travel to global
    memory. Each candidate group is kept only when the chip's time model
    (the cmodel's, on the commands codegen would issue either way) finds it
    faster than its ops run one by one, and only when what it holds fits.

    The groups formed today:

    - **A norm and the projections that read it** (RMSNorm + Q/K/V, RMSNorm
      + the gated MLP and the residual add it absorbs): the norm is computed
      on every lane, into a buffer the group holds at the top of local
      memory, where each projection, splitting its output channels over the
      lanes, reads it without a load. The norm's result never reaches
      global memory. Projections split across cores are left alone (each
      core's local memory starts empty in its section).

    Every op of a group carries `lg`: its pipeline stage (0 loads, 1
    computes, 2 stores), its time step (the order codegen issues it in) and,
    for a value the group holds, its local address, size and bank
    (`local_size = 0`: streamed through the ring below the held buffers by
    codegen's tiling search). Weights enter a group as inputs the
    projection that reads them streams tile by tile.

    The options describe the chip (the defaults are the BM1684X's); a
    backend's pipeline passes its own descriptor.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"64", "NPU lanes">,
    Option<"laneBytes", "lane-bytes", "int64_t", /*default=*/"262144",
           "Local memory per lane, in bytes">,
    Option<"banks", "banks", "int64_t", /*default=*/"16",
           "Local-memory banks per lane">,
    Option<"euBytes", "eu-bytes", "int64_t", /*default=*/"64",
           "Alignment of local addresses (the EU width per lane), in bytes">,
    Option<"clockMHz", "clock-mhz", "double", /*default=*/"1000",
           "NPU clock">,
    Option<"tflops", "tflops", "double", /*default=*/"16",
           "F16 and BF16 peak, in TFLOPS (F32 at an eighth)">,
    Option<"ddrGBps", "ddr-gbps", "double", /*default=*/"64",
           "DDR bandwidth, in GB/s">,
  ];
}

#endif // LLMC_BACKENDS_COMMON_LAYERGROUP_PASSES_TD
