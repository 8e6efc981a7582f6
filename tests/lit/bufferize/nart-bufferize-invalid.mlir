// RUN: not nart-opt %s --pass-pipeline='builtin.module(nart-bufferize)' 2>&1 | filecheck %s

// An op on tensors the pass does not know is reported at its location, and nothing changes.
// CHECK: nart-bufferize-invalid.mlir:[[# @LINE + 3]]:8: error: failed to legalize operation 'graph.Relu'
func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
