// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(linalg-generalize-named-ops))' | filecheck %s

// CHECK-DAG: #[[MA:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MB:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MC:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[CI:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 + d6 * 2)>
// CHECK-DAG: #[[CF:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[CO:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[MA]], #[[MB]], #[[MC]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%arg2 : tensor<4x16xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32):
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[C]], %[[M]] : f32
// CHECK-NEXT:   linalg.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4x16xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {indexing_maps = [#[[CI]], #[[CF]], #[[CO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
func.func @conv(%i: tensor<1x3x9x9xf32>, %w: tensor<5x3x3x2xf32>, %o: tensor<1x5x4x7xf32>) -> tensor<1x5x4x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%i, %w : tensor<1x3x9x9xf32>, tensor<5x3x3x2xf32>) outs(%o : tensor<1x5x4x7xf32>) -> tensor<1x5x4x7xf32>
  return %0 : tensor<1x5x4x7xf32>
}

// CHECK-LABEL: func.func @transpose_fill
// CHECK: linalg.generic {indexing_maps = [#[[T]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : f32) outs(%arg2 : memref<4x4xf32>) {
func.func @transpose_fill(%a: tensor<2x3x4xf32>, %e: tensor<3x4x2xf32>, %m: memref<4x4xf32>) -> tensor<3x4x2xf32> {
  %0 = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%e : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%m : memref<4x4xf32>)
  return %0 : tensor<3x4x2xf32>
}

// CHECK-LABEL: func.func @reduce
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%arg1 : tensor<4xf32>) {
// CHECK: arith.addf
func.func @reduce(%a: tensor<4x8xf32>, %r: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}
