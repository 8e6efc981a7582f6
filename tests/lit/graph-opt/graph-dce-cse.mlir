// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --split-input-file | filecheck %s

// Graph-level DCE: dead pure graph ops go (canonicalize erases ops whose results nobody uses).
// CHECK-LABEL: func.func @dce(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = "graph.Relu"(%arg0)
// CHECK-NEXT: return %[[R]]
func.func @dce(%x: tensor<4xf32>) -> tensor<4xf32> {
  %dead = "graph.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %dead2 = "graph.Exp"(%dead) : (tensor<4xf32>) -> tensor<4xf32>
  %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Graph-level CSE: identical graph ops (operands, attributes, types) merge; different
// attributes keep them apart.
// CHECK-LABEL: func.func @cse(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%arg0) <{perm = array<i64: 1, 0>}>
// CHECK-NEXT: %[[S1:.*]] = "graph.Softmax"(%arg0) <{axis = 0 : i64}>
// CHECK-NEXT: %[[S2:.*]] = "graph.Softmax"(%arg0) <{axis = 1 : i64}>
// CHECK-NEXT: return %[[T]], %[[T]], %[[S1]], %[[S2]]
func.func @cse(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = "graph.Softmax"(%x) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = "graph.Softmax"(%x) <{axis = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c, %d : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Negative: random ops are not pure, so two of them are not merged, and an unused one stays.
// CHECK-LABEL: func.func @random
// CHECK-COUNT-3: "graph.RandomUniformLike"
func.func @random(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = "graph.RandomUniformLike"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %b = "graph.RandomUniformLike"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %c = "graph.RandomUniformLike"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}
