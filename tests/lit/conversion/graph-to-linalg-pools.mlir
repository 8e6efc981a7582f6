// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// The lowerings of pools_ops.rs: pools on 1-D and 3-D spatial inputs, MaxPool's Indices,
// integer Pow, boolean ReduceMax/ReduceMin, axes read from the shapes, and training-mode
// BatchNormalization.

// A 1-D MaxPool: the input padded with -inf, then one generic over (n, c, o, k) reading
// x[n, c, 2o + k], keeping strictly larger elements.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @max_pool_1d
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1] high[0, 0, 1]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<2x3x9xf32> to tensor<2x3x11xf32>
// CHECK: %[[T:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[I:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[K]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %[[T]] : tensor<2x3x11xf32>, tensor<3xf32>) outs(%[[I]] : tensor<2x3x5xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32, %[[B:.*]]: f32):
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK: %[[S:.*]] = arith.select %[[GT]], %[[A]], %[[B]] : f32
// CHECK: linalg.yield %[[S]] : f32
func.func @max_pool_1d(%x: tensor<2x3x9xf32>) -> tensor<2x3x5xf32> {
  %0, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 3>, strides = array<i64: 2>, pads = array<i64: 1, 1>}> : (tensor<2x3x9xf32>) -> (tensor<2x3x5xf32>, none)
  return %0 : tensor<2x3x5xf32>
}

// -----

// A 3-D MaxPool without padding: no tensor.pad, three reduction loops.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-LABEL: func.func @max_pool_3d
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {indexing_maps = [#[[X]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %{{.*}} : tensor<1x2x4x4x4xf32>, tensor<2x2x2xf32>) outs(%{{.*}} : tensor<1x2x2x2x2xf32>)
func.func @max_pool_3d(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %0, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>}> : (tensor<1x2x4x4x4xf32>) -> (tensor<1x2x2x2x2xf32>, none)
  return %0 : tensor<1x2x2x2x2xf32>
}

// -----

// MaxPool's Indices in column-major order (storage_order = 1): a second init of -1 (no tap
// taken yet), the index (n * C + c) * 25 + h + 5 * w of each tap, taken by the first tap and
// by every strictly larger element.
// CHECK-LABEL: func.func @max_pool_indices
// CHECK: %[[M:.*]] = linalg.fill ins(%c-1_i64 : i64) outs(%{{.*}} : tensor<1x1x2x2xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %[[M]] : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32, %[[B:.*]]: f32, %[[J:.*]]: i64):
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK: %[[V:.*]] = arith.select %[[GT]], %[[A]], %[[B]] : f32
// CHECK: linalg.index 0 : index
// CHECK: linalg.index 1 : index
// CHECK: arith.muli %{{.*}}, %c25_i64 : i64
// CHECK: linalg.index 2 : index
// CHECK: linalg.index 4 : index
// CHECK: linalg.index 3 : index
// CHECK: linalg.index 5 : index
// CHECK: %[[W:.*]] = arith.muli %{{.*}}, %c5_i64 : i64
// CHECK: %[[F:.*]] = arith.addi %{{.*}}, %[[W]] : i64
// CHECK: %[[U:.*]] = arith.cmpi eq, %[[J]], %{{.*}} : i64
// CHECK: %[[T:.*]] = arith.ori %[[GT]], %[[U]] : i1
// CHECK: %[[K:.*]] = arith.select %[[T]], %[[F]], %[[J]] : i64
// CHECK: linalg.yield %[[V]], %[[K]] : f32, i64
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @max_pool_indices(%x: tensor<1x1x5x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %y, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 1 : i64}> : (tensor<1x1x5x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %y, %i : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}

// -----

// With padding, the first tap counts only inside the input (0 <= 2o + k - 1 < 4).
// CHECK-LABEL: func.func @max_pool_indices_padded
// CHECK: %[[H:.*]] = arith.subi %{{.*}}, %c1_i64 : i64
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[H]], %c0_i64 : i64
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[H]], %c4_i64{{.*}} : i64
// CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: %[[U:.*]] = arith.cmpi eq, %{{.*}}, %c-1_i64{{.*}} : i64
// CHECK: %[[FIRST:.*]] = arith.andi %[[U]], %[[IN]] : i1
// CHECK: arith.ori %{{.*}}, %[[FIRST]] : i1
func.func @max_pool_indices_padded(%x: tensor<1x1x4xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xi64>) {
  %y, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 1, 1>}> : (tensor<1x1x4xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xi64>)
  return %y, %i : tensor<1x1x3xf32>, tensor<1x1x3xi64>
}

