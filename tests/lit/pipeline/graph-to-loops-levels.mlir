// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg,linalg-generalize-named-ops))' | filecheck %s

// The structured level composes: a graph function lowered to linalg, whose named ops are
// then generalized, leaves only linalg.generic, tensor and arith ops.
// CHECK-LABEL: func.func @mlp
// CHECK-NOT: graph.
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"{{.*}}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: return
func.func @mlp(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = "graph.constant"() <{value = dense<0.5> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %b = "graph.constant"() <{value = dense<[1.0, -1.0, 0.5, 0.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %none = "graph.none"() : () -> none
  %y = "graph.fused_matmul"(%x, %w, %b) <{activation = #graph.activation<relu>}> : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
