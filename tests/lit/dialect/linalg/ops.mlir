// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:   %{{.*}} = linalg.index 1 : index
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[IN]], %[[OUT]] : f32
// CHECK-NEXT:   linalg.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4xf32>
func.func @generic(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @generic_on_buffers
// CHECK: linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<4x8xf32>) outs(%arg1 : memref<4x8xf32>) {
// CHECK: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @generic_on_buffers(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  }
  return
}

// CHECK-LABEL: func.func @named
// CHECK: %{{.*}} = linalg.fill ins(%{{.*}} : f32) outs(%arg2 : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %{{.*}} = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %{{.*}} = linalg.batch_matmul ins(%arg3, %arg4 : tensor<2x4x8xf32>, tensor<2x8x5xf32>) outs(%arg5 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
// CHECK-NEXT: %{{.*}} = linalg.copy ins(%arg0 : tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK-NEXT: %transposed = linalg.transpose ins(%arg0 : tensor<4x8xf32>) outs(%[[T]] : tensor<8x4xf32>) permutation = [1, 0]
// CHECK-NEXT: %broadcasted = linalg.broadcast ins(%arg0 : tensor<4x8xf32>) outs(%arg6 : tensor<4x8x16xf32>) dimensions = [2]
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%arg7 : memref<4x8xf32>)
// CHECK-NEXT: linalg.matmul ins(%arg7, %arg8 : memref<4x8xf32>, memref<8x16xf32>) outs(%arg9 : memref<4x16xf32>)
// CHECK-NEXT: return
func.func @named(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>,
                 %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x5xf32>, %bc: tensor<2x4x5xf32>,
                 %big: tensor<4x8x16xf32>, %ma: memref<4x8xf32>, %mb: memref<8x16xf32>, %mc: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x8xf32>, tensor<2x8x5xf32>) outs(%bc : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %2 = linalg.copy ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %3 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %4 = linalg.broadcast ins(%a : tensor<4x8xf32>) outs(%big : tensor<4x8x16xf32>) dimensions = [2]
  linalg.fill ins(%zero : f32) outs(%ma : memref<4x8xf32>)
  linalg.matmul ins(%ma, %mb : memref<4x8xf32>, memref<8x16xf32>) outs(%mc : memref<4x16xf32>)
  return
}

// CHECK-LABEL: func.func @windows
// CHECK: %{{.*}} = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x3x9x8xf32>, tensor<5x3x3x3xf32>) outs(%arg2 : tensor<1x5x4x6xf32>) -> tensor<1x5x4x6xf32>
// CHECK-NEXT: %{{.*}} = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg3 : tensor<1x3x9x8xf32>, tensor<3x3x3xf32>) outs(%arg4 : tensor<1x3x5x4xf32>) -> tensor<1x3x5x4xf32>
// CHECK-NEXT: %{{.*}} = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg5 : tensor<1x3x9x8xf32>, tensor<3x3xf32>) outs(%arg6 : tensor<1x3x7x6xf32>) -> tensor<1x3x7x6xf32>
// CHECK-NEXT: %{{.*}} = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg5 : tensor<1x3x9x8xf32>, tensor<3x3xf32>) outs(%arg6 : tensor<1x3x7x6xf32>) -> tensor<1x3x7x6xf32>
func.func @windows(%i: tensor<1x3x9x8xf32>, %w: tensor<5x3x3x3xf32>, %o: tensor<1x5x4x6xf32>,
                   %dw: tensor<3x3x3xf32>, %od: tensor<1x3x5x4xf32>, %k: tensor<3x3xf32>, %op: tensor<1x3x7x6xf32>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%i, %w : tensor<1x3x9x8xf32>, tensor<5x3x3x3xf32>) outs(%o : tensor<1x5x4x6xf32>) -> tensor<1x5x4x6xf32>
  %1 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %dw : tensor<1x3x9x8xf32>, tensor<3x3x3xf32>) outs(%od : tensor<1x3x5x4xf32>) -> tensor<1x3x5x4xf32>
  %2 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %k : tensor<1x3x9x8xf32>, tensor<3x3xf32>) outs(%op : tensor<1x3x7x6xf32>) -> tensor<1x3x7x6xf32>
  %3 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %k : tensor<1x3x9x8xf32>, tensor<3x3xf32>) outs(%op : tensor<1x3x7x6xf32>) -> tensor<1x3x7x6xf32>
  return
}

// CHECK-LABEL: func.func @map_reduce
// CHECK: %mapped = linalg.map ins(%arg0, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) (%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32) {
// CHECK-NEXT:   %{{.*}} = arith.addf
// CHECK-NEXT:   linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %reduced = linalg.reduce ins(%arg0 : tensor<4x8xf32>) outs(%arg1 : tensor<4xf32>) dimensions = [1] (%{{.*}}: f32, %{{.*}}: f32) {
// CHECK-NEXT:   %{{.*}} = arith.maximumf
// CHECK-NEXT:   linalg.yield
// CHECK-NEXT: }
func.func @map_reduce(%a: tensor<4x8xf32>, %r: tensor<4xf32>) {
  %0 = linalg.map ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)
    (%x: f32, %y: f32, %init: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  %1 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return
}

// CHECK-LABEL: func.func @mixed_types
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<4x8xi8>, tensor<8x16xi8>) outs(%arg2 : tensor<4x16xi32>) -> tensor<4x16xi32>
func.func @mixed_types(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// The short form of map and reduce bodies is read, and printed in the long form.
// CHECK-LABEL: func.func @short_forms
// CHECK: %mapped = linalg.map ins(%arg0, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) (%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32) {
// CHECK-NEXT:   %[[S:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT:   linalg.yield %[[S]] : f32
// CHECK: %reduced = linalg.reduce ins(%arg0 : tensor<4x8xf32>) outs(%arg1 : tensor<4xf32>) dimensions = [1] (%[[IN:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK-NEXT:   %[[M:.*]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK-NEXT:   linalg.yield %[[M]] : f32
func.func @short_forms(%a: tensor<4x8xf32>, %r: tensor<4xf32>) {
  %0 = linalg.map { arith.subf } ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)
  %1 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
  return
}

// Several results are written in parentheses after the arrow, as upstream prints and reads them.
// CHECK-LABEL: func.func @two_results
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK-NEXT: } -> (tensor<f32>, tensor<f32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @two_results(%a: tensor<4xf32>, %i0: tensor<f32>, %i1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%a : tensor<4xf32>) outs(%i0, %i1 : tensor<f32>, tensor<f32>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32):
    %s = arith.addf %x, %o0 : f32
    %m = arith.maximumf %x, %o1 : f32
    linalg.yield %s, %m : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}
