// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(convert-qnn-to-linalg)' | filecheck %s

// quant.qcast divides in f32, rounds half to even in f64, maps NaN to the zero point, clamps
// and truncates to the signless storage; quant.dcast reads u8 storage with extui.
// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi8>)
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.cmpf uno
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: linalg.generic {{.*}} ins(%[[Q]] : tensor<4xi8>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @casts(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5:128>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<u8:f32, 0.5:128>> to tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// The signature changes with the types. qnn.add brings both fixed-point products to one shift
// (32 here: 0.1/0.25 = 1717986918·2^-32, 0.2/0.25 = 3435973836·2^-32) and rounds once; with
// half_up that is (p + 2^31) >> 32.
// CHECK-LABEL: func.func @signature
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xi8>, %[[B:.*]]: tensor<3xi8>) -> tensor<2x3xi8>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<2x3xi8>, tensor<3xi8>)
// CHECK-DAG: arith.constant 1717986918 : i64
// CHECK-DAG: arith.constant 3435973836 : i64
// CHECK-DAG: arith.constant 32 : i64
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.extui %{{.*}} : i8 to i64
// CHECK: arith.shrsi
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.trunci %{{.*}} : i64 to i8
func.func @signature(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x!quant.uniform<u8:f32, 0.2:4>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>> {
  %y = qnn.add %a, %b round<half_up> : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<u8:f32, 0.2:4>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>>
}

// -----

// qnn.matmul: the weight's scast goes away (same storage); the product accumulates
// (a - 3)·(w - 0) in i32, then one multiplier and shift per column (per-axis weight) requantize
// it, the relu clamping at the zero point.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matmul
// CHECK: %[[WI:.*]] = "graph.constant"() <{value = dense<1> : tensor<4x3xi8>}>
// CHECK-NOT: quant.scast
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %[[WI]] : tensor<2x4xi8>, tensor<4x3xi8>) outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[M:.*]] = arith.constant dense<[1374389535, 1374389535, 2061584302]> : tensor<3xi64>
// CHECK: %[[K:.*]] = arith.constant dense<[35, 36, 35]> : tensor<3xi64>
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[COL]], #[[COL]], {{.*}}], {{.*}} ins(%[[ACC]], %[[M]], %[[K]] : tensor<2x3xi32>, tensor<3xi64>, tensor<3xi64>) outs(%{{.*}} : tensor<2x3xi8>)
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.constant 255 : i64
func.func @matmul(%a: tensor<2x4x!quant.uniform<u8:f32, 0.1:3>>) -> tensor<2x3x!quant.uniform<u8:f32, 0.5>> {
  %wi = "graph.constant"() <{value = dense<1> : tensor<4x3xi8>}> : () -> tensor<4x3xi8>
  %w = quant.scast %wi : tensor<4x3xi8> to tensor<4x3x!quant.uniform<i8:f32:1, {0.2,0.1,0.3}>>
  %y = qnn.matmul %a, %w act<relu> : (tensor<2x4x!quant.uniform<u8:f32, 0.1:3>>, tensor<4x3x!quant.uniform<i8:f32:1, {0.2,0.1,0.3}>>) -> tensor<2x3x!quant.uniform<u8:f32, 0.5>>
  return %y : tensor<2x3x!quant.uniform<u8:f32, 0.5>>
}

// -----

// qnn.max_pool of u8 storage: an unsigned maximum, from 0 (the storage's smallest value); an
// empty tensor of the window's shape gives the window loops their ranges.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<2x2xi8>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %[[WIN]] : tensor<1x1x4x4xi8>, tensor<2x2xi8>) outs(%{{.*}} : tensor<1x1x2x2xi8>)
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
func.func @max_pool(%x: tensor<1x1x4x4x!quant.uniform<u8:f32, 0.1:3>>) -> tensor<1x1x2x2x!quant.uniform<u8:f32, 0.1:3>> {
  %p = qnn.max_pool %x kernel [2, 2] strides [2, 2] : tensor<1x1x4x4x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x1x2x2x!quant.uniform<u8:f32, 0.1:3>>
  return %p : tensor<1x1x2x2x!quant.uniform<u8:f32, 0.1:3>>
}
