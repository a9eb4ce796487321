// The sampling head: repetition penalty over a window of 64 recent ids,
// top-50, temperature, run-time top-k and top-p, for the 512-token
// vocabulary of tiny-llama.
// RUN: llmc pieces -m %refdata/models/tiny-llama -s 64 --max-input-length 16 --piece sample_head | FileCheck %s
// RUN: llmc pieces -m %refdata/models/tiny-llama -s 64 --max-input-length 16 --piece sample_head --print-locations | FileCheck %s --check-prefix=LOC
// RUN: llmc pieces -m %refdata/models/tiny-llama -s 64 --max-input-length 16 --piece sample_head --sample-top-k 8 --penalty-window 16 | FileCheck %s --check-prefix=SIZED
// RUN: not llmc pieces -m %refdata/models/tiny-llama -s 64 --max-input-length 16 --piece sample_head --sample-top-k 0 2>&1 | FileCheck %s --check-prefix=INVALID

// CHECK-LABEL: func.func @sample_head(%arg0: tensor<1x512xf32>, %arg1: tensor<1x64xi32>, %arg2: tensor<1x1xf32>, %arg3: tensor<1x1xf32>, %arg4: tensor<1x1xf32>, %arg5: tensor<1x1xi32>) -> (tensor<1x50xf32> {llmc.role = "probs"}, tensor<1x50xi32> {llmc.role = "token_ids"})
// CHECK: %[[LOGITS:.*]] = top.Input %arg0 {role = "logits"}
// CHECK: %[[IDS:.*]] = top.Input %arg1 {role = "recent_ids"}
// CHECK: %[[PENALTY:.*]] = top.Input %arg2 {role = "penalty"}
// CHECK: %[[TEMPERATURE:.*]] = top.Input %arg3 {role = "temperature"}
// CHECK: %[[TOP_P:.*]] = top.Input %arg4 {role = "top_p"}
// CHECK: %[[TOP_K:.*]] = top.Input %arg5 {role = "top_k"}

// Empty window slots (negative ids) read and write a spare column 512.
// CHECK: %[[SPARE_VALUE:.*]] = top.Slice %[[LOGITS]] {{.*}} -> tensor<1x1xf32>
// CHECK: %[[WIDE:.*]] = top.Concat %[[LOGITS]], %[[SPARE_VALUE]] {axis = 1 : i64} : (tensor<1x512xf32>, tensor<1x1xf32>) -> tensor<1x513xf32>
// CHECK: %[[ZERO:.*]] = top.Constant dense<0> : tensor<1x1xi32>
// CHECK: %[[EMPTY:.*]] = top.Compare %[[IDS]], %[[ZERO]] {mode = #top<compare_mode lt>} : (tensor<1x64xi32>, tensor<1x1xi32>) -> tensor<1x64xi1>
// CHECK: %[[SPARE:.*]] = top.Constant dense<512> : tensor<1x1xi32>
// CHECK: %[[SLOTS:.*]] = top.Where %[[EMPTY]], %[[SPARE]], %[[IDS]]

// Penalize what the window saw, once per id, and write it back.
// CHECK: %[[PICKED:.*]] = top.Gather %[[WIDE]], %[[SLOTS]] {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>) -> tensor<1x1x64xf32>
// CHECK: %[[SEEN:.*]] = top.Reshape %[[PICKED]] : (tensor<1x1x64xf32>) -> tensor<1x64xf32>
// CHECK: %[[FZERO:.*]] = top.Constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK: %[[POSITIVE:.*]] = top.Compare %[[SEEN]], %[[FZERO]] {mode = #top<compare_mode gt>}
// CHECK: %[[SHRUNK:.*]] = top.Div %[[SEEN]], %[[PENALTY]]
// CHECK: %[[GROWN:.*]] = top.Mul %[[SEEN]], %[[PENALTY]]
// CHECK: %[[PENALIZED:.*]] = top.Where %[[POSITIVE]], %[[SHRUNK]], %[[GROWN]]
// CHECK: %[[SCATTERED:.*]] = top.ScatterElements %[[WIDE]], %[[SLOTS]], %[[PENALIZED]] {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x64xf32>) -> tensor<1x513xf32>
// CHECK: %[[ADJUSTED:.*]] = top.Slice %[[SCATTERED]] {ends = array<i64: 1, 512>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<1x513xf32>) -> tensor<1x512xf32>

