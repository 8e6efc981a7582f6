// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(linalg-vectorize{vector-width=4 rows=2 cols=1},canonicalize))' | filecheck %s

// A matmul becomes micro-kernels: 2 rows x 1 vector of C in iteration arguments across k,
// each step broadcasting A's element of each row and combining it with the row of B by the
// op's own body. The last 2 columns of 6 are a masked vector (no in_bounds); the third row,
// left over from the 2-row blocks, is a 1-row block.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[A0:.*]] = vector.transfer_read %arg2[%[[C0]], %[[C0]]], %{{.*}} {in_bounds = [true]} : memref<3x6xf32>, vector<4xf32>
// CHECK-NEXT: %[[A1:.*]] = vector.transfer_read %arg2[%[[C1]], %[[C0]]], %{{.*}} {in_bounds = [true]} : memref<3x6xf32>, vector<4xf32>
// CHECK-NEXT: %[[R:.*]]:2 = scf.for %[[K:.*]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[X0:.*]] = %[[A0]], %[[X1:.*]] = %[[A1]]) -> (vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT:   %[[B:.*]] = vector.transfer_read %arg1[%[[K]], %[[C0]]], %{{.*}} {in_bounds = [true]} : memref<2x6xf32>, vector<4xf32>
// CHECK-NEXT:   %[[E0:.*]] = memref.load %arg0[%[[C0]], %[[K]]] : memref<3x2xf32>
// CHECK-NEXT:   %[[S0:.*]] = vector.broadcast %[[E0]] : f32 to vector<4xf32>
// CHECK-NEXT:   %[[M0:.*]] = arith.mulf %[[S0]], %[[B]] : vector<4xf32>
// CHECK-NEXT:   %[[N0:.*]] = arith.addf %[[X0]], %[[M0]] : vector<4xf32>
// CHECK-NEXT:   %[[E1:.*]] = memref.load %arg0[%[[C1]], %[[K]]] : memref<3x2xf32>
// CHECK:        %[[N1:.*]] = arith.addf %[[X1]], %{{.*}} : vector<4xf32>
// CHECK-NEXT:   scf.yield %[[N0]], %[[N1]] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: vector.transfer_write %[[R]]#0, %arg2[%[[C0]], %[[C0]]] {in_bounds = [true]} : vector<4xf32>, memref<3x6xf32>
// CHECK-NEXT: vector.transfer_write %[[R]]#1, %arg2[%[[C1]], %[[C0]]] {in_bounds = [true]} : vector<4xf32>, memref<3x6xf32>
// CHECK-NEXT: vector.transfer_read %arg2[%[[C0]], %[[C4]]], %{{.*}} : memref<3x6xf32>, vector<4xf32>
// CHECK: vector.transfer_write %{{.*}}, %arg2[%[[C1]], %[[C4]]] : vector<4xf32>, memref<3x6xf32>
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%{{.*}} = %{{.*}}) -> (vector<4xf32>) {
// CHECK: memref.load %arg0[%[[C2]], %{{.*}}] : memref<3x2xf32>
// CHECK: vector.transfer_write %{{.*}}, %arg2[%[[C2]], %[[C4]]] : vector<4xf32>, memref<3x6xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<3x2xf32>, %b: memref<2x6xf32>, %c: memref<3x6xf32>) {
  linalg.matmul ins(%a, %b : memref<3x2xf32>, memref<2x6xf32>) outs(%c : memref<3x6xf32>)
  return
}


// -----

