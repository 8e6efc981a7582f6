// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize))' --split-input-file | filecheck %s

// x + 0 = x (the zero broadcasts onto x, so the type stays).
// CHECK-LABEL: func.func @add_zero(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %arg0 : tensor<2x3xf32>
func.func @add_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %z = "graph.constant"() <{value = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = "graph.Add"(%x, %z) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// x + 0 where the zero broadcasts x to a larger shape is not x: it stays.
// CHECK-LABEL: func.func @add_zero_broadcast
// CHECK-NEXT: %[[Z:.*]] = "graph.constant"
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%arg0, %[[Z]])
// CHECK-NEXT: return %[[A]]
func.func @add_zero_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %z = "graph.constant"() <{value = dense<0.0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = "graph.Add"(%x, %z) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// -(-x) = x, relu(relu(x)) = relu(x)
// CHECK-LABEL: func.func @involution(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = "graph.Relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @involution(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "graph.Neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "graph.Neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Relu"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.Relu"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// (x * 2) * 3 = x * 6: the constants fold into one.
// CHECK-LABEL: func.func @mul_assoc
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<6.000000e+00> : tensor<f32>}>
// CHECK-NEXT: %[[M:.*]] = "graph.Mul"(%arg0, %[[C]]) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
// CHECK-NEXT: return %[[M]]
func.func @mul_assoc(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c2 = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %c3 = "graph.constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Mul"(%x, %c2) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %1 = "graph.Mul"(%0, %c3) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// x * c + y * c = (x + y) * c
// CHECK-LABEL: func.func @factor
// CHECK-NEXT: %[[C:.*]] = "graph.constant"
// CHECK-NEXT: %[[S:.*]] = "graph.Add"(%arg0, %arg1)
// CHECK-NEXT: %[[M:.*]] = "graph.Mul"(%[[C]], %[[S]])
// CHECK-NEXT: return %[[M]]
func.func @factor(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "graph.Mul"(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "graph.Mul"(%y, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// transpose(transpose(x, [1, 2, 0]), [2, 0, 1]) = x; two transposes compose into one.
// CHECK-LABEL: func.func @transposes
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%arg0) <{perm = array<i64: 2, 1, 0>}> : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %arg0, %[[T]]
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
  %0 = "graph.Transpose"(%x) <{perm = array<i64: 1, 2, 0>}> : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = "graph.Transpose"(%0) <{perm = array<i64: 2, 0, 1>}> : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %2 = "graph.Transpose"(%0) <{perm = array<i64: 1, 0, 2>}> : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<4x3x2xf32>
}

// -----

// transpose(x, p) + transpose(y, p) = transpose(x + y, p)
// CHECK-LABEL: func.func @transpose_sink
// CHECK-NEXT: %[[S:.*]] = "graph.Add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[S]]) <{perm = array<i64: 1, 0>}>
// CHECK-NEXT: return %[[T]]
func.func @transpose_sink(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "graph.Transpose"(%y) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = "graph.Add"(%0, %1) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// reshape(reshape(x, [6]), [3, 2]) = reshape(x, [3, 2]); a reshape to the same shape is x.
// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT: %[[S:.*]] = "graph.constant"() <{value = dense<[3, 2]> : tensor<2xi64>}>
// CHECK-NEXT: %[[R:.*]] = "graph.Reshape"(%arg0, %[[S]]) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]], %arg0
func.func @reshapes(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %s1 = "graph.constant"() <{value = dense<[6]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %s2 = "graph.constant"() <{value = dense<[3, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s3 = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Reshape"(%x, %s1) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  %1 = "graph.Reshape"(%0, %s2) : (tensor<6xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %2 = "graph.Reshape"(%x, %s3) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %1, %2 : tensor<3x2xf32>, tensor<2x3xf32>
}
