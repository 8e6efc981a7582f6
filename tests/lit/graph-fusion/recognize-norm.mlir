// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-recognize))' --split-input-file | filecheck %s

// LayerNorm over the last axis, axes as an input (opset 18 on), with gamma and beta.
// CHECK-LABEL: func.func @layer_norm
// CHECK-DAG: %[[G:.*]] = "graph.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}>
// CHECK-DAG: %[[B:.*]] = "graph.constant"() <{value = dense<[5.000000e-01, 0.000000e+00, -5.000000e-01, 1.000000e+00]> : tensor<4xf32>}>
// CHECK: %[[Y:.*]]:3 = "graph.LayerNormalization"(%arg0, %[[G]], %[[B]]) <{axis = 1 : i64, epsilon = 1.000000e-05 : f32}> : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, none, none)
// CHECK-NEXT: return %[[Y]]#0
func.func @layer_norm(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %axes = "graph.constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "graph.constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  %g = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b = "graph.constant"() <{value = dense<[0.5, 0.0, -0.5, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %m = "graph.ReduceMean"(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %d = "graph.Sub"(%x, %m) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %p = "graph.Pow"(%d, %two) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %v = "graph.ReduceMean"(%p, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %ve = "graph.Add"(%v, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %s = "graph.Sqrt"(%ve) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %n = "graph.Div"(%d, %s) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %y0 = "graph.Mul"(%n, %g) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %y = "graph.Add"(%y0, %b) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// Over the last two axes, d * d for the square, no affine part: gamma of ones, no beta.
// CHECK-LABEL: func.func @layer_norm_two_axes
// CHECK: "graph.LayerNormalization"(%arg0, %{{.*}}, %{{.*}}) <{axis = 1 : i64, epsilon = 1.000000e-03 : f32}> : (tensor<2x3x4xf32>, tensor<3x4xf32>, none) -> (tensor<2x3x4xf32>, none, none)
// CHECK-NOT: graph.ReduceMean
func.func @layer_norm_two_axes(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %axes = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %eps = "graph.constant"() <{value = dense<1.0e-3> : tensor<f32>}> : () -> tensor<f32>
  %m = "graph.ReduceMean"(%x, %axes) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %d = "graph.Sub"(%x, %m) : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %p = "graph.Mul"(%d, %d) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v = "graph.ReduceMean"(%p, %axes) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %ve = "graph.Add"(%eps, %v) : (tensor<f32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %s = "graph.Sqrt"(%ve) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %n = "graph.Div"(%d, %s) : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  return %n : tensor<2x3x4xf32>
}

// -----

// Negative: the mean is over axis 0, not the last axes.
// CHECK-LABEL: func.func @layer_norm_wrong_axis
// CHECK-NOT: graph.LayerNormalization
// CHECK: "graph.ReduceMean"
func.func @layer_norm_wrong_axis(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %axes = "graph.constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "graph.constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  %m = "graph.ReduceMean"(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
  %d = "graph.Sub"(%x, %m) : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %p = "graph.Pow"(%d, %two) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %v = "graph.ReduceMean"(%p, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
  %ve = "graph.Add"(%v, %eps) : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %s = "graph.Sqrt"(%ve) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %n = "graph.Div"(%d, %s) : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %n : tensor<3x4xf32>
}

// -----

// Negative: the square is Pow(d, 3), and (second function) the centered value has a third
// use, so no LayerNorm; what is left there is an exact RMSNorm of the centered value.
// CHECK-LABEL: func.func @layer_norm_cube
// CHECK-NOT: Normalization
// CHECK-LABEL: func.func @layer_norm_extra_use
// CHECK: %[[D:.*]] = "graph.Sub"(%arg0, %{{.*}})
// CHECK-NOT: graph.LayerNormalization
// CHECK: %[[N:.*]] = "graph.RMSNormalization"(%[[D]], %{{.*}}) <{axis = 1 : i64, epsilon = 1.000000e-05 : f32}>
// CHECK: return %[[N]], %[[D]]
func.func @layer_norm_cube(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %axes = "graph.constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %three = "graph.constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "graph.constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  %m = "graph.ReduceMean"(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %d = "graph.Sub"(%x, %m) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %p = "graph.Pow"(%d, %three) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %v = "graph.ReduceMean"(%p, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %ve = "graph.Add"(%v, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %s = "graph.Sqrt"(%ve) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %n = "graph.Div"(%d, %s) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %n : tensor<3x4xf32>
}
func.func @layer_norm_extra_use(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %axes = "graph.constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "graph.constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  %m = "graph.ReduceMean"(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %d = "graph.Sub"(%x, %m) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %p = "graph.Pow"(%d, %two) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %v = "graph.ReduceMean"(%p, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %ve = "graph.Add"(%v, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %s = "graph.Sqrt"(%ve) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %n = "graph.Div"(%d, %s) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %n, %d : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// RMSNorm: x * 1/sqrt(mean(x^2) + eps) * gamma.
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[Y:.*]] = "graph.RMSNormalization"(%arg0, %{{.*}}) <{axis = 2 : i64, epsilon = 1.000000e-06 : f32}> : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %axes = "graph.constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "graph.constant"() <{value = dense<1.0e-6> : tensor<f32>}> : () -> tensor<f32>
  %g = "graph.constant"() <{value = dense<[1.0, 0.5, 2.0, 1.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %p = "graph.Pow"(%x, %two) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %m = "graph.ReduceMean"(%p, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %me = "graph.Add"(%m, %eps) : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %s = "graph.Sqrt"(%me) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %r = "graph.Reciprocal"(%s) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %n = "graph.Mul"(%x, %r) : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %y = "graph.Mul"(%g, %n) : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// Negative: RMSNorm without keepdims does not broadcast back over the last axis.
// CHECK-LABEL: func.func @rms_norm_no_keepdims
// CHECK-NOT: graph.RMSNormalization
func.func @rms_norm_no_keepdims(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %axes = "graph.constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "graph.constant"() <{value = dense<1.0e-6> : tensor<f32>}> : () -> tensor<f32>
  %p = "graph.Pow"(%x, %two) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %m = "graph.ReduceMean"(%p, %axes) <{keepdims = 0 : i64}> : (tensor<4x4xf32>, tensor<1xi64>) -> tensor<4xf32>
  %me = "graph.Add"(%m, %eps) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %s = "graph.Sqrt"(%me) : (tensor<4xf32>) -> tensor<4xf32>
  %n = "graph.Div"(%x, %s) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}
