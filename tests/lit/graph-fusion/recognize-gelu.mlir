// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-recognize))' --split-input-file | filecheck %s

// PyTorch's form: x * (1 + erf(x / 1.4142)) * 0.5.
// CHECK-LABEL: func.func @gelu_torch
// CHECK-NEXT: %[[G:.*]] = "graph.Gelu"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_torch(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %s2 = "graph.constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
  %one = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Div"(%x, %s2) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = "graph.Erf"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = "graph.Add"(%1, %one) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = "graph.Mul"(%x, %2) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = "graph.Mul"(%3, %half) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// TF's form: x * 0.5 * (1 + erf(x * 0.7071)).
// CHECK-LABEL: func.func @gelu_tf
// CHECK-NEXT: %[[G:.*]] = "graph.Gelu"(%arg0)
// CHECK-NEXT: return %[[G]]
func.func @gelu_tf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.constant"() <{value = dense<0.7071> : tensor<f32>}> : () -> tensor<f32>
  %one = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %h = "graph.Mul"(%x, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %0 = "graph.Mul"(%r, %x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "graph.Erf"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Add"(%one, %1) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.Mul"(%h, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// The tanh approximation, with x^3 as Pow.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NEXT: %[[G:.*]] = "graph.Gelu"(%arg0) <{approximate = "tanh"}>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = "graph.constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
  %c = "graph.constant"() <{value = dense<0.044715> : tensor<f32>}> : () -> tensor<f32>
  %k = "graph.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
  %one = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Pow"(%x, %three) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "graph.Mul"(%0, %c) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = "graph.Add"(%x, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.Mul"(%2, %k) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = "graph.Tanh"(%3) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "graph.Add"(%4, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = "graph.Mul"(%x, %5) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = "graph.Mul"(%6, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %7 : tensor<4xf32>
}

// -----

// Negative: 0.6 is not 0.5.
// CHECK-LABEL: func.func @wrong_half
// CHECK-NOT: graph.Gelu
// CHECK: "graph.Erf"
func.func @wrong_half(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s2 = "graph.constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
  %one = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "graph.constant"() <{value = dense<0.6> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Div"(%x, %s2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "graph.Erf"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Add"(%1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = "graph.Mul"(%x, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "graph.Mul"(%3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Negative: dividing by 1.5 is not dividing by sqrt(2).
// CHECK-LABEL: func.func @wrong_sqrt2
// CHECK-NOT: graph.Gelu
// CHECK: "graph.Erf"
func.func @wrong_sqrt2(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s2 = "graph.constant"() <{value = dense<1.5> : tensor<f32>}> : () -> tensor<f32>
  %one = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Div"(%x, %s2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "graph.Erf"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Add"(%1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = "graph.Mul"(%x, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "graph.Mul"(%3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Negative: the Erf result has another use.
// CHECK-LABEL: func.func @extra_use
// CHECK-NOT: graph.Gelu
// CHECK: "graph.Erf"
func.func @extra_use(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s2 = "graph.constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
  %one = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Div"(%x, %s2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "graph.Erf"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Add"(%1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = "graph.Mul"(%x, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "graph.Mul"(%3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Negative: the erf argument is another value than the one multiplied.
// CHECK-LABEL: func.func @other_input
// CHECK-NOT: graph.Gelu
func.func @other_input(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s2 = "graph.constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
  %one = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Div"(%y, %s2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "graph.Erf"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Add"(%1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = "graph.Mul"(%x, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "graph.Mul"(%3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}