// -----

// A window wholly in the padding (pads of 2 before a kernel of 2) takes no tap: its index is
// set afterwards to the first of its plane, (n * 2 + c) * 3.
// CHECK-LABEL: func.func @max_pool_window_in_the_padding
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[R]]#1 : tensor<1x2x2xi64>)
// CHECK: %[[U:.*]] = arith.cmpi eq, %{{.*}}, %c-1_i64{{.*}} : i64
// CHECK: %[[B:.*]] = arith.muli %{{.*}}, %c3_i64{{.*}} : i64
// CHECK: arith.select %[[U]], %[[B]], %{{.*}} : i64
func.func @max_pool_window_in_the_padding(%x: tensor<1x2x3xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xi64>) {
  %y, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2>, pads = array<i64: 2, 0>, strides = array<i64: 2>}> : (tensor<1x2x3xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xi64>)
  return %y, %i : tensor<1x2x2xf32>, tensor<1x2x2xi64>
}

// -----

// A 3-D AveragePool: the sum over the zero-padded input, divided by the number of taps inside
// the input, a product of per-dimension counts (2 3 2 along d; 4 6 4 along w, 2 along h).
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
// CHECK-LABEL: func.func @average_pool_3d
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 0, 1] high[0, 0, 1, 0, 1]
// CHECK: } : tensor<1x1x3x4x5xf32> to tensor<1x1x5x4x7xf32>
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[X]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %{{.*}} : tensor<1x1x5x4x7xf32>, tensor<3x2x3xf32>)
// CHECK: arith.addf
// CHECK: %[[N:.*]] = arith.constant dense<{{\[\[\[}}8.000000e+00, 1.200000e+01, 8.000000e+00], [8.000000e+00, 1.200000e+01, 8.000000e+00]], {{\[\[}}1.200000e+01, 1.800000e+01, 1.200000e+01]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[C]], #{{.*}}], {{.*}} ins(%[[S]], %[[N]] : tensor<1x1x3x2x3xf32>, tensor<3x2x3xf32>)
// CHECK: arith.divf
func.func @average_pool_3d(%x: tensor<1x1x3x4x5xf32>) -> tensor<1x1x3x2x3xf32> {
  %0 = "graph.AveragePool"(%x) <{kernel_shape = array<i64: 3, 2, 3>, strides = array<i64: 1, 2, 2>, pads = array<i64: 1, 0, 1, 1, 0, 1>}> : (tensor<1x1x3x4x5xf32>) -> tensor<1x1x3x2x3xf32>
  return %0 : tensor<1x1x3x2x3xf32>
}

// -----

// Equal counts: a division by one scalar.
// CHECK-LABEL: func.func @average_pool_1d_uniform
// CHECK-NOT: tensor.pad
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<1x2x4xf32>)
// CHECK: arith.divf %{{.*}}, %cst{{.*}} : f32
func.func @average_pool_1d_uniform(%x: tensor<1x2x8xf32>) -> tensor<1x2x4xf32> {
  %0 = "graph.AveragePool"(%x) <{kernel_shape = array<i64: 2>, strides = array<i64: 2>}> : (tensor<1x2x8xf32>) -> tensor<1x2x4xf32>
  return %0 : tensor<1x2x4xf32>
}

// -----

