//===- TpuAttrs.td - attributes of the tpu dialect --------*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TPU_TPUATTRS_TD
#define LLMC_DIALECTS_TPU_TPUATTRS_TD

include "dialects/tpu/IR/TpuBase.td"
include "dialects/tpu/IR/TpuEnums.td"

class Tpu_Attr<string name, string attrMnemonic>
    : AttrDef<Tpu_Dialect, name> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tpu_LayerGroupAttr : Tpu_Attr<"LayerGroup", "lg"> {
  let summary = "an op's place in its layer group";
  let description = [{
    Written by the layer-group pass on every op of a `tpu.Group`. `id` names
    the group (its `group_id`); `stage` is the software-pipeline stage the
    op runs in (below the group's `stages`); `timestep` orders the op among
    the group's ops, so DMA of one tile overlaps compute of another;
    `local_addr` and `local_size` place the op's result in local memory (in
    bytes); `bank` is the local-memory bank the result starts in, which the
    group keeps apart from the banks its operands use. `rows_per_lane`, when
    positive, spreads a held result's rows over the lanes, that many on each
    (a prefill's norm or attention output, read by projections that split
    rows); absent (0), a held norm is whole on every lane.

    ```mlir
    #tpu.lg<id = 0, stage = 1, timestep = 2, local_addr = 4096, local_size = 8192, bank = 3>
    #tpu.lg<id = 1, stage = 1, timestep = 1, local_addr = 245760, local_size = 16384, bank = 15, rows_per_lane = 8>
    ```
  }];
  let parameters = (ins "int64_t":$id, "int64_t":$stage, "int64_t":$timestep,
                        "int64_t":$local_addr, "int64_t":$local_size,
                        "int64_t":$bank,
                        DefaultValuedParameter<"int64_t", "0">:$rows_per_lane);
}

def Tpu_MemAttr : Tpu_Attr<"Mem", "mem"> {
  let summary = "a range of global memory";
  let description = [{
    `size` bytes at `offset` in global-memory region `region`, as the
    address-assignment pass decides them. The size is at least the bytes of
    the value it holds; it may be larger for alignment.

    ```mlir
    #tpu.mem<region = activation, offset = 65536, size = 4096>
    ```
  }];
  let parameters = (ins EnumParameter<Tpu_MemRegion>:$region,
                        "int64_t":$offset, "int64_t":$size);
}

def Tpu_CoreSplitAttr : Tpu_Attr<"CoreSplit", "core_split"> {
  let summary = "how an op is split across the cores of a chip";
  let description = [{
    The op runs on `cores` cores, each computing a slice of its results
    along dimension `axis` (for a MatMul, usually N: each core streams its
    own part of the weight).

    ```mlir
    #tpu.core_split<cores = 2, axis = 1>
    ```
  }];
  let parameters = (ins "int64_t":$cores, "int64_t":$axis);
}

/// The global-memory addresses of an op's results, one per result.
def Tpu_MemArrayAttr
    : TypedArrayAttrBase<Tpu_MemAttr, "one #tpu.mem per result">;

#endif // LLMC_DIALECTS_TPU_TPUATTRS_TD
