// RUN: not nart-opt %s --pass-pipeline='builtin.module(compile-segments)' 2>&1 | filecheck %s

// A segment whose target is not registered is an error at the segment.
// CHECK: compile-segments-errors.mlir:[[# @LINE + 2]]:8: error: 'target.segment' op unknown target 'npu' (known targets: interp, test-int8, test-f32)
func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = target.segment "npu"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    target.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
