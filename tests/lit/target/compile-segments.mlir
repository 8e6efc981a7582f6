// RUN: nart-opt %s --pass-pipeline='builtin.module(partition{targets=test-f32},compile-segments)' | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(partition{targets=test-f32},compile-segments)' | nart-opt | filecheck %s

// After compilation each segment is a target.compiled holding its target's artifact: for
// interp and the test chips, the segment's region as a func.func in MLIR text.
// CHECK-LABEL: func.func @net
// CHECK-NEXT: %0 = target.compiled "test-f32"(%arg0) {artifact = "func.func @segment(%arg0: tensor<4xf32>) -> tensor<4xf32> {\0A  %0 = \22graph.Relu\22(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\0A  return %0 : tensor<4xf32>\0A}\0A", format = "mlir-text", sdk_version = "nart {{[0-9.]+}}"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %1 = target.compiled "interp"(%0) {artifact = "func.func @segment(%arg0: tensor<4xf32>) -> tensor<4xf32> {\0A  %0 = \22graph.Neg\22(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\0A  return %0 : tensor<4xf32>\0A}\0A", format = "mlir-text", sdk_version = "nart {{[0-9.]+}}"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %1 : tensor<4xf32>
func.func @net(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %n = "graph.Neg"(%r) : (tensor<4xf32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}