// Top-k, then the temperature on the K survivors.
// CHECK: %[[VALUES:.*]], %[[TOKENS:.*]] = top.TopK %[[ADJUSTED]] {axis = 1 : i64, k = 50 : i64} : (tensor<1x512xf32>) -> (tensor<1x50xf32>, tensor<1x50xi32>)
// CHECK: %[[SCALED:.*]] = top.Div %[[VALUES]], %[[TEMPERATURE]] : (tensor<1x50xf32>, tensor<1x1xf32>) -> tensor<1x50xf32>

// The run-time top-k sends candidates ranked past top_k to -inf (the first
// always stays); top-p keeps a candidate when those above it hold less than
// top_p, and always the first; the survivors renormalize through a second
// softmax.
// CHECK: %[[NEG_INF:.*]] = top.Constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK: %[[FIRST:.*]] = top.Constant dense<{{\[\[}}true, false, {{.*}}, false]]> : tensor<1x50xi1>
// CHECK: %[[RANKS:.*]] = top.Constant dense<{{\[\[}}0, 1, 2, {{.*}}, 49]]> : tensor<1x50xi32>
// CHECK: %[[RANKED:.*]] = top.Compare %[[RANKS]], %[[TOP_K]] {mode = #top<compare_mode lt>} : (tensor<1x50xi32>, tensor<1x1xi32>) -> tensor<1x50xi1>
// CHECK: %[[IN_TOP_K:.*]] = top.Where %[[FIRST]], %[[FIRST]], %[[RANKED]]
// CHECK: %[[KEPT:.*]] = top.Where %[[IN_TOP_K]], %[[SCALED]], %[[NEG_INF]]
// CHECK: %[[PROBS:.*]] = top.Softmax %[[KEPT]] {axis = 1 : i64}
// CHECK: %[[BEFORE:.*]] = top.CumSum %[[PROBS]] {axis = 1 : i64, exclusive = true}
// CHECK: %[[BELOW:.*]] = top.Compare %[[BEFORE]], %[[TOP_P]] {mode = #top<compare_mode lt>} : (tensor<1x50xf32>, tensor<1x1xf32>) -> tensor<1x50xi1>
// CHECK: %[[KEEP:.*]] = top.Where %[[FIRST]], %[[FIRST]], %[[BELOW]]
// CHECK: %[[FILTERED:.*]] = top.Where %[[KEEP]], %[[KEPT]], %[[NEG_INF]] : (tensor<1x50xi1>, tensor<1x50xf32>, tensor<1x1xf32>) -> tensor<1x50xf32>
// CHECK: %[[OUT:.*]] = top.Softmax %[[FILTERED]] {axis = 1 : i64}
// CHECK: return %[[OUT]], %[[TOKENS]]

// The ops are located by stage.
// LOC: top.ScatterElements {{.*}} "sample_head.penalty"
// LOC: top.TopK {{.*}} "sample_head.top_k"
// LOC: top.Div {{.*}} "sample_head.temperature"
// LOC: top.CumSum {{.*}} "sample_head.top_p"

// --sample-top-k and --penalty-window size the head.
// SIZED-LABEL: func.func @sample_head(%arg0: tensor<1x512xf32>, %arg1: tensor<1x16xi32>, %arg2: tensor<1x1xf32>, %arg3: tensor<1x1xf32>, %arg4: tensor<1x1xf32>, %arg5: tensor<1x1xi32>) -> (tensor<1x8xf32> {llmc.role = "probs"}, tensor<1x8xi32> {llmc.role = "token_ids"})
// SIZED: top.TopK {{.*}} {axis = 1 : i64, k = 8 : i64}
// INVALID: the penalty window and the sampling top-k must be at least 1
