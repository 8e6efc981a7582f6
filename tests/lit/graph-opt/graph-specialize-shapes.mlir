// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(graph-specialize-shapes{dims=N=2})' | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-specialize-shapes{dims=N=2 shapes=1=3x?,y=1x1})' | filecheck %s --check-prefix=SHAPES
// RUN: nart-opt %S/../import/onnx/Inputs/mlp.onnx --pass-pipeline='builtin.module(graph-specialize-shapes{dims=batch=1})' | filecheck %s --check-prefix=ONNX

// The named batch dim becomes 2 and loses its name; every op result below it is re-inferred,
// the result type and its dim names follow, and `function_type` is rewritten.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%arg0: tensor<2x4xf32> {onnx.name = "x"}) -> (tensor<2x3xf32> {onnx.name = "y"})
// CHECK: "graph.MatMul"(%arg0, %{{.*}}) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: "graph.Relu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %{{.*}} : tensor<2x3xf32>
func.func @mlp(%x: tensor<?x4xf32> {graph.dim_names = ["N", ""], onnx.name = "x"}) -> (tensor<?x3xf32> {graph.dim_names = ["N", ""], onnx.name = "y"}) {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %m = "graph.MatMul"(%x, %w) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %r = "graph.Relu"(%m) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// Only the named dim is specialized; the other symbolic dim keeps its name. With `shapes`,
// argument #1 (no names) becomes 3x? and the input named `y` 1x1.
// CHECK-LABEL: func.func @two
// CHECK-SAME: (%arg0: tensor<2x?xf32> {graph.dim_names = ["", "seq"], onnx.name = "a"}, %arg1: tensor<?x?xf32>, %arg2: tensor<?x?xf32> {onnx.name = "y"})
// CHECK: "graph.Add"(%arg0, %arg0) : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
// CHECK: "graph.Add"(%arg1, %arg2) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// SHAPES-LABEL: func.func @two
// SHAPES-SAME: (%arg0: tensor<2x?xf32> {graph.dim_names = ["", "seq"], onnx.name = "a"}, %arg1: tensor<3x?xf32>, %arg2: tensor<1x1xf32> {onnx.name = "y"})
// SHAPES: "graph.Add"(%arg1, %arg2) : (tensor<3x?xf32>, tensor<1x1xf32>) -> tensor<3x?xf32>
func.func @two(%a: tensor<?x?xf32> {graph.dim_names = ["N", "seq"], onnx.name = "a"}, %b: tensor<?x?xf32>, %c: tensor<?x?xf32> {onnx.name = "y"}) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %s = "graph.Add"(%a, %a) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t = "graph.Add"(%b, %c) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s, %t : tensor<?x?xf32>, tensor<?x?xf32>
}

// The imported ONNX MLP (batch dim named `batch`) becomes static all through.
// ONNX: func.func @main_graph(%arg0: tensor<1x4xf32> {onnx.name = "x"}) -> (tensor<1x3xf32> {onnx.name = "y"})
// ONNX-NOT: ?x
// ONNX: return %{{.*}} : tensor<1x3xf32>
