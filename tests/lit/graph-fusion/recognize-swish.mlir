// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-recognize))' --split-input-file | filecheck %s

// CHECK-LABEL: func.func @silu
// CHECK-NEXT: %[[S:.*]] = "graph.Swish"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[S]]
func.func @silu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "graph.Sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.Mul"(%x, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @hard_swish_hard_sigmoid
// CHECK-NEXT: %[[H:.*]] = "graph.HardSwish"(%arg0)
// CHECK-NEXT: return %[[H]]
func.func @hard_swish_hard_sigmoid(%x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = "graph.HardSigmoid"(%x) <{alpha = 0.166666672 : f32, beta = 0.5 : f32}> : (tensor<5xf32>) -> tensor<5xf32>
  %1 = "graph.Mul"(%0, %x) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return %1 : tensor<5xf32>
}

// -----

// x * Relu6(x + 3) / 6.
// CHECK-LABEL: func.func @hard_swish_relu6
// CHECK-NEXT: %[[H:.*]] = "graph.HardSwish"(%arg0)
// CHECK-NEXT: return %[[H]]
func.func @hard_swish_relu6(%x: tensor<5xf32>) -> tensor<5xf32> {
  %three = "graph.constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
  %zero = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %six = "graph.constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Add"(%x, %three) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  %1 = "graph.Clip"(%0, %zero, %six) : (tensor<5xf32>, tensor<f32>, tensor<f32>) -> tensor<5xf32>
  %2 = "graph.Mul"(%x, %1) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %3 = "graph.Div"(%2, %six) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  return %3 : tensor<5xf32>
}

// -----

// Negative: HardSigmoid's default alpha 0.2 is not 1/6.
// CHECK-LABEL: func.func @hard_sigmoid_default_alpha
// CHECK-NOT: graph.HardSwish
// CHECK: "graph.HardSigmoid"
func.func @hard_sigmoid_default_alpha(%x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = "graph.HardSigmoid"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  %1 = "graph.Mul"(%0, %x) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return %1 : tensor<5xf32>
}

// -----

// Negative: Clip(x + 3, 0, 5) is not Relu6.
// CHECK-LABEL: func.func @clip_to_five
// CHECK-NOT: graph.HardSwish
func.func @clip_to_five(%x: tensor<5xf32>) -> tensor<5xf32> {
  %three = "graph.constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
  %zero = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %five = "graph.constant"() <{value = dense<5.0> : tensor<f32>}> : () -> tensor<f32>
  %six = "graph.constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Add"(%x, %three) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  %1 = "graph.Clip"(%0, %zero, %five) : (tensor<5xf32>, tensor<f32>, tensor<f32>) -> tensor<5xf32>
  %2 = "graph.Mul"(%x, %1) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %3 = "graph.Div"(%2, %six) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  return %3 : tensor<5xf32>
}

// -----

// Negative: the sigmoid of another value, and a sigmoid with another use.
// CHECK-LABEL: func.func @not_silu
// CHECK-NOT: graph.Swish
func.func @not_silu(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "graph.Sigmoid"(%y) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "graph.Mul"(%x, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.Mul"(%x, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %3, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
