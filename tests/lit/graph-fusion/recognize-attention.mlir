// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-recognize))' --split-input-file | filecheck %s

// 4-D [B, H, S, D] with a Div scale and an additive mask.
// CHECK-LABEL: func.func @attention_4d
// CHECK: %[[N:.*]] = "graph.none"
// CHECK: %[[A:.*]]:4 = "graph.Attention"(%arg0, %arg1, %arg2, %arg3, %[[N]], %[[N]], %[[N]]) <{scale = 2.500000e-01 : f32}> : (tensor<2x4x8x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32>, tensor<8x6xf32>, none, none, none) -> (tensor<2x4x8x16xf32>, none, none, none)
// CHECK-NEXT: return %[[A]]#0
func.func @attention_4d(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<2x4x6x16xf32>, %m: tensor<8x6xf32>) -> tensor<2x4x8x16xf32> {
  %kt = "graph.Transpose"(%k) <{perm = array<i64: 0, 1, 3, 2>}> : (tensor<2x4x6x16xf32>) -> tensor<2x4x16x6xf32>
  %s = "graph.MatMul"(%q, %kt) : (tensor<2x4x8x16xf32>, tensor<2x4x16x6xf32>) -> tensor<2x4x8x6xf32>
  %c = "graph.constant"() <{value = dense<4.0> : tensor<f32>}> : () -> tensor<f32>
  %sc = "graph.Div"(%s, %c) : (tensor<2x4x8x6xf32>, tensor<f32>) -> tensor<2x4x8x6xf32>
  %ma = "graph.Add"(%sc, %m) : (tensor<2x4x8x6xf32>, tensor<8x6xf32>) -> tensor<2x4x8x6xf32>
  %p = "graph.Softmax"(%ma) <{axis = -1 : i64}> : (tensor<2x4x8x6xf32>) -> tensor<2x4x8x6xf32>
  %y = "graph.MatMul"(%p, %v) : (tensor<2x4x8x6xf32>, tensor<2x4x6x16xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

// 3-D [B, S, D]: one head; a Mul scale; no scale op at all would be scale 1.
// CHECK-LABEL: func.func @attention_3d
// CHECK: "graph.Attention"(%arg0, %arg1, %arg2, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kv_num_heads = 1 : i64, q_num_heads = 1 : i64, scale = 1.250000e-01 : f32}>
// CHECK-LABEL: func.func @attention_unscaled
// CHECK: "graph.Attention"(%arg0, %arg1, %arg2, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kv_num_heads = 1 : i64, q_num_heads = 1 : i64, scale = 1.000000e+00 : f32}>
func.func @attention_3d(%q: tensor<1x5x8xf32>, %k: tensor<1x7x8xf32>, %v: tensor<1x7x3xf32>) -> tensor<1x5x3xf32> {
  %kt = "graph.Transpose"(%k) <{perm = array<i64: 0, 2, 1>}> : (tensor<1x7x8xf32>) -> tensor<1x8x7xf32>
  %s = "graph.MatMul"(%q, %kt) : (tensor<1x5x8xf32>, tensor<1x8x7xf32>) -> tensor<1x5x7xf32>
  %c = "graph.constant"() <{value = dense<0.125> : tensor<f32>}> : () -> tensor<f32>
  %sc = "graph.Mul"(%c, %s) : (tensor<f32>, tensor<1x5x7xf32>) -> tensor<1x5x7xf32>
  %p = "graph.Softmax"(%sc) <{axis = 2 : i64}> : (tensor<1x5x7xf32>) -> tensor<1x5x7xf32>
  %y = "graph.MatMul"(%p, %v) : (tensor<1x5x7xf32>, tensor<1x7x3xf32>) -> tensor<1x5x3xf32>
  return %y : tensor<1x5x3xf32>
}
func.func @attention_unscaled(%q: tensor<1x5x8xf32>, %k: tensor<1x7x8xf32>, %v: tensor<1x7x3xf32>) -> tensor<1x5x3xf32> {
  %kt = "graph.Transpose"(%k) <{perm = array<i64: 0, 2, 1>}> : (tensor<1x7x8xf32>) -> tensor<1x8x7xf32>
  %s = "graph.MatMul"(%q, %kt) : (tensor<1x5x8xf32>, tensor<1x8x7xf32>) -> tensor<1x5x7xf32>
  %p = "graph.Softmax"(%s) : (tensor<1x5x7xf32>) -> tensor<1x5x7xf32>
  %y = "graph.MatMul"(%p, %v) : (tensor<1x5x7xf32>, tensor<1x7x3xf32>) -> tensor<1x5x3xf32>
  return %y : tensor<1x5x3xf32>
}

// -----

// Negative: softmax over axis 2 of 4-D scores is not attention's last-axis softmax.
// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK-NOT: graph.Attention
func.func @softmax_wrong_axis(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %kt = "graph.Transpose"(%k) <{perm = array<i64: 0, 1, 3, 2>}> : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = "graph.MatMul"(%q, %kt) : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = "graph.Softmax"(%s) <{axis = 2 : i64}> : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = "graph.MatMul"(%p, %v) : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %y : tensor<1x2x4x8xf32>
}

// -----

// Negative: a transpose that swaps the heads, not the last two axes.
// CHECK-LABEL: func.func @wrong_transpose
// CHECK-NOT: graph.Attention
func.func @wrong_transpose(%q: tensor<1x4x4x4xf32>, %k: tensor<1x4x4x4xf32>, %v: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %kt = "graph.Transpose"(%k) <{perm = array<i64: 0, 2, 1, 3>}> : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s = "graph.MatMul"(%q, %kt) : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = "graph.Softmax"(%s) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %y = "graph.MatMul"(%p, %v) : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Negative: the probabilities have another use (returned), and (second function) a K batch
// of 1 that MatMul broadcasts but Attention does not.
// CHECK-LABEL: func.func @probabilities_used
// CHECK-NOT: graph.Attention
// CHECK-LABEL: func.func @broadcast_batch
// CHECK-NOT: graph.Attention
func.func @probabilities_used(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>) {
  %kt = "graph.Transpose"(%k) <{perm = array<i64: 0, 1, 3, 2>}> : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = "graph.MatMul"(%q, %kt) : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = "graph.Softmax"(%s) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = "graph.MatMul"(%p, %v) : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %y, %p : tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>
}
func.func @broadcast_batch(%q: tensor<2x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %kt = "graph.Transpose"(%k) <{perm = array<i64: 0, 1, 3, 2>}> : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = "graph.MatMul"(%q, %kt) : (tensor<2x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<2x2x4x4xf32>
  %p = "graph.Softmax"(%s) : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %y = "graph.MatMul"(%p, %v) : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
  return %y : tensor<2x2x4x8xf32>
}
