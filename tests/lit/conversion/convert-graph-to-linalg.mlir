// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// Binary ops broadcast by their maps: a size-1 dimension reads index 0, a missing leading
// dimension is not indexed.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[B1:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[B2:.*]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-LABEL: func.func @binary
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT: %[[A:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[B1]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:   linalg.yield %[[S]] : f32
// CHECK: arith.subf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[B2]], #[[ID]]]
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK-NOT: graph.
func.func @binary(%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>, %c: tensor<1x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "graph.Add"(%a, %b) : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = "graph.Sub"(%0, %a) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = "graph.Mul"(%1, %c) : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = "graph.Div"(%2, %a) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %3 : tensor<2x3x4xf32>
}

// -----

// Integer tensors use the integer ops.
// CHECK-LABEL: func.func @integer
// CHECK: arith.addi
// CHECK: arith.divsi
func.func @integer(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "graph.Add"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "graph.Div"(%0, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @activations
// Relu: max(x, 0).
// CHECK: linalg.generic
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.maximumf %{{.*}}, %[[Z]] : f32
// LeakyRelu: x > 0 ? x : alpha * x.
// CHECK: linalg.generic
// CHECK: %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[AL:.*]] = arith.constant 2.000000e-01 : f32
// CHECK-NEXT: %[[P:.*]] = arith.cmpf ogt, %[[X:.*]], %[[Z2]] : f32
// CHECK-NEXT: %[[AX:.*]] = arith.mulf %[[X]], %[[AL]] : f32
// CHECK-NEXT: arith.select %[[P]], %[[X]], %[[AX]] : f32
// Clip: the bounds are rank-0 inputs.
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SC:.*]], #[[SC]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32>, tensor<f32>)
// CHECK: arith.maximumf
// CHECK-NEXT: arith.minimumf
func.func @activations(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "graph.Relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.LeakyRelu"(%0) <{alpha = 0.2 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %lo = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %hi = "graph.constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %2 = "graph.Clip"(%1, %lo, %hi) : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: linalg.matmul ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[F]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: linalg.batch_matmul ins(%arg2, %arg3 : tensor<5x2x3xf32>, tensor<5x3x4xf32>)
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3xf32>, %d: tensor<5x3x4xf32>) -> (tensor<2x4xf32>, tensor<5x2x4xf32>) {
  %0 = "graph.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "graph.MatMul"(%c, %d) : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<5x2x4xf32>
}

// -----

// Gemm with transB and a bias: the bias, broadcast, is the matmul's init; the constant weight
// is transposed at compile time.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: %[[T:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01], [2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01], [3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<4xf32>)
// CHECK: linalg.matmul ins(%arg0, %[[T]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[B]] : tensor<2x4xf32>)
// With alpha and beta, a generic scales the product and the bias.
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK-NOT: linalg.transpose
func.func @gemm(%a: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = "graph.constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "graph.Gemm"(%a, %w, %c) <{transB = 1 : i64}> : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = "graph.Gemm"(%a, %w, %c) <{transB = 1 : i64, alpha = 0.5 : f32, beta = 2.0 : f32}> : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A weight known only at run time is transposed by linalg.transpose.
// CHECK-LABEL: func.func @gemm_run_time_weight
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%arg1 : tensor<4x3xf32>) outs(%[[E]] : tensor<3x4xf32>) permutation = [1, 0]
// CHECK: linalg.matmul ins(%arg0, %[[T]] : tensor<2x3xf32>, tensor<3x4xf32>)
func.func @gemm_run_time_weight(%a: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %none = "graph.none"() : () -> none
  %0 = "graph.Gemm"(%a, %w, %none) <{transB = 1 : i64}> : (tensor<2x3xf32>, tensor<4x3xf32>, none) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Fused ops lower their product, then their activation.
// CHECK-LABEL: func.func @fused
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK-NEXT: arith.minimumf
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK-NOT: graph.
func.func @fused(%a: tensor<2x3xf32>, %x: tensor<1x3x4x4xf32>) -> (tensor<2x4xf32>, tensor<1x2x4x4xf32>) {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %none = "graph.none"() : () -> none
  %0 = "graph.fused_gemm"(%a, %w, %none) <{activation = #graph.activation<clip>, activation_params = array<f32: 0.0, 6.0>, transB = 1 : i64}> : (tensor<2x3xf32>, tensor<4x3xf32>, none) -> tensor<2x4xf32>
  %k = "graph.constant"() <{value = dense<0.5> : tensor<2x3x3x3xf32>}> : () -> tensor<2x3x3x3xf32>
  %1 = "graph.fused_conv"(%x, %k, %none) <{activation = #graph.activation<relu>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x4x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Conv: pads become a tensor.pad, the bias the broadcast init, strides and dilations the
// named op's attributes.
// CHECK-LABEL: func.func @conv
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 2] high[0, 0, 1, 2] {
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x10x12xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x4x4xf32>
// CHECK-NEXT: %[[B:.*]] = linalg.broadcast ins(%arg2 : tensor<4xf32>) outs(%[[E]] : tensor<1x4x4x4xf32>) dimensions = [0, 2, 3]
// CHECK-NEXT: linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %arg1 : tensor<1x3x10x12xf32>, tensor<4x3x3x3xf32>) outs(%[[B]] : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %y = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 2, 1, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 2>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// One filter per channel: the depthwise named op on the collapsed filter.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<3x1x3x3xf32> into tensor<3x3x3xf32>
// CHECK-NEXT: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[W]] : tensor<1x3x8x8xf32>, tensor<3x3x3xf32>)
func.func @depthwise(%x: tensor<1x3x6x6xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x6x6xf32> {
  %none = "graph.none"() : () -> none
  %y = "graph.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>, group = 3 : i64}> : (tensor<1x3x6x6xf32>, tensor<3x1x3x3xf32>, none) -> tensor<1x3x6x6xf32>
  return %y : tensor<1x3x6x6xf32>
}

// -----

// Other groups: a generic over (n, g, fo, oh, ow, c, kh, kw) on expanded shapes.
// CHECK-DAG: #[[GI:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-DAG: #[[GW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[GO:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @grouped
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 2, 7, 7] : tensor<1x4x7x7xf32> into tensor<1x2x2x7x7xf32>
// CHECK-NEXT: %[[W:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 3, 3, 3] : tensor<1x6x3x3xf32> into tensor<1x2x3x3x3xf32>
// CHECK-NEXT: %[[G:.*]] = linalg.generic {indexing_maps = [#[[GI]], #[[GW]], #[[GO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[W]] : tensor<1x2x2x7x7xf32>, tensor<2x3x2x3x3xf32>) outs(%[[O]] : tensor<1x2x3x3x3xf32>)
// CHECK: tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x3x3xf32> into tensor<1x6x3x3xf32>
func.func @grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x3x3xf32> {
  %y = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, group = 2 : i64}> : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x3xf32>
  return %y : tensor<1x6x3x3xf32>
}

// -----

// MaxPool pads with -inf (here also for ceil mode) and starts from -inf.
// CHECK-LABEL: func.func @max_pool
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1] {
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: } : tensor<1x2x5x5xf32> to tensor<1x2x6x6xf32>
// CHECK: %[[NI:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NI]] : f32)
// CHECK: %[[K:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %[[K]] : tensor<1x2x6x6xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
func.func @max_pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64}> : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  return %y : tensor<1x2x3x3xf32>
}

// -----

// AveragePool without count_include_pad divides each window by the input elements it covers.
// CHECK-LABEL: func.func @average_pool
// CHECK: linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK: %[[N:.*]] = arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[N]] : tensor<1x1x3x3xf32>, tensor<3x3xf32>)
// CHECK: arith.divf
// GlobalAveragePool: one window over the whole image, divided by its size.
// CHECK: %[[K:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: linalg.pooling_nchw_sum {{.*}} ins(%arg1, %[[K]] : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<1x2x1x1xf32>)
// CHECK: arith.constant 1.600000e+01 : f32
// CHECK-NEXT: arith.divf
func.func @average_pool(%x: tensor<1x1x3x3xf32>, %g: tensor<1x2x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x2x1x1xf32>) {
  %y = "graph.AveragePool"(%x) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %z = "graph.GlobalAveragePool"(%g) : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  return %y, %z : tensor<1x1x3x3xf32>, tensor<1x2x1x1xf32>
}

// -----

// Reshapes: one collapse or expand where the dimensions group, else both.
// CHECK-LABEL: func.func @reshapes
// CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2, 3]] : tensor<2x3x4x5xf32> into tensor<2x60xf32>
// CHECK: %[[U:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1], [2]] output_shape [1, 2, 60] : tensor<2x60xf32> into tensor<1x2x60xf32>
// CHECK: %[[S:.*]] = tensor.collapse_shape %[[U]] {{\[\[}}0, 1], [2]] : tensor<1x2x60xf32> into tensor<2x60xf32>
// CHECK: %[[R1:.*]] = tensor.collapse_shape %[[S]] {{\[\[}}0, 1]] : tensor<2x60xf32> into tensor<120xf32>
// CHECK-NEXT: %[[R2:.*]] = tensor.expand_shape %[[R1]] {{\[\[}}0, 1]] output_shape [8, 15] : tensor<120xf32> into tensor<8x15xf32>
// CHECK-NEXT: return %[[R2]]
func.func @reshapes(%x: tensor<2x3x4x5xf32>) -> tensor<8x15xf32> {
  %f = "graph.Flatten"(%x) <{axis = 1 : i64}> : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
  %axes = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %u = "graph.Unsqueeze"(%f, %axes) : (tensor<2x60xf32>, tensor<1xi64>) -> tensor<1x2x60xf32>
  %s = "graph.Squeeze"(%u, %axes) : (tensor<1x2x60xf32>, tensor<1xi64>) -> tensor<2x60xf32>
  %shape = "graph.constant"() <{value = dense<[8, 15]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %r = "graph.Reshape"(%s, %shape) : (tensor<2x60xf32>, tensor<2xi64>) -> tensor<8x15xf32>
  return %r : tensor<8x15xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_concat
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK-NEXT: tensor.concat dim(2) %[[T]], %arg1 : (tensor<4x2x3xf32>, tensor<4x2x5xf32>) -> tensor<4x2x8xf32>
func.func @transpose_concat(%x: tensor<2x3x4xf32>, %y: tensor<4x2x5xf32>) -> tensor<4x2x8xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %c = "graph.Concat"(%t, %y) <{axis = -1 : i64}> : (tensor<4x2x3xf32>, tensor<4x2x5xf32>) -> tensor<4x2x8xf32>
  return %c : tensor<4x2x8xf32>
}

// -----

// BatchNormalization with constant parameters: a = scale / sqrt(var + eps) = [2, 0.5] and
// b = B - mean * a = [1 - 2, 0 - 0.5 * 4] are folded; one generic computes x * a[c] + b[c].
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[A:.*]] = arith.constant dense<[2.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-NEXT: %[[B:.*]] = arith.constant dense<[-1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#{{.*}}, #[[C]], #[[C]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %[[A]], %[[B]] : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
func.func @batch_norm(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %scale = "graph.constant"() <{value = dense<[2.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %bias = "graph.constant"() <{value = dense<[1.0, 0.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %mean = "graph.constant"() <{value = dense<[1.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %var = "graph.constant"() <{value = dense<[1.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y:3 = "graph.BatchNormalization"(%x, %scale, %bias, %mean, %var) <{epsilon = 0.0 : f32}> : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y#0 : tensor<1x2x3x3xf32>
}

// -----

// Through math ops: Sigmoid is 1 / (1 + exp(-x)); Tanh, Exp and Erf are one op each.
// CHECK-LABEL: func.func @math
// CHECK: arith.negf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.divf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: math.erf
func.func @math(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "graph.Sigmoid"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.Tanh"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.Exp"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.Erf"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Softmax along axis 0: a max reduction, exp of the difference, a sum reduction, a division.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[R:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[NI:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[M0:.*]] = linalg.fill ins(%[[NI]] : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT: %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[R]]], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<2x3xf32>) outs(%[[M0]] : tensor<3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[R]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[M]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[R]]], iterator_types = ["reduction", "parallel"]} ins(%[[E]] : tensor<2x3xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[R]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[E]], %[[S]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: arith.divf
func.func @softmax(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "graph.Softmax"(%a) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// auto_pad = SAME_UPPER: each output is ceil(input / stride), the total padding split in half,
// the odd element at the end (4 wide, kernel 3, stride 2: total 1, so 0 before and 1 after);
// SAME_LOWER puts it at the start.
// CHECK-LABEL: func.func @same_pads
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: linalg.conv_2d_nchw_fchw
func.func @same_pads(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %none = "graph.none"() : () -> none
  %0 = "graph.Conv"(%x, %w, %none) <{auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>}> : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>, none) -> tensor<1x1x2x2xf32>
  %1 = "graph.Conv"(%x, %w, %none) <{auto_pad = "SAME_LOWER", strides = array<i64: 2, 2>}> : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>, none) -> tensor<1x1x2x2xf32>
  return %0, %1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}
