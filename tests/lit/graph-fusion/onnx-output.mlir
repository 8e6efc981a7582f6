// `-o NAME.onnx` writes MLIR input as an ONNX model too; what ONNX cannot hold is a located
// error and exit 1, and --split-input-file (several modules) cannot go to one model.
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-fuse-activation))' -o %t.onnx
// RUN: nart-opt %t.onnx --allow-unregistered-dialect | filecheck %s
// RUN: not nart-opt %S/Inputs/not-onnx.mlir -o %t.bad.onnx 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not nart-opt %s --split-input-file -o %t.split.onnx 2>&1 | filecheck %s --check-prefix=SPLIT

// The fused conv comes back as the com.microsoft contrib op, which the importer reads only as
// an unregistered op of that domain.
// CHECK-LABEL: func.func @main_graph
// CHECK: "onnx.FusedConv"(%arg0, %{{.*}}, %{{.*}}) {activation = "Relu", onnx.domain = "com.microsoft", pads = array<i64: 1, 1, 1, 1>}
// BAD: not-onnx.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'arith.addi' op has no ONNX equivalent
// SPLIT: is one ONNX model, but --split-input-file gives one module per chunk
func.func @main_graph(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x1x3x3xf32>}> : () -> tensor<2x1x3x3xf32>
  %b = "graph.constant"() <{value = dense<[1.0, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = "graph.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
