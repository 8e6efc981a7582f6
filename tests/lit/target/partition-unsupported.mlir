// RUN: not nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(partition{targets=test-int8})' 2>&1 | filecheck %s

// Every op no target runs is reported at once, each with every target's reason.
// CHECK: partition-unsupported.mlir:[[# @LINE + 9]]:8: error: 'x.mystery' op is supported by none of the targets
// CHECK: note: test-int8: op not supported
// CHECK: note: interp: op not supported
// CHECK: partition-unsupported.mlir:[[# @LINE + 8]]:8: error: 'x.other' op is supported by none of the targets
// CHECK: note: test-int8: op not supported
// CHECK: note: interp: op not supported
// CHECK-NOT: error
func.func @net(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %m = "x.mystery"(%r) : (tensor<4xf32>) -> tensor<4xf32>
  %s = "graph.Sigmoid"(%m) : (tensor<4xf32>) -> tensor<4xf32>
  %o = "x.other"(%s) : (tensor<4xf32>) -> tensor<4xf32>
  return %o : tensor<4xf32>
}
