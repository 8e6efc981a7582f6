// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-fold-constants)' --split-input-file | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-fold-constants{max-elements=3})' --split-input-file | filecheck %s --check-prefix=SMALL

// A whole constant subgraph (Add, Mul, Relu of constants) collapses into one constant; the
// constants that fed it go.
// CHECK-LABEL: func.func @subgraph(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[0.000000e+00, 4.000000e+00, 8.000000e+00, 1.200000e+01]> : tensor<4xf32>}>
// CHECK-NEXT: %[[R:.*]] = "graph.Add"(%arg0, %[[C]])
// CHECK-NEXT: return %[[R]]
// SMALL-LABEL: func.func @subgraph
// SMALL: "graph.Mul"
func.func @subgraph(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = "graph.constant"() <{value = dense<[-1.0, 1.0, 3.0, 5.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b = "graph.constant"() <{value = dense<2.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %s = "graph.Add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = "graph.Mul"(%s, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %k = "graph.Sub"(%m, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = "graph.Relu"(%k) : (tensor<4xf32>) -> tensor<4xf32>
  %y = "graph.Add"(%x, %r) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Shape arithmetic on constants: Concat, Cast and a Gather of integers.
// CHECK-LABEL: func.func @shape_arith(%arg0: tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: %[[S:.*]] = "graph.constant"() <{value = dense<[2, 12]> : tensor<2xi64>}>
// CHECK-NEXT: %[[R:.*]] = "graph.Reshape"(%arg0, %[[S]])
// CHECK-NEXT: return %[[R]]
func.func @shape_arith(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %d = "graph.constant"() <{value = dense<[2.0, 3.0, 4.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %i = "graph.Cast"(%d) <{to = 7 : i64}> : (tensor<3xf32>) -> tensor<3xi64>
  %k0 = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %k1 = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %g0 = "graph.Gather"(%i, %k0) : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %g1 = "graph.Gather"(%i, %k1) : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %none = "graph.none"() : () -> none
  %p = "graph.ReduceProd"(%g1, %none) <{keepdims = 1 : i64}> : (tensor<2xi64>, none) -> tensor<1xi64>
  %s = "graph.Concat"(%g0, %p) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = "graph.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

// A MatMul of two constants is evaluated by the interpreter's kernel.
// CHECK-LABEL: func.func @matmul() -> tensor<2x2xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<{{\[\[}}1.900000e+01, 2.200000e+01], [4.300000e+01, 5.000000e+01]]> : tensor<2x2xf32>}>
// CHECK-NEXT: return %[[C]]
func.func @matmul() -> tensor<2x2xf32> {
  %a = "graph.constant"() <{value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %b = "graph.constant"() <{value = dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %c = "graph.MatMul"(%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// Negative: a random op is never folded, even with constant operands.
// CHECK-LABEL: func.func @random
// CHECK: "graph.RandomUniformLike"
func.func @random() -> tensor<3xf32> {
  %a = "graph.constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %r = "graph.RandomUniformLike"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Negative: an op with a non-constant operand stays.
// CHECK-LABEL: func.func @not_constant
// CHECK: "graph.Add"(%arg0
func.func @not_constant(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = "graph.constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %r = "graph.Add"(%x, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Negative: a result with a dynamic type is left to run time.
// CHECK-LABEL: func.func @dynamic
// CHECK: "graph.Relu"
func.func @dynamic() -> tensor<?xf32> {
  %a = "graph.constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %r = "graph.Relu"(%a) : (tensor<3xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
