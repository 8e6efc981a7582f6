// `-o NAME.onnx` writes MLIR input as an ONNX model too, and what ONNX cannot hold is a located
// error and exit 1 (several modules to one model: tests/lit/graph-opt/graph-optimize.test).
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-fuse-activation))' -o %t.onnx
// RUN: nart-opt %t.onnx --allow-unregistered-dialect | filecheck %s
// RUN: not nart-opt %S/Inputs/not-onnx.mlir -o %t.bad.onnx 2>&1 | filecheck %s --check-prefix=BAD
// RUN: grep -ac 'FusedConv' %t.onnx | filecheck %s --check-prefix=ONNX

// The fused conv is written as the com.microsoft contrib op, which the importer reads back as
// the Conv and the activation it stands for (crates/nart-onnx/src/contrib.rs).
// ONNX: {{^}}1{{$}}
// CHECK-LABEL: func.func @main_graph
// CHECK: %[[C:.*]] = "graph.Conv"(%arg0, %{{.*}}, %{{.*}}) <{pads = array<i64: 1, 1, 1, 1>}>
// CHECK-NEXT: "graph.Relu"(%[[C]])
// BAD: not-onnx.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'arith.addi' op has no ONNX equivalent
func.func @main_graph(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x1x3x3xf32>}> : () -> tensor<2x1x3x3xf32>
  %b = "graph.constant"() <{value = dense<[1.0, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = "graph.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
