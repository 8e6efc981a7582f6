// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops))' | filecheck %s

// One loop per iterator, outermost first; the init is loaded because the body reads it.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[C0]] to %[[C16]] step %[[C1]] {
// CHECK-NEXT: scf.for %[[K:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[I]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT: %[[B:.*]] = memref.load %arg1[%[[K]], %[[J]]] : memref<8x16xf32>
// CHECK-NEXT: %[[C:.*]] = memref.load %arg2[%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[M]] : f32
// CHECK-NEXT: memref.store %[[S]], %arg2[%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: linalg.
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A scalar input is used as it is; an init the body does not read is not loaded.
// CHECK-LABEL: func.func @fill
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[I:.*]] = 
// CHECK-NEXT: scf.for %[[J:.*]] = 
// CHECK-NEXT: memref.store %[[Z]], %arg0[%[[I]], %[[J]]] : memref<4x8xf32>
func.func @fill(%a: memref<4x8xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%a : memref<4x8xf32>)
  return
}

// -----

// Window indices become index arithmetic.
// CHECK-LABEL: func.func @conv
// CHECK: scf.for %[[N:[^ ]*]] =
// CHECK-NEXT: scf.for %[[F:[^ ]*]] =
// CHECK-NEXT: scf.for %[[OH:[^ ]*]] =
// CHECK-NEXT: scf.for %[[OW:[^ ]*]] =
// CHECK-NEXT: scf.for %[[C:[^ ]*]] =
// CHECK-NEXT: scf.for %[[KH:[^ ]*]] =
// CHECK-NEXT: scf.for %[[KW:[^ ]*]] =
// CHECK-NEXT: %[[S:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[OH]], %[[S]] : index
// CHECK-NEXT: %[[H:.*]] = arith.addi %[[T]], %[[KH]] : index
// CHECK-NEXT: %[[D:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[U:.*]] = arith.muli %[[KW]], %[[D]] : index
// CHECK-NEXT: %[[W:.*]] = arith.addi %[[OW]], %[[U]] : index
// CHECK-NEXT: memref.load %arg0[%[[N]], %[[C]], %[[H]], %[[W]]] : memref<1x3x9x9xf32>
// CHECK-NEXT: memref.load %arg1[%[[F]], %[[C]], %[[KH]], %[[KW]]] : memref<5x3x3x2xf32>
func.func @conv(%i: memref<1x3x9x9xf32>, %w: memref<5x3x3x2xf32>, %o: memref<1x5x4x7xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%i, %w : memref<1x3x9x9xf32>, memref<5x3x3x2xf32>) outs(%o : memref<1x5x4x7xf32>)
  return
}

// -----

// A generic's body is inlined with linalg.index reading the induction variable; the map
// (d0, d1) -> (d1, d0) gives the store's indices.
// CHECK-LABEL: func.func @generic
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[K]] : i32 to f32
// CHECK-NEXT: memref.store %[[F]], %arg0[%[[J]], %[[I]]] : memref<8x16xf32>
func.func @generic(%b: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} outs(%b : memref<8x16xf32>) {
  ^bb0(%x: f32):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    linalg.yield %kf : f32
  }
  return
}

// -----

// Structured ops on tensors wait for bufferization.
// CHECK-LABEL: func.func @tensors
// CHECK-NEXT: linalg.matmul
// CHECK-NOT: scf.for
func.func @tensors(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
