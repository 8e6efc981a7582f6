// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-from-qdq)' --split-input-file --verify-diagnostics

// Parameters ONNX forbids are errors at the op, all reported at once, and nothing changes: a
// zero or negative scale, a zero point of another shape than the scale, an axis outside the
// input's rank, a per-axis scale of the wrong length, blocked
// scales that do not match the block size.
func.func @bad(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = "graph.constant"() <{value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>}> : () -> tensor<2x3xi8>
  %s0 = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %sn = "graph.constant"() <{value = dense<-0.5> : tensor<f32>}> : () -> tensor<f32>
  %s3 = "graph.constant"() <{value = dense<[0.1, 0.2, 0.3]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %z2 = "graph.constant"() <{value = dense<[0, 0]> : tensor<2xi8>}> : () -> tensor<2xi8>
  %z3 = "graph.constant"() <{value = dense<[0, 0, 0]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %s22 = "graph.constant"() <{value = dense<[[0.1, 0.2], [0.3, 0.4]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %n = "graph.none"() : () -> none
  // expected-error @+1 {{'graph.DequantizeLinear' op has scale 0 (element 0); a scale must be positive and finite}}
  %a = "graph.DequantizeLinear"(%w, %s0, %n) : (tensor<2x3xi8>, tensor<f32>, none) -> tensor<2x3xf32>
  // expected-error @+1 {{'graph.DequantizeLinear' op has scale -0.5 (element 0); a scale must be positive and finite}}
  %b = "graph.DequantizeLinear"(%w, %sn, %n) : (tensor<2x3xi8>, tensor<f32>, none) -> tensor<2x3xf32>
  // expected-error @+1 {{'graph.DequantizeLinear' op has a zero point of shape [2] and a scale of shape [3]; they must have the same shape}}
  %c = "graph.DequantizeLinear"(%w, %s3, %z2) <{axis = 1 : i64}> : (tensor<2x3xi8>, tensor<3xf32>, tensor<2xi8>) -> tensor<2x3xf32>
  // expected-error @+1 {{'graph.DequantizeLinear' op has axis 5, outside the range [-2, 1] of its rank-2 input}}
  %d = "graph.DequantizeLinear"(%w, %s3, %z3) <{axis = 5 : i64}> : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  // expected-error @+1 {{'graph.DequantizeLinear' op has 3 scales for dimension 0 of size 2; per-axis parameters need one per index}}
  %e = "graph.DequantizeLinear"(%w, %s3, %z3) <{axis = 0 : i64}> : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  // expected-error @+1 {{'graph.DequantizeLinear' op has 2 scales along dimension 1 of size 3 in blocks of 3; it needs 1}}
  %f = "graph.DequantizeLinear"(%w, %s22, %n) <{axis = 1 : i64, block_size = 3 : i64}> : (tensor<2x3xi8>, tensor<2x2xf32>, none) -> tensor<2x3xf32>
  return %a, %b, %c, %d, %e, %f : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
