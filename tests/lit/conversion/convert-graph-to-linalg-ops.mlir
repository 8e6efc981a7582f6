// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// The graph ops of the transformers and the conformance key ops beyond the CNN set (the
// patterns of pointwise.rs, reduce.rs and indexing.rs, and MatMul's broadcasting).

// A batched operand times a 2-D one: the batches become rows of one linalg.matmul.
// CHECK-LABEL: func.func @matmul_batch_rows
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[A:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[I:.*]] = tensor.collapse_shape %[[F]] {{\[}}[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %arg1 : tensor<6x4xf32>, tensor<4x5xf32>) outs(%[[I]] : tensor<6x5xf32>)
// CHECK: tensor.expand_shape %[[M]] {{\[}}[0, 1], [2]] output_shape [2, 3, 5]
func.func @matmul_batch_rows(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "graph.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Equal batches of any rank fold into one batch dimension.
// CHECK-LABEL: func.func @matmul_equal_batches
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<6x4x5xf32>, tensor<6x5x6xf32>) outs(%{{.*}} : tensor<6x4x6xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 4, 6]
func.func @matmul_equal_batches(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = "graph.MatMul"(%a, %b) : (tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// Broadcast batches: a generic whose maps read index 0 of a broadcast dimension.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %0 = "graph.MatMul"(%a, %b) : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %0 : tensor<2x5x3x6xf32>
}

// -----

// A 1-D operand is a row (left) or a column (right), dropped from the result.
// CHECK-LABEL: func.func @matmul_vectors
// CHECK: tensor.expand_shape %arg0 {{\[}}[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<1x4xf32>, tensor<4x5xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<1x5xf32> into tensor<5xf32>
func.func @matmul_vectors(%a: tensor<4xf32>, %b: tensor<4x5xf32>) -> tensor<5xf32> {
  %0 = "graph.MatMul"(%a, %b) : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// LayerNormalization: the sum, the sum of squared deviations, then the normalization with
// the scale and bias broadcast along the normalized axis.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x8xf32>)
// CHECK: arith.addf
// CHECK: %[[V:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[S]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[S]], %[[V]], %arg1, %arg2 : tensor<2x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: arith.constant 1.000000e-05 : f32
// CHECK: math.sqrt
// CHECK: arith.divf
func.func @layer_norm(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0, %m, %r = "graph.LayerNormalization"(%x, %s, %b) <{axis = -1 : i64, epsilon = 1.0e-5 : f32}> : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, none, none)
  return %0 : tensor<2x8xf32>
}

// -----

// Gather: the indices through the map, wrapped when negative and clamped into the axis, then
// tensor.extract of the data.
// CHECK-DAG: #[[I:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {indexing_maps = [#[[I]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x3xi64>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[X]]
// CHECK: arith.select %[[NEG]]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[J:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: %[[E:.*]] = tensor.extract %arg0[%[[J]], %[[K]]] : tensor<10x4xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @gather(%d: tensor<10x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = "graph.Gather"(%d, %i) <{axis = 0 : i64}> : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// ReduceMean over constant axes, keepdims: a sum, a division by the count, an expand.
// CHECK-LABEL: func.func @reduce_mean
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: arith.divf
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [2, 1, 1]
func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %a = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.ReduceMean"(%x, %a) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Integers start from the type's lowest value.
// CHECK-LABEL: func.func @reduce_max_int
// CHECK: arith.constant -2147483648 : i32
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]}
// CHECK: arith.maxsi
func.func @reduce_max_int(%x: tensor<3x4xi32>) -> tensor<4xi32> {
  %n = "graph.none"() : () -> none
  %0 = "graph.ReduceMax"(%x, %n) <{axes = array<i64: 0>, keepdims = 0 : i64}> : (tensor<3x4xi32>, none) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// noop_with_empty_axes and no axes: the input.
// CHECK-LABEL: func.func @reduce_noop
// CHECK-NEXT: return %arg0 : tensor<3x4xf32>
func.func @reduce_noop(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %n = "graph.none"() : () -> none
  %0 = "graph.ReduceSum"(%x, %n) <{noop_with_empty_axes = 1 : i64}> : (tensor<3x4xf32>, none) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// ReduceLogSumExp subtracts the maximum first.
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg0, %[[M]] : tensor<3x4xf32>, tensor<3xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[M]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: math.log
// CHECK-NEXT: arith.addf
func.func @reduce_log_sum_exp(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %a = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ReduceLogSumExp"(%x, %a) <{keepdims = 0 : i64}> : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// ArgMax: one reduction with the best value and its index as inits.
// CHECK-LABEL: func.func @arg_max
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<3x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xi64>)
// CHECK: %[[B:.*]] = arith.cmpf ogt
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.select %[[B]], %[[J]]
// CHECK: return %[[R]]#1
func.func @arg_max(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  %0 = "graph.ArgMax"(%x) <{axis = 1 : i64, keepdims = 0 : i64}> : (tensor<3x4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK: math.sqrt
// CHECK: math.roundeven
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.divf
// CHECK: arith.negf
// CHECK: arith.cmpf ogt
// CHECK-NEXT: arith.cmpf olt
// CHECK-NEXT: arith.select
// CHECK-NEXT: arith.select
// Identity is its operand.
// CHECK: return {{.*}}, %arg0 : tensor<4xf32>
func.func @unary(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "graph.Sqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "graph.Round"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.Reciprocal"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.Neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "graph.Sign"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "graph.Identity"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A constant exponent 2 is a product; others are math.powf.
// CHECK-LABEL: func.func @pow
// CHECK: arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK: math.powf
func.func @pow(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %two = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Pow"(%x, %two) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "graph.Pow"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A float to integer cast wraps as the interpreter does (see graph-to-linalg-floats.mlir).
// CHECK-LABEL: func.func @cast
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.cmpf une
// CHECK: arith.uitofp %{{.*}} : i1 to f32
func.func @cast(%x: tensor<4xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xf32>) {
  %0 = "graph.Cast"(%x) <{to = 7 : i64}> : (tensor<4xf32>) -> tensor<4xi64>
  %1 = "graph.Cast"(%i) <{to = 7 : i64}> : (tensor<4xi32>) -> tensor<4xi64>
  %2 = "graph.Cast"(%x) <{to = 9 : i64}> : (tensor<4xf32>) -> tensor<4xi1>
  %3 = "graph.Cast"(%b) <{to = 1 : i64}> : (tensor<4xi1>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @compare_where
// CHECK: arith.cmpf olt
// CHECK: linalg.yield %{{.*}} : i1
// CHECK: arith.select
// CHECK: arith.cmpi sge
// CHECK: %[[T:.*]] = arith.constant true
// CHECK-NEXT: arith.xori %{{.*}}, %[[T]] : i1
func.func @compare_where(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<3xi64>, %j: tensor<3xi64>) -> (tensor<2x3xf32>, tensor<3xi1>) {
  %c = "graph.Less"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = "graph.Where"(%c, %a, %b) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %e = "graph.GreaterOrEqual"(%i, %j) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %1 = "graph.Not"(%e) : (tensor<3xi1>) -> tensor<3xi1>
  return %0, %1 : tensor<2x3xf32>, tensor<3xi1>
}

// -----

// A negative step: the positive-stride slice over the same elements, then a reversal.
// CHECK-DAG: #[[R:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 3)>
// CHECK-LABEL: func.func @slice_reverse
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[0, 1] [3, 4] [1, 2] : tensor<3x8xf32> to tensor<3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[R]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<3x4xf32>)
func.func @slice_reverse(%x: tensor<3x8xf32>) -> tensor<3x4xf32> {
  %s = "graph.constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %e = "graph.constant"() <{value = dense<-100> : tensor<1xi64>}> : () -> tensor<1xi64>
  %a = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %t = "graph.constant"() <{value = dense<-2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.Slice"(%x, %s, %e, %a, %t) : (tensor<3x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @split
// CHECK: tensor.extract_slice %arg0[0, 0] [2, 2] [1, 1] : tensor<2x5xf32> to tensor<2x2xf32>
// CHECK: tensor.extract_slice %arg0[0, 2] [2, 3] [1, 1] : tensor<2x5xf32> to tensor<2x3xf32>
func.func @split(%x: tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
  %s = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0:2 = "graph.Split"(%x, %s) <{axis = 1 : i64}> : (tensor<2x5xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK: tensor.pad %arg0 low[1, 2] high[0, 1]
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK-NEXT: tensor.yield
func.func @pad(%x: tensor<2x3xf32>) -> tensor<3x6xf32> {
  %p = "graph.constant"() <{value = dense<[1, 2, 0, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %v = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %n = "graph.none"() : () -> none
  %0 = "graph.Pad"(%x, %p, %v, %n) : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @expand
// CHECK: linalg.generic {indexing_maps = [#[[B]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %s = "graph.constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "graph.Expand"(%x, %s) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// LayerNormalization's Mean and InvStdDev, when used, come from the same sums as Y: the sum
// times 1/n, and 1/sqrt(deviations times 1/n + epsilon), expanded to the result's unit dims.
// CHECK-LABEL: func.func @layer_norm_mean_and_inv_std_dev
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK: arith.divf
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: tensor.expand_shape %[[M]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: tensor.expand_shape %[[R]]
func.func @layer_norm_mean_and_inv_std_dev(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %n = "graph.none"() : () -> none
  %y, %m, %r = "graph.LayerNormalization"(%x, %s, %n) : (tensor<2x4xf32>, tensor<4xf32>, none) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %y, %m, %r : tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}
