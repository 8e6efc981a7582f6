// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// The lowerings of keya_ops.rs: LogSoftmax, Mod, Pad in reflect/edge/wrap mode, Resize and
// ConvTranspose.

// LogSoftmax: the max, exp(x - max), its sum, lse = max + log(sum), then x - lse.
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[M:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%arg0, %[[M]] : tensor<2x3x4xf32>, tensor<2x4xf32>)
// CHECK: math.exp
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[E]] : tensor<2x3x4xf32>)
// CHECK: arith.addf
// CHECK: %[[L:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[S]] : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK: math.log
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[L]] : tensor<2x3x4xf32>, tensor<2x4xf32>)
// CHECK: arith.subf
func.func @log_softmax(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "graph.LogSoftmax"(%x) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Mod with fmod = 0 on floats: remf, then the divisor added where the signs differ.
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @mod_float
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[B]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: %[[R:.*]] = arith.remf %[[A:.*]], %[[D:.*]] : f32
// CHECK: %[[NZ:.*]] = arith.cmpf one, %[[R]]
// CHECK: %[[RN:.*]] = arith.cmpf olt, %[[R]]
// CHECK: %[[DN:.*]] = arith.cmpf olt, %[[D]]
// CHECK: %[[X:.*]] = arith.xori %[[RN]], %[[DN]] : i1
// CHECK: %[[F:.*]] = arith.andi %[[NZ]], %[[X]] : i1
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[D]] : f32
// CHECK: arith.select %[[F]], %[[S]], %[[R]] : f32
func.func @mod_float(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "graph.Mod"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Mod with fmod = 1 on integers: remsi by a divisor that is never 0 or -1 (both give 1).
// CHECK-LABEL: func.func @mod_int_fmod
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[B:.*]], %c0_i32 : i32
// CHECK: %[[M:.*]] = arith.cmpi eq, %[[B]], %c-1_i32 : i32
// CHECK: %[[BAD:.*]] = arith.ori %[[Z]], %[[M]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %c1_i32, %[[B]] : i32
// CHECK: %[[R:.*]] = arith.remsi %{{.*}}, %[[SAFE]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
func.func @mod_int_fmod(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "graph.Mod"(%a, %b) <{fmod = 1 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Reflect padding: a gather through the table of source columns (2 1 | 0 1 2 | 1 0).
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @pad_reflect
// CHECK: %[[C:.*]] = arith.constant dense<[2, 1, 0, 1, 2, 1, 0]> : tensor<7xi64>
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : tensor<7xi64>) outs(%{{.*}} : tensor<2x7xf32>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %arg0[%[[R]], %[[J]]] : tensor<2x3xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x7xf32> {
  %p = "graph.constant"() <{value = dense<[0, 2, 0, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %n = "graph.none"() : () -> none
  %0 = "graph.Pad"(%x, %p, %n, %n) <{mode = "reflect"}> : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

// Wrap padding of axis 0 only, by 2 before and -1 after (a crop): rows 0 1 0.
// CHECK-LABEL: func.func @pad_wrap_axes
// CHECK: %[[C:.*]] = arith.constant dense<[0, 1, 0]> : tensor<3xi64>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<3xi64>) outs(%{{.*}} : tensor<3x3xf32>)
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<2x3xf32>
func.func @pad_wrap_axes(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %p = "graph.constant"() <{value = dense<[2, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "graph.constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "graph.none"() : () -> none
  %0 = "graph.Pad"(%x, %p, %n, %a) <{mode = "wrap"}> : (tensor<2x3xf32>, tensor<2xi64>, none, tensor<1xi64>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Nearest Resize (asymmetric, floor) by 2 and 3: one gather with a table per resized axis.
// CHECK-LABEL: func.func @resize_nearest
// CHECK-DAG: %[[H:.*]] = arith.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[W:.*]] = arith.constant dense<[0, 0, 0, 1, 1, 1]> : tensor<6xi64>
// CHECK: linalg.generic {{.*}} ins(%[[H]], %[[W]] : tensor<4xi64>, tensor<6xi64>) outs(%{{.*}} : tensor<1x1x4x6xf32>)
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x1x2x2xf32>
func.func @resize_nearest(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %n = "graph.none"() : () -> none
  %s = "graph.constant"() <{value = dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "graph.Resize"(%x, %n, %s, %n) <{mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}> : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// -----

// Linear Resize (half_pixel) to sizes 3 and 4 of axes 2 and 3: one tap reduction per axis,
// in axis order, with constant index and weight tables.
// CHECK-DAG: #[[T2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>
// CHECK-DAG: #[[T3:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>
// CHECK-LABEL: func.func @resize_linear
// CHECK: %[[I2:.*]] = arith.constant dense<{{\[\[}}0, 0], [0, 1], [1, 1]]> : tensor<3x2xi64>
// CHECK: %[[W2:.*]] = arith.constant dense<{{\[\[}}1.6666667e-01, 8.333333e-01], [5.000000e-01, 5.000000e-01], [8.333333e-01, 1.6666667e-01]]> : tensor<3x2xf32>
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[T2]], #[[T2]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[I2]], %[[W2]] : tensor<3x2xi64>, tensor<3x2xf32>) outs(%{{.*}} : tensor<1x1x3x2xf32>)
// CHECK: tensor.extract %arg0
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[I3:.*]] = arith.constant dense<{{\[\[}}0, 0], [0, 1], [0, 1], [1, 1]]> : tensor<4x2xi64>
// CHECK: linalg.generic {indexing_maps = [#[[T3]], #[[T3]], #{{.*}}], {{.*}} ins(%[[I3]], %{{.*}} : tensor<4x2xi64>, tensor<4x2xf32>) outs(%{{.*}} : tensor<1x1x3x4xf32>)
// CHECK: tensor.extract %[[Y]][
func.func @resize_linear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x3x4xf32> {
  %n = "graph.none"() : () -> none
  %s = "graph.constant"() <{value = dense<[3, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Resize"(%x, %n, %n, %s) <{mode = "linear", axes = array<i64: 2, 3>}> : (tensor<1x1x2x2xf32>, none, none, tensor<2xi64>) -> tensor<1x1x3x4xf32>
  return %0 : tensor<1x1x3x4xf32>
}

// -----

// ConvTranspose 2-D, stride 2, groups 2, bias: one zero after each input element (expand,
// pad, collapse), padded to the windows' reach, the kernel flipped (2 - k), then a grouped
// correlation into the broadcast bias.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, -d3 + 2, -d4 + 2)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 4, 3, 1, 3, 1]
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0, 0, 0] high[0, 0, 0, 1, 0, 1]
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x4x3x2x3x2xf32> into tensor<1x4x6x6xf32>
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: } : tensor<1x4x6x6xf32> to tensor<1x4x9x9xf32>
// CHECK: %[[XG:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 2, 2, 9, 9]
// CHECK: %[[W5:.*]] = tensor.expand_shape %arg1 {{.*}} output_shape [2, 2, 3, 3, 3]
// CHECK: %[[WG:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}], {{.*}} ins(%[[W5]] : tensor<2x2x3x3x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg2 : tensor<6xf32>) outs(%{{.*}} : tensor<1x6x7x7xf32>)
// CHECK: %[[OG:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 2, 3, 7, 7]
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XG]], %[[WG]] : tensor<1x2x2x9x9xf32>, tensor<2x2x3x3x3xf32>) outs(%[[OG]] : tensor<1x2x3x7x7xf32>)
// CHECK: tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x7x7xf32> into tensor<1x6x7x7xf32>
func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x7x7xf32> {
  %0 = "graph.ConvTranspose"(%x, %w, %b) <{strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, output_padding = array<i64: 1, 1>, group = 2 : i64}> : (tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x7x7xf32>
  return %0 : tensor<1x6x7x7xf32>
}

// -----

// ConvTranspose 1-D, stride 1: no zeros to insert, pads of K - 1 on both sides.
// CHECK-LABEL: func.func @conv_transpose_1d
// CHECK: tensor.pad %arg0 low[0, 0, 2] high[0, 0, 2]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x1x7xf32>, tensor<1x1x2x3xf32>) outs(%{{.*}} : tensor<1x1x2x5xf32>)
func.func @conv_transpose_1d(%x: tensor<1x1x3xf32>, %w: tensor<1x2x3xf32>) -> tensor<1x2x5xf32> {
  %n = "graph.none"() : () -> none
  %0 = "graph.ConvTranspose"(%x, %w, %n) : (tensor<1x1x3xf32>, tensor<1x2x3xf32>, none) -> tensor<1x2x5xf32>
  return %0 : tensor<1x2x5xf32>
}
