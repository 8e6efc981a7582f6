// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-fuse-activation))' --split-input-file | filecheck %s

// Conv + per-channel Add + Relu: the Add goes into the bias, the Relu into a fused_conv.
// CHECK-LABEL: func.func @conv_add_relu
// CHECK: %[[B:.*]] = "graph.constant"() <{value = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[Y:.*]] = "graph.fused_conv"(%arg0, %{{.*}}, %[[B]]) <{activation = #graph.activation<relu>, pads = array<i64: 1, 1, 1, 1>}>
// CHECK-NOT: graph.Add
// CHECK-NOT: graph.Relu
// CHECK: return %[[Y]]
func.func @conv_add_relu(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x1x3x3xf32>}> : () -> tensor<2x1x3x3xf32>
  %b = "graph.constant"() <{value = dense<[1.0, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %k = "graph.constant"() <{value = dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>}> : () -> tensor<2x1x1xf32>
  %a = "graph.Add"(%k, %c) : (tensor<2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = "graph.Relu"(%a) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// Clip with constant bounds becomes clip with activation_params; LeakyRelu keeps its alpha.
// CHECK-LABEL: func.func @gemm_clip
// CHECK: "graph.fused_gemm"(%arg0, %{{.*}}, %{{.*}}) <{activation = #graph.activation<clip>, activation_params = array<f32: 0.000000e+00, 6.000000e+00>, transB = 1 : i64}>
// CHECK: "graph.fused_matmul"(%arg0, %{{.*}}, %{{.*}}) <{activation = #graph.activation<leaky_relu>, activation_params = array<f32: 2.000000e-01>}>
func.func @gemm_clip(%a: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>) {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %none = "graph.none"() : () -> none
  %g = "graph.Gemm"(%a, %w, %none) <{transB = 1 : i64}> : (tensor<2x3xf32>, tensor<4x3xf32>, none) -> tensor<2x4xf32>
  %lo = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %hi = "graph.constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %y = "graph.Clip"(%g, %lo, %hi) : (tensor<2x4xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4xf32>
  %m = "graph.constant"() <{value = dense<1.0> : tensor<3x3xf32>}> : () -> tensor<3x3xf32>
  %mm = "graph.MatMul"(%a, %m) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %bias = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %mb = "graph.Add"(%mm, %bias) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %z = "graph.LeakyRelu"(%mb) <{alpha = 0.2 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x4xf32>, tensor<2x3xf32>
}

// -----

// Gemm without C + constant row: the row becomes C.
// CHECK-LABEL: func.func @gemm_add
// CHECK: %[[G:.*]] = "graph.Gemm"(%arg0, %{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NOT: graph.Add
// CHECK: return %[[G]]
func.func @gemm_add(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %none = "graph.none"() : () -> none
  %g = "graph.Gemm"(%a, %w, %none) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %y = "graph.Add"(%g, %c) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Negative: the product has a second use, so the Relu stays.
// CHECK-LABEL: func.func @extra_use
// CHECK: "graph.MatMul"
// CHECK: "graph.Relu"
// CHECK-NOT: fused
func.func @extra_use(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %m = "graph.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %r = "graph.Relu"(%m) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r, %m : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Negative: a Clip bound that is not a constant, an Add that is not per channel, and f16.
// CHECK-LABEL: func.func @not_fusable
// CHECK: "graph.Clip"
// CHECK: "graph.Add"
// CHECK: "graph.Relu"
// CHECK: "graph.Relu"
// CHECK-NOT: fused
func.func @not_fusable(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>, %hi: tensor<f32>, %x: tensor<1x1x4x4xf32>, %h: tensor<2x3xf16>, %hb: tensor<3x3xf16>) -> (tensor<2x3xf32>, tensor<1x2x4x4xf32>, tensor<2x3xf16>) {
  %m = "graph.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %lo = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %c = "graph.Clip"(%m, %lo, %hi) : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %none = "graph.none"() : () -> none
  %cv = "graph.Conv"(%x, %w, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %k = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %ad = "graph.Add"(%cv, %k) : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  %r = "graph.Relu"(%ad) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %hm = "graph.MatMul"(%h, %hb) : (tensor<2x3xf16>, tensor<3x3xf16>) -> tensor<2x3xf16>
  %hr = "graph.Relu"(%hm) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  return %c, %r, %hr : tensor<2x3xf32>, tensor<1x2x4x4xf32>, tensor<2x3xf16>
}
