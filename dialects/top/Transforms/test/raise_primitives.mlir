// RUN: llmc-opt %s --split-input-file --top-raise-primitives | FileCheck %s

// Each fused op from the primitives an ONNX export of Hugging Face's eager
// code spells it in, and near misses that must stay primitive.

// CHECK-LABEL: func.func @rmsnorm
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8xf32>)
// CHECK: %[[W:.*]] = top.Weight "norm.weight"
// CHECK: %[[Y:.*]] = top.RMSNorm %[[X]], %[[W]] {eps = 9.9999999999999995E-7 : f64} : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
// CHECK-NOT: top.Pow
// CHECK: return %[[Y]]
func.func @rmsnorm(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %sq = top.Pow %x {exponent = 2.0 : f64} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %mean = top.ReduceMean %sq {axes = array<i64: -1>} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %eps = top.Constant dense<9.99999997E-7> : tensor<f32>
  %var = top.Add %mean, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %root = top.Sqrt %var : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %one = top.Constant dense<1.0> : tensor<f32>
  %inv = top.Div %one, %root : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %n = top.Mul %x, %inv : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %w = top.Weight "norm.weight" : () -> tensor<8xf32>
  %y = top.Mul %w, %n : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Without a weight the norm has none; normalizing another tensor than the
// one squared, another exponent or another axis is no RMSNorm.

// CHECK-LABEL: func.func @rmsnorm_near_misses
// CHECK: %[[NONE:.*]] = top.None
// CHECK: top.RMSNorm %{{.*}}, %[[NONE]]
// CHECK-COUNT-3: top.Mul %
// CHECK-NOT: top.RMSNorm
func.func @rmsnorm_near_misses(%x: tensor<1x4x8xf32>, %z: tensor<1x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<4x1x8xf32>) {
  %eps = top.Constant dense<1.0E-5> : tensor<f32>
  %one = top.Constant dense<1.0> : tensor<f32>
  %sq = top.Pow %x {exponent = 2.0 : f64} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %mean = top.ReduceMean %sq {axes = array<i64: 2>} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %var = top.Add %eps, %mean : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %root = top.Sqrt %var : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %inv = top.Div %one, %root : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %plain = top.Mul %inv, %x : (tensor<1x4x1xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %other = top.Mul %z, %inv : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %cube = top.Pow %x {exponent = 3.0 : f64} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %cmean = top.ReduceMean %cube {axes = array<i64: -1>} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %cvar = top.Add %cmean, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %croot = top.Sqrt %cvar : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %cinv = top.Div %one, %croot : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %cubic = top.Mul %x, %cinv : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %t = top.Reshape %x : (tensor<1x4x8xf32>) -> tensor<4x1x8xf32>
  %tsq = top.Pow %t {exponent = 2.0 : f64} : (tensor<4x1x8xf32>) -> tensor<4x1x8xf32>
  %tmean = top.ReduceMean %tsq {axes = array<i64: 0>} : (tensor<4x1x8xf32>) -> tensor<1x1x8xf32>
  %tvar = top.Add %tmean, %eps : (tensor<1x1x8xf32>, tensor<f32>) -> tensor<1x1x8xf32>
  %troot = top.Sqrt %tvar : (tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  %tinv = top.Div %one, %troot : (tensor<f32>, tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  %wrongAxis = top.Mul %t, %tinv : (tensor<4x1x8xf32>, tensor<1x1x8xf32>) -> tensor<4x1x8xf32>
  return %plain, %other, %cubic, %wrongAxis : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<4x1x8xf32>
}

// -----

// The gated MLP, its weights in ONNX's [in, out] layout: top.MLP reads them
// transposed, in Linear layout.

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8xf32>)
// CHECK-DAG: %[[WG:.*]] = top.Weight "gate"
// CHECK-DAG: %[[WU:.*]] = top.Weight "up"
// CHECK-DAG: %[[WD:.*]] = top.Weight "down"
// CHECK-DAG: %[[G:.*]] = top.Permute %[[WG]] {order = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
// CHECK-DAG: %[[U:.*]] = top.Permute %[[WU]] {order = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
// CHECK-DAG: %[[D:.*]] = top.Permute %[[WD]] {order = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
// CHECK: top.MLP %[[X]], %[[G]], %[[U]], %[[D]] : (tensor<1x4x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<1x4x8xf32>
// CHECK-NOT: top.Sigmoid
func.func @mlp(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %none = top.None : none
  %wg = top.Weight "gate" : () -> tensor<8x16xf32>
  %wu = top.Weight "up" : () -> tensor<8x16xf32>
  %wd = top.Weight "down" : () -> tensor<16x8xf32>
  %g = top.MatMul %x, %wg, %none : (tensor<1x4x8xf32>, tensor<8x16xf32>, none) -> tensor<1x4x16xf32>
  %s = top.Sigmoid %g : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %a = top.Mul %g, %s : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %u = top.MatMul %x, %wu, %none : (tensor<1x4x8xf32>, tensor<8x16xf32>, none) -> tensor<1x4x16xf32>
  %h = top.Mul %a, %u : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %y = top.MatMul %h, %wd, %none : (tensor<1x4x16xf32>, tensor<16x8xf32>, none) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// An ungated product, or gate and up reading different inputs, is no MLP
// (the SiLU is still recognised).

// CHECK-LABEL: func.func @mlp_near_miss
// CHECK: top.SiLU
// CHECK-NOT: top.MLP
func.func @mlp_near_miss(%x: tensor<1x4x8xf32>, %z: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %none = top.None : none
  %wg = top.Weight "gate" : () -> tensor<8x16xf32>
  %wu = top.Weight "up" : () -> tensor<8x16xf32>
  %wd = top.Weight "down" : () -> tensor<16x8xf32>
  %g = top.MatMul %x, %wg, %none : (tensor<1x4x8xf32>, tensor<8x16xf32>, none) -> tensor<1x4x16xf32>
  %s = top.Sigmoid %g : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %a = top.Mul %s, %g : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %u = top.MatMul %z, %wu, %none : (tensor<1x4x8xf32>, tensor<8x16xf32>, none) -> tensor<1x4x16xf32>
  %h = top.Mul %a, %u : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %y = top.MatMul %h, %wd, %none : (tensor<1x4x16xf32>, tensor<16x8xf32>, none) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Hugging Face's rotary embedding on heads-first q [1, H, L, D] with the
// cos/sin rows unsqueezed at dim 1: top.Rope on the tokens-first tensor,
// whose permutes cancel the export's.

// CHECK-LABEL: func.func @rope
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x2x8xf32>, %[[COS:.*]]: tensor<1x4x8xf32>, %[[SIN:.*]]: tensor<1x4x8xf32>)
// CHECK: %[[R:.*]] = top.Rope %[[Q]], %[[COS]], %[[SIN]] : (tensor<1x4x2x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x2x8xf32>
// CHECK-NOT: top.Permute
// CHECK: return %[[R]]
func.func @rope(%q0: tensor<1x4x2x8xf32>, %cos: tensor<1x4x8xf32>, %sin: tensor<1x4x8xf32>) -> tensor<1x4x2x8xf32> {
  %q = top.Permute %q0 {order = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %c = top.Reshape %cos : (tensor<1x4x8xf32>) -> tensor<1x1x4x8xf32>
  %s = top.Reshape %sin : (tensor<1x4x8xf32>) -> tensor<1x1x4x8xf32>
  %x1 = top.Slice %q {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 4, 4>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
  %x2 = top.Slice %q {starts = array<i64: 0, 0, 0, 4>, ends = array<i64: 1, 2, 4, 8>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
  %neg = top.MulConst %x2 {const_val = -1.0 : f64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %rot = top.Concat %neg, %x1 {axis = 3 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
  %a = top.Mul %q, %c : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  %b = top.Mul %rot, %s : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  %y = top.Add %a, %b : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %back = top.Permute %y {order = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x8xf32>) -> tensor<1x4x2x8xf32>
  return %back : tensor<1x4x2x8xf32>
}

// -----

// The inverse rotation (concat(x1, -x2)) and halves that do not split the
// last axis in two are no Hugging Face rotary embedding.

// CHECK-LABEL: func.func @rope_near_misses
// CHECK-NOT: top.Rope
func.func @rope_near_misses(%q: tensor<1x2x4x8xf32>, %cos: tensor<1x4x8xf32>, %sin: tensor<1x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %c = top.Reshape %cos : (tensor<1x4x8xf32>) -> tensor<1x1x4x8xf32>
  %s = top.Reshape %sin : (tensor<1x4x8xf32>) -> tensor<1x1x4x8xf32>
  %x1 = top.Slice %q {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 4, 4>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
  %x2 = top.Slice %q {starts = array<i64: 0, 0, 0, 4>, ends = array<i64: 1, 2, 4, 8>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
  %neg1 = top.MulConst %x1 {const_val = -1.0 : f64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %inverse = top.Concat %neg1, %x2 {axis = 3 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
  %a = top.Mul %q, %c : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  %b = top.Mul %inverse, %s : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  %y = top.Add %a, %b : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %y1 = top.Slice %q {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 4, 2>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x2xf32>
  %y2 = top.Slice %q {starts = array<i64: 0, 0, 0, 2>, ends = array<i64: 1, 2, 4, 8>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x6xf32>
  %neg2 = top.MulConst %y2 {const_val = -1.0 : f64} : (tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %uneven = top.Concat %neg2, %y1 {axis = 3 : i64} : (tensor<1x2x4x6xf32>, tensor<1x2x4x2xf32>) -> tensor<1x2x4x8xf32>
  %d = top.Mul %uneven, %s : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  %z = top.Add %a, %d : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %y, %z : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// Eager attention of a decode step: 4 query heads over 2 KV heads of the
// history and the new token, joined heads-first, repeated by repeat_kv,
// scaled by 1 / sqrt(8), masked, and merged back to [1, 1, 32].

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<1x1x4x8xf32>, %[[HK:.*]]: tensor<1x6x2x8xf32>, %[[K:.*]]: tensor<1x1x2x8xf32>, %[[HV:.*]]: tensor<1x6x2x8xf32>, %[[V:.*]]: tensor<1x1x2x8xf32>, %[[M:.*]]: tensor<1x1x7xf32>)
// CHECK-DAG: %[[KS:.*]] = top.Concat %[[HK]], %[[K]] {axis = 1 : i64}
// CHECK-DAG: %[[VS:.*]] = top.Concat %[[HV]], %[[V]] {axis = 1 : i64}
// CHECK: %[[O:.*]] = top.FAttention %[[Q]], %[[KS]], %[[VS]], %[[M]] {head_dim = 8 : i64, kv_head = 2 : i64, q_head = 4 : i64, scale = 0.35355339059327373 : f64} : (tensor<1x1x4x8xf32>, tensor<1x7x2x8xf32>, tensor<1x7x2x8xf32>, tensor<1x1x7xf32>) -> tensor<1x1x32xf32>
// CHECK-NOT: top.Softmax
// CHECK-NOT: top.Permute
// CHECK: return %[[O]]
func.func @attention(%q0: tensor<1x1x4x8xf32>, %hk: tensor<1x6x2x8xf32>, %k0: tensor<1x1x2x8xf32>, %hv: tensor<1x6x2x8xf32>, %v0: tensor<1x1x2x8xf32>, %mask: tensor<1x1x7xf32>) -> tensor<1x1x32xf32> {
  %none = top.None : none
  %q = top.Permute %q0 {order = array<i64: 0, 2, 1, 3>} : (tensor<1x1x4x8xf32>) -> tensor<1x4x1x8xf32>
  %k1 = top.Permute %k0 {order = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x8xf32>) -> tensor<1x2x1x8xf32>
  %v1 = top.Permute %v0 {order = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x8xf32>) -> tensor<1x2x1x8xf32>
  %hk1 = top.Permute %hk {order = array<i64: 0, 2, 1, 3>} : (tensor<1x6x2x8xf32>) -> tensor<1x2x6x8xf32>
  %hv1 = top.Permute %hv {order = array<i64: 0, 2, 1, 3>} : (tensor<1x6x2x8xf32>) -> tensor<1x2x6x8xf32>
  %k = top.Concat %hk1, %k1 {axis = 2 : i64} : (tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x7x8xf32>
  %v = top.Concat %hv1, %v1 {axis = 2 : i64} : (tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x7x8xf32>
  %ku = top.Reshape %k : (tensor<1x2x7x8xf32>) -> tensor<1x2x1x7x8xf32>
  %ke = top.Expand %ku : (tensor<1x2x1x7x8xf32>) -> tensor<1x2x2x7x8xf32>
  %kr = top.Reshape %ke : (tensor<1x2x2x7x8xf32>) -> tensor<1x4x7x8xf32>
  %vu = top.Reshape %v : (tensor<1x2x7x8xf32>) -> tensor<1x2x1x7x8xf32>
  %ve = top.Expand %vu : (tensor<1x2x1x7x8xf32>) -> tensor<1x2x2x7x8xf32>
  %vr = top.Reshape %ve : (tensor<1x2x2x7x8xf32>) -> tensor<1x4x7x8xf32>
  %kt = top.Permute %kr {order = array<i64: 0, 1, 3, 2>} : (tensor<1x4x7x8xf32>) -> tensor<1x4x8x7xf32>
  %s = top.MatMul %q, %kt, %none : (tensor<1x4x1x8xf32>, tensor<1x4x8x7xf32>, none) -> tensor<1x4x1x7xf32>
  %d = top.Constant dense<2.82842708> : tensor<f32>
  %scaled = top.Div %s, %d : (tensor<1x4x1x7xf32>, tensor<f32>) -> tensor<1x4x1x7xf32>
  %m = top.Reshape %mask : (tensor<1x1x7xf32>) -> tensor<1x1x1x7xf32>
  %masked = top.Add %scaled, %m : (tensor<1x4x1x7xf32>, tensor<1x1x1x7xf32>) -> tensor<1x4x1x7xf32>
  %p = top.Softmax %masked {axis = -1 : i64} : (tensor<1x4x1x7xf32>) -> tensor<1x4x1x7xf32>
  %o = top.MatMul %p, %vr, %none : (tensor<1x4x1x7xf32>, tensor<1x4x7x8xf32>, none) -> tensor<1x4x1x8xf32>
  %ot = top.Permute %o {order = array<i64: 0, 2, 1, 3>} : (tensor<1x4x1x8xf32>) -> tensor<1x1x4x8xf32>
  %y = top.Reshape %ot : (tensor<1x1x4x8xf32>) -> tensor<1x1x32xf32>
  return %y : tensor<1x1x32xf32>
}

// -----

// A softmax over the queries, or a scale that is not a constant, is no
// scaled-dot-product attention.

// CHECK-LABEL: func.func @attention_near_misses
// CHECK-NOT: top.FAttention
func.func @attention_near_misses(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %t: tensor<f32>) -> (tensor<1x4x16xf32>, tensor<1x4x16xf32>) {
  %none = top.None : none
  %kt = top.Permute %k {order = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = top.MatMul %q, %kt, %none : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>, none) -> tensor<1x2x4x4xf32>
  %p = top.Softmax %s {axis = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %o = top.MatMul %p, %v, %none : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>, none) -> tensor<1x2x4x8xf32>
  %ot = top.Permute %o {order = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x8xf32>) -> tensor<1x4x2x8xf32>
  %y = top.Reshape %ot : (tensor<1x4x2x8xf32>) -> tensor<1x4x16xf32>
  %scaled = top.Div %s, %t : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %p2 = top.Softmax %scaled {axis = -1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %o2 = top.MatMul %p2, %v, %none : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>, none) -> tensor<1x2x4x8xf32>
  %ot2 = top.Permute %o2 {order = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x8xf32>) -> tensor<1x4x2x8xf32>
  %y2 = top.Reshape %ot2 : (tensor<1x4x2x8xf32>) -> tensor<1x4x16xf32>
  return %y, %y2 : tensor<1x4x16xf32>, tensor<1x4x16xf32>
}
