// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-simplify)' --mlir-pass-statistics 2>&1 | filecheck %s

// The statistics name the patterns that fired, with their counts.
// CHECK-LABEL: func.func @stats(%arg0: tensor<2xf32>, %arg1: tensor<3xi8>) -> (tensor<2xf32>, tensor<3xi8>)
// CHECK-NEXT: return %arg0, %arg1
// CHECK: GraphSimplify
// CHECK-NEXT: (S) 3 num-rewrites - Number of pattern applications
// CHECK-NEXT: (S) {{[0-9]+}} num-iterations - Number of sweeps of the greedy driver
// CHECK-DAG: (S) 2 AddZeroRhs -
// CHECK-DAG: (S) 1 CastChain -
func.func @stats(%x: tensor<2xf32>, %y: tensor<3xi8>) -> (tensor<2xf32>, tensor<3xi8>) {
  %z = "graph.constant"() <{value = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %a = "graph.Add"(%x, %z) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = "graph.Add"(%a, %z) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = "graph.Cast"(%y) <{to = 6 : i64}> : (tensor<3xi8>) -> tensor<3xi32>
  %d = "graph.Cast"(%c) <{to = 3 : i64}> : (tensor<3xi32>) -> tensor<3xi8>
  return %b, %d : tensor<2xf32>, tensor<3xi8>
}