// A generic with a matmul's iterators and maps is one too (ops are read through their
// interface, not their names).
// CHECK-LABEL: func.func @generic_matmul
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<4xf32>, vector<4xf32>) {
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: linalg.generic
func.func @generic_matmul(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An elementwise generic goes 4 lanes at a time along the innermost dimension, the last 2 of 6
// masked; the scalar constant is broadcast where it meets a vector.
// CHECK-LABEL: func.func @bias_relu
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = vector.transfer_read %arg0[%[[I]], %[[C0:.*]]], %[[Z:.*]] {in_bounds = [true]} : memref<2x6xf32>, vector<4xf32>
// CHECK-NEXT: %[[B:.*]] = vector.transfer_read %arg1[%[[C0]]], %[[Z]] {in_bounds = [true]} : memref<6xf32>, vector<4xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[B]] : vector<4xf32>
// CHECK-NEXT: %[[ZV:.*]] = vector.broadcast %[[Z]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %[[ZV]] : vector<4xf32>
// CHECK-NEXT: vector.transfer_write %[[R]], %arg2[%[[I]], %[[C0]]] {in_bounds = [true]} : vector<4xf32>, memref<2x6xf32>
// CHECK-NEXT: %[[X2:.*]] = vector.transfer_read %arg0[%[[I]], %[[C4:.*]]], %[[Z]] : memref<2x6xf32>, vector<4xf32>
// CHECK: vector.transfer_write %{{.*}}, %arg2[%[[I]], %[[C4]]] : vector<4xf32>, memref<2x6xf32>
// CHECK-NOT: linalg.generic
func.func @bias_relu(%x: memref<2x6xf32>, %bias: memref<6xf32>, %y: memref<2x6xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %bias : memref<2x6xf32>, memref<6xf32>) outs(%y : memref<2x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}


// -----

// An operand that does not walk the innermost loop is loaded once per vector and broadcast.
// CHECK-LABEL: func.func @row_scale
// CHECK: scf.for %[[I:.*]] = 
// CHECK-NEXT: %[[X:.*]] = vector.transfer_read %arg0[%[[I]], %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<2x4xf32>, vector<4xf32>
// CHECK-NEXT: %[[S:.*]] = memref.load %arg1[%[[I]]] : memref<2xf32>
// CHECK-NEXT: %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[SV]] : vector<4xf32>
// CHECK-NEXT: vector.transfer_write %[[P]], %arg2[%[[I]], %{{.*}}] {in_bounds = [true]} : vector<4xf32>, memref<2x4xf32>
func.func @row_scale(%x: memref<2x4xf32>, %s: memref<2xf32>, %y: memref<2x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : memref<2x4xf32>, memref<2xf32>) outs(%y : memref<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  }
  return
}


// -----

// Left for convert-linalg-to-loops: a reduction other than a matmul, an operand that walks
// the innermost loop along an outer dimension, and integer division (the padding lanes of a
// masked vector could trap).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: vector.
func.func @left_alone(%x: memref<4x8xf32>, %y: memref<4xf32>, %t: memref<8x4xf32>, %q: memref<4x8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%t : memref<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%q : memref<4x8xi32>) {
  ^bb0(%o: i32):
    %c = arith.constant 3 : i32
    %d = arith.divsi %o, %c : i32
    linalg.yield %d : i32
  }
  return
}

// -----

