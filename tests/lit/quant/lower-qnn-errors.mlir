// RUN: not nart-opt %s --pass-pipeline='builtin.module(quant-lower-qnn{scheme=nope})' 2>&1 | filecheck %s

// An unknown scheme is an error naming the schemes, not a panic.
// CHECK: error: unknown scheme 'nope'; the schemes are: onnx-qdq, tensorrt,
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