// Pow of i32: square-and-multiply over the 31 exponent bits below the sign, then the result of
// a negative exponent (1, ±1 or all ones for the bases 1, -1 and 0; 0 otherwise).
// CHECK-LABEL: func.func @pow_i32
// CHECK: ^bb0(%[[X:.*]]: i32, %[[E:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[B0:.*]] = arith.andi %[[E]], %c1_i32{{.*}} : i32
// CHECK: %[[S0:.*]] = arith.cmpi ne, %[[B0]], %c0_i32 : i32
// CHECK: %[[M0:.*]] = arith.muli %c1_i32, %[[X]] : i32
// CHECK: %[[R0:.*]] = arith.select %[[S0]], %[[M0]], %c1_i32 : i32
// CHECK: %[[X2:.*]] = arith.muli %[[X]], %[[X]] : i32
// CHECK: arith.andi %[[E]], %c2_i32 : i32
// CHECK: arith.andi %[[E]], %c1073741824_i32 : i32
// CHECK-NOT: arith.andi %[[E]], %c-2147483648_i32
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[E]], %c0_i32 : i32
// CHECK: %[[Y:.*]] = arith.select %[[NEG]], %{{.*}}, %{{.*}} : i32
// CHECK: linalg.yield %[[Y]] : i32
func.func @pow_i32(%x: tensor<3xi32>, %y: tensor<3xi32>) -> tensor<3xi32> {
  %0 = "graph.Pow"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Pow of i64 to an f32: powf in f64, truncated, then cast as the interpreter's `as i128` and
// wrap do: fptosi below 2^63, the exact remainder modulo 2^64 below 2^127, saturated beyond.
// CHECK-LABEL: func.func @pow_i64_f32
// CHECK: %[[XF:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK: %[[YF:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[P:.*]] = math.powf %[[XF]], %[[YF]] : f64
// CHECK: %[[T:.*]] = math.trunc %[[P]] : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: math.floor
// CHECK: arith.fptoui %{{.*}} : f64 to i64
// CHECK: %[[SAT:.*]] = arith.select %{{.*}}, %c-1_i64, %c0_i64 : i64
// CHECK: %[[WIDE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[SAT]] : i64
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %[[WIDE]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i64
func.func @pow_i64_f32(%x: tensor<3xi64>, %y: tensor<3xf32>) -> tensor<3xi64> {
  %0 = "graph.Pow"(%x, %y) : (tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// ReduceMax of booleans: or-ing from false; ReduceMin: and-ing from true.
// CHECK-LABEL: func.func @reduce_max_bool
// CHECK: linalg.fill ins(%false : i1)
// CHECK: arith.ori
// CHECK-LABEL: func.func @reduce_min_bool
// CHECK: linalg.fill ins(%true : i1)
// CHECK: arith.andi
func.func @reduce_max_bool(%x: tensor<4x2xi1>) -> tensor<4x1xi1> {
  %a = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ReduceMax"(%x, %a) <{keepdims = 1 : i64}> : (tensor<4x2xi1>, tensor<1xi64>) -> tensor<4x1xi1>
  return %0 : tensor<4x1xi1>
}
func.func @reduce_min_bool(%x: tensor<4x2xi1>) -> tensor<1x2xi1> {
  %a = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ReduceMin"(%x, %a) <{keepdims = 1 : i64}> : (tensor<4x2xi1>, tensor<1xi64>) -> tensor<1x2xi1>
  return %0 : tensor<1x2xi1>
}

// -----

// Axes known only at run time, with keepdims: the dimension whose size changes (0 -> 1, an
// empty set reduced to +inf) is the one reduced.
// CHECK-DAG: #[[R:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_min_axes_at_run_time
// CHECK: %[[I:.*]] = linalg.fill ins(%cst : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[R]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<2x0x4xf32>) outs(%[[I]] : tensor<2x4xf32>)
// CHECK: arith.minimumf
// CHECK: tensor.expand_shape
func.func @reduce_min_axes_at_run_time(%x: tensor<2x0x4xf32>, %a: tensor<1xi64>) -> tensor<2x1x4xf32> {
  %0 = "graph.ReduceMin"(%x, %a) <{keepdims = 1 : i64}> : (tensor<2x0x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// Training-mode BatchNormalization: the per-channel sum, the sum of squared deviations, Y, and
// the running statistics input * 0.8 + batch * 0.2 (1/8 of the sums: 2 * 4 elements a channel).
// CHECK-LABEL: func.func @batch_norm_training
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction"]} ins(%arg0 : tensor<2x3x4xf32>)
// CHECK: %[[D:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction"]} ins(%arg0, %[[S]] : tensor<2x3x4xf32>, tensor<3xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%arg0, %[[S]], %[[D]], %arg1, %arg2 :
// CHECK: math.sqrt
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%arg3, %[[S]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: arith.constant 8.000000e-01 : f32
// CHECK: %[[V:.*]] = linalg.generic {{.*}} ins(%arg4, %[[D]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: return %[[Y]], %[[M]], %[[V]]
func.func @batch_norm_training(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %rm, %rv = "graph.BatchNormalization"(%x, %s, %b, %m, %v) <{training_mode = 1 : i64, momentum = 0.8 : f32}> : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %rm, %rv : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}