// A convolution keeps one accumulator vector per output channel along the output's width,
// across its reduction loops (c, kh, kw) in that order; the output channel is the row loop
// (the input's vector does not depend on it), 2 channels per block, so the input vector of
// each step serves both rows. The input is read at ow + kw, contiguously.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[F:.*]] = %[[C0]] to %{{.*}} step %[[C2:.*]] {
// CHECK-NEXT: scf.for %[[OH:.*]] = %[[C0]] to %{{.*}} step %[[C1]] {
// CHECK-NEXT: %[[F1:.*]] = arith.addi %[[F]], %[[C1]] : index
// CHECK-NEXT: %[[O0:.*]] = vector.transfer_read %arg2[%[[C0]], %[[F]], %[[OH]], %[[C0]]], %{{.*}} {in_bounds = [true]} : memref<1x4x3x4xf32>, vector<4xf32>
// CHECK-NEXT: %[[O1:.*]] = vector.transfer_read %arg2[%[[C0]], %[[F1]], %[[OH]], %[[C0]]]
// CHECK-NEXT: %[[R:.*]]:2 = scf.for %[[C:.*]] = {{.*}} iter_args(%{{.*}} = %[[O0]], %{{.*}} = %[[O1]]) -> (vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT: scf.for %[[KH:.*]] = {{.*}} iter_args(
// CHECK-NEXT: scf.for %[[KW:.*]] = {{.*}} iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}})
// CHECK-NEXT: %[[H:.*]] = arith.addi %[[OH]], %[[KH]] : index
// CHECK-NEXT: %[[X:.*]] = vector.transfer_read %arg0[%[[C0]], %[[C]], %[[H]], %[[KW]]], %{{.*}} {in_bounds = [true]} : memref<1x2x5x6xf32>, vector<4xf32>
// CHECK-NEXT: %[[W0:.*]] = memref.load %arg1[%[[F]], %[[C]], %[[KH]], %[[KW]]] : memref<4x2x3x3xf32>
// CHECK-NEXT: %[[B0:.*]] = vector.broadcast %[[W0]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[M0:.*]] = arith.mulf %[[X]], %[[B0]] : vector<4xf32>
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[A0]], %[[M0]] : vector<4xf32>
// CHECK-NEXT: %[[W1:.*]] = memref.load %arg1[%[[F1]], %[[C]], %[[KH]], %[[KW]]] : memref<4x2x3x3xf32>
// CHECK-NEXT: %[[B1:.*]] = vector.broadcast %[[W1]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[M1:.*]] = arith.mulf %[[X]], %[[B1]] : vector<4xf32>
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[A1]], %[[M1]] : vector<4xf32>
// CHECK-NEXT: scf.yield %[[S0]], %[[S1]] : vector<4xf32>, vector<4xf32>
// CHECK: vector.transfer_write %[[R]]#0, %arg2[%[[C0]], %[[F]], %[[OH]], %[[C0]]] {in_bounds = [true]}
// CHECK-NEXT: vector.transfer_write %[[R]]#1, %arg2[%[[C0]], %[[F1]], %[[OH]], %[[C0]]] {in_bounds = [true]}
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%x: memref<1x2x5x6xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x3x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x2x5x6xf32>, memref<4x2x3x3xf32>) outs(%y : memref<1x4x3x4xf32>)
  return
}

// -----

// A max pooling has no row loop (every parallel loop of its output moves the input), so each
// vector of the output carries its own accumulator; the last 2 of 6 columns are masked.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[A:.*]] = vector.transfer_read %arg2[{{.*}}], %{{.*}} {in_bounds = [true]} : memref<1x1x2x6xf32>, vector<4xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[A]]) -> (vector<4xf32>) {
// CHECK: scf.for {{.*}} iter_args(
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.transfer_read %arg2[{{.*}}], %{{.*}} : memref<1x1x2x6xf32>, vector<4xf32>
// CHECK-NOT: linalg.pooling_nchw_max
func.func @max_pool(%x: memref<1x1x3x7xf32>, %win: memref<2x2xf32>, %y: memref<1x1x2x6xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %win : memref<1x1x3x7xf32>, memref<2x2xf32>) outs(%y : memref<1x1x2x6xf32>)
  return
}

// -----

// A strided convolution reads the input's width 2 elements apart: through a strided view at
// each step (a gather when translated), here the last 1 of 5 columns masked.
// CHECK-LABEL: func.func @strided_conv
// CHECK: %[[V:.*]] = memref.subview %arg0[0, 0, 0, %{{.*}}] [1, 1, 11, 4] [1, 1, 1, 2] : memref<1x1x11x11xf32> to memref<1x1x11x4xf32, strided<[121, 121, 11, 2], offset: ?>>
// CHECK-NEXT: vector.transfer_read %[[V]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<1x1x11x4xf32, strided<[121, 121, 11, 2], offset: ?>>, vector<4xf32>
// CHECK: %[[T:.*]] = memref.subview %arg0[0, 0, 0, %{{.*}}] [1, 1, 11, 1] [1, 1, 1, 2] : memref<1x1x11x11xf32> to memref<1x1x11x1xf32, strided<[121, 121, 11, 2], offset: ?>>
// CHECK-NEXT: vector.transfer_read %[[T]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<1x1x11x1xf32, strided<[121, 121, 11, 2], offset: ?>>, vector<4xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @strided_conv(%x: memref<1x1x11x11xf32>, %w: memref<2x1x3x3xf32>, %y: memref<1x2x5x5xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : memref<1x1x11x11xf32>, memref<2x1x3x3xf32>) outs(%y : memref<1x2x5x5xf32>)
  return
}
