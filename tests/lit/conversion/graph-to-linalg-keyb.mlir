// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// GatherElements, Shape, ConstantOfShape, Range, Einsum and TopK (passes/nart-linalg-lowering/src/keyb_ops.rs).

// GatherElements: the indices through an identity map, wrapped and clamped into the axis, the
// data read at (index, loop index).
// CHECK-LABEL: func.func @gather_elements
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2x3xi64>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK: arith.cmpi slt, %[[I]]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[J:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[K:.*]] = linalg.index 1 : index
// CHECK: %[[E:.*]] = tensor.extract %arg0[%[[J]], %[[K]]] : tensor<4x3xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @gather_elements(%d: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = "graph.GatherElements"(%d, %i) <{axis = 0 : i64}> : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Shape of a static tensor between start and end: a constant.
// CHECK-LABEL: func.func @shape
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[3, 5]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape(%x: tensor<2x3x5x7xf32>) -> tensor<2xi64> {
  %0 = "graph.Shape"(%x) <{start = 1 : i64, end = -1 : i64}> : (tensor<2x3x5x7xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// ConstantOfShape: a fill of the value in its type.
// CHECK-LABEL: func.func @constant_of_shape
// CHECK: %[[V:.*]] = arith.constant 7 : i32
// CHECK: linalg.fill ins(%[[V]] : i32) outs(%{{.*}} : tensor<2x3xi32>)
func.func @constant_of_shape() -> tensor<2x3xi32> {
  %s = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.ConstantOfShape"(%s) <{value = dense<7> : tensor<1xi32>}> : (tensor<2xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Without a value: f32 zeros.
// CHECK-LABEL: func.func @constant_of_shape_default
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<4xf32>)
func.func @constant_of_shape_default() -> tensor<4xf32> {
  %s = "graph.constant"() <{value = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ConstantOfShape"(%s) : (tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Range of run-time scalars with a static length: start + i * delta.
// CHECK-DAG: #[[S:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @range_i64
// CHECK: linalg.generic {indexing_maps = [#[[S]], #[[S]], #{{.*}}], iterator_types = ["parallel"]} ins(%arg0, %arg2 : tensor<i64>, tensor<i64>) outs(%{{.*}} : tensor<5xi64>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: i64, %[[D:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[II:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[II]], %[[D]] : i64
// CHECK-NEXT: %[[R:.*]] = arith.addi %[[A]], %[[P]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i64
func.func @range_i64(%a: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>) -> tensor<5xi64> {
  %0 = "graph.Range"(%a, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// f32 ranges are computed in f64 and rounded once, as the interpreter does.
// CHECK-LABEL: func.func @range_f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.mulf %{{.*}} : f64
// CHECK: arith.addf %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @range_f32(%a: tensor<f32>, %l: tensor<f32>, %d: tensor<f32>) -> tensor<3xf32> {
  %0 = "graph.Range"(%a, %l, %d) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Einsum: output labels parallel, summed labels reductions, maps from the terms.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @einsum_matmul
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[Z]] : tensor<2x4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @einsum_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "graph.Einsum"(%a, %b) <{equation = "ij,jk->ik"}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A repeated label reads the diagonal; the implicit output of "ii" is a scalar.
// CHECK-DAG: #[[D:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @einsum_trace
// CHECK: linalg.generic {indexing_maps = [#[[D]], #[[S]]], iterator_types = ["reduction"]}
// CHECK: arith.addi
func.func @einsum_trace(%a: tensor<3x3xi32>) -> tensor<i32> {
  %0 = "graph.Einsum"(%a) <{equation = "ii"}> : (tensor<3x3xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// Ellipsis dimensions are labels of their own; a size-1 one broadcasts (index 0).
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d3, d2)>
// CHECK-LABEL: func.func @einsum_ellipsis
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[B]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @einsum_ellipsis(%a: tensor<5x2x3xf32>, %b: tensor<1x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = "graph.Einsum"(%a, %b) <{equation = "...ij,...jk->...ik"}> : (tensor<5x2x3xf32>, tensor<1x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// TopK: a rank per element (how many elements come before it: larger, NaN above numbers,
// equal with a lower index), then for each rank below K the element and index of that rank.
// CHECK-DAG: #[[M:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @top_k
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[M]], #[[O]], #[[M]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg0 : tensor<2x6xf32>, tensor<2x6xf32>) outs(%{{.*}} : tensor<2x6xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi ult
// CHECK: arith.extui
// CHECK: arith.addi
// CHECK: %[[Y:.*]]:2 = linalg.generic {indexing_maps = [#[[O]], #[[O]], #[[M]], #[[M]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[R]], %arg0 : tensor<2x6xi64>, tensor<2x6xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK: %[[HIT:.*]] = arith.cmpi eq
// CHECK: arith.select %[[HIT]]
// CHECK: arith.select %[[HIT]]
// CHECK: return %[[Y]]#0, %[[Y]]#1
func.func @top_k(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %k = "graph.constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %v, %i = "graph.TopK"(%x, %k) <{axis = -1 : i64}> : (tensor<2x6xf32>, tensor<1xi64>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// Smallest first on integers: x[j] comes before x[i] when x[i] > x[j].
// CHECK-LABEL: func.func @top_k_smallest_int
// CHECK: ^bb0(%[[XI:.*]]: i32, %[[XJ:.*]]: i32, %{{.*}}: i64):
// CHECK: arith.cmpi sgt, %[[XI]], %[[XJ]] : i32
// CHECK: arith.cmpi eq, %[[XJ]], %[[XI]] : i32
func.func @top_k_smallest_int(%x: tensor<5xi32>) -> (tensor<2xi32>, tensor<2xi64>) {
  %k = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %v, %i = "graph.TopK"(%x, %k) <{axis = 0 : i64, largest = 0 : i64}> : (tensor<5xi32>, tensor<1xi64>) -> (tensor<2xi32>, tensor<2xi64>)
  return %v, %i : tensor<2xi32>, tensor<2xi64>
}

// -----

// A run-time K: the static result type says it.
// CHECK-LABEL: func.func @top_k_run_time_k
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<6xi64>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi64>)
func.func @top_k_run_time_k(%x: tensor<6xf32>, %k: tensor<1xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %v, %i = "graph.TopK"(%x, %k) : (tensor<6xf32>, tensor<1xi64>) -> (tensor<4xf32>, tensor<4xi64>)
  return %v, %i : tensor<4xf32>, tensor<4xi64>
}
