// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// GatherElements, Shape, ConstantOfShape, Range, Einsum and TopK (passes/nart-linalg-lowering/src/keyb_ops.rs).

func.func @gather_elements(%d: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = "graph.GatherElements"(%d, %i) <{axis = 0 : i64}> : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @shape(%x: tensor<2x3x5x7xf32>) -> tensor<2xi64> {
  %0 = "graph.Shape"(%x) <{start = 1 : i64, end = -1 : i64}> : (tensor<2x3x5x7xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @constant_of_shape() -> tensor<2x3xi32> {
  %s = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.ConstantOfShape"(%s) <{value = dense<7> : tensor<1xi32>}> : (tensor<2xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @constant_of_shape_default() -> tensor<4xf32> {
  %s = "graph.constant"() <{value = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ConstantOfShape"(%s) : (tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @range_i64(%a: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>) -> tensor<5xi64> {
  %0 = "graph.Range"(%a, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

func.func @range_f32(%a: tensor<f32>, %l: tensor<f32>, %d: tensor<f32>) -> tensor<3xf32> {
  %0 = "graph.Range"(%a, %l, %d) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @einsum_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "graph.Einsum"(%a, %b) <{equation = "ij,jk->ik"}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @einsum_trace(%a: tensor<3x3xi32>) -> tensor<i32> {
  %0 = "graph.Einsum"(%a) <{equation = "ii"}> : (tensor<3x3xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @einsum_ellipsis(%a: tensor<5x2x3xf32>, %b: tensor<1x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = "graph.Einsum"(%a, %b) <{equation = "...ij,...jk->...ik"}> : (tensor<5x2x3xf32>, tensor<1x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

func.func @top_k(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %k = "graph.constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %v, %i = "graph.TopK"(%x, %k) <{axis = -1 : i64}> : (tensor<2x6xf32>, tensor<1xi64>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

func.func @top_k_smallest_int(%x: tensor<5xi32>) -> (tensor<2xi32>, tensor<2xi64>) {
  %k = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %v, %i = "graph.TopK"(%x, %k) <{axis = 0 : i64, largest = 0 : i64}> : (tensor<5xi32>, tensor<1xi64>) -> (tensor<2xi32>, tensor<2xi64>)
  return %v, %i : tensor<2xi32>, tensor<2xi64>
}
