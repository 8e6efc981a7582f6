// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK-LABEL: func.func @for_loops
// CHECK-NEXT: scf.for %[[I:.*]] = %arg0 to %arg1 step %arg2 {
// CHECK-NEXT:   memref.store %arg3, %arg4[%[[I]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[SUM:.*]] = scf.for %[[J:.*]] = %arg0 to %arg1 step %arg2 iter_args(%[[ACC:.*]] = %arg3) -> (f32) {
// CHECK-NEXT:   %[[V:.*]] = memref.load %arg4[%[[J]]] : memref<?xf32>
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:   scf.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.for unsigned %{{.*}} = %arg5 to %arg6 step %arg5 : i32 {
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %{{.*}} = %arg5 to %arg6 step %arg5 : i32 {
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}}:2 = scf.for %{{.*}} = %arg0 to %arg1 step %arg2 iter_args(%[[A:.*]] = %arg3, %[[B:.*]] = %arg5) -> (f32, i32) {
// CHECK-NEXT:   scf.yield %[[A]], %[[B]] : f32, i32
// CHECK-NEXT: }
// CHECK-NEXT: return %[[SUM]] : f32
func.func @for_loops(%lb: index, %ub: index, %step: index, %x: f32, %m: memref<?xf32>, %a: i32, %b: i32) -> f32 {
  scf.for %i = %lb to %ub step %step {
    memref.store %x, %m[%i] : memref<?xf32>
  }
  %sum = scf.for %j = %lb to %ub step %step iter_args(%acc = %x) -> (f32) {
    %v = memref.load %m[%j] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  scf.for unsigned %k = %a to %b step %a : i32 {
  }
  scf.for %k = %a to %b step %a : i32 {
    scf.yield
  }
  %two:2 = scf.for %i = %lb to %ub step %step iter_args(%p = %x, %q = %a) -> (f32, i32) {
    scf.yield %p, %q : f32, i32
  }
  return %sum : f32
}

// CHECK-LABEL: func.func @conditionals
// CHECK-NEXT: %[[R:.*]] = scf.if %arg0 -> (f32) {
// CHECK-NEXT:   scf.yield %arg1 : f32
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %arg2 : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %arg0 {
// CHECK-NEXT:   memref.store %[[R]], %arg3[] : memref<f32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %arg0 {
// CHECK-NEXT: } else {
// CHECK-NEXT:   memref.store %arg1, %arg3[] : memref<f32>
// CHECK-NEXT: }
func.func @conditionals(%c: i1, %x: f32, %y: f32, %m: memref<f32>) {
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  } else {
    scf.yield %y : f32
  }
  scf.if %c {
    memref.store %r, %m[] : memref<f32>
  }
  scf.if %c {
  } else {
    memref.store %x, %m[] : memref<f32>
  }
  return
}

// CHECK-LABEL: func.func @while_loops
// CHECK-NEXT: %{{.*}} = scf.while (%[[X:.*]] = %arg0) : (i32) -> i32 {
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[X]], %arg1 : i32
// CHECK-NEXT:   scf.condition(%[[C]]) %[[X]] : i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[Y:.*]]: i32):
// CHECK-NEXT:   %[[N:.*]] = arith.addi %[[Y]], %[[Y]] : i32
// CHECK-NEXT:   scf.yield %[[N]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.while : () -> () {
// CHECK-NEXT:   scf.condition(%arg2)
// CHECK-NEXT: } do {
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}} = scf.while (%{{.*}} = %arg0) : (i32) -> f32 {
// CHECK-NEXT:   scf.condition(%arg2) %arg3 : f32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK-NEXT:   scf.yield %arg0 : i32
// CHECK-NEXT: }
func.func @while_loops(%init: i32, %limit: i32, %c: i1, %f: f32) {
  %r = scf.while (%x = %init) : (i32) -> i32 {
    %cond = arith.cmpi slt, %x, %limit : i32
    scf.condition(%cond) %x : i32
  } do {
  ^bb0(%y: i32):
    %n = arith.addi %y, %y : i32
    scf.yield %n : i32
  }
  scf.while : () -> () {
    scf.condition(%c)
  } do {
    scf.yield
  }
  %other = scf.while (%x = %init) : (i32) -> f32 {
    scf.condition(%c) %f : f32
  } do {
  ^bb0(%y: f32):
    scf.yield %init : i32
  }
  return
}

// CHECK-LABEL: func.func @parallel_loops
// CHECK-NEXT: %{{.*}} = scf.parallel (%[[I:.*]], %[[J:.*]]) = (%arg0, %arg0) to (%arg1, %arg1) step (%arg2, %arg2) init (%arg3) -> f32 {
// CHECK-NEXT:   %[[V:.*]] = memref.load %arg4[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:   scf.reduce(%[[V]] : f32) {
// CHECK-NEXT:   ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT:     %[[S:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:     scf.reduce.return %[[S]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}}:2 = scf.parallel (%{{.*}}) = (%arg0) to (%arg1) step (%arg2) init (%arg3, %arg5) -> (f32, i32) {
// CHECK-NEXT:   scf.reduce(%arg3, %arg5 : f32, i32) {
// CHECK-NEXT:   ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:     scf.reduce.return %{{.*}} : f32
// CHECK-NEXT:   }, {
// CHECK-NEXT:   ^bb0(%{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT:     scf.reduce.return %{{.*}} : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: scf.parallel (%[[K:.*]]) = (%arg0) to (%arg1) step (%arg2) {
// CHECK-NEXT:   memref.store %arg3, %arg4[%[[K]], %[[K]]] : memref<?x?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }
func.func @parallel_loops(%lb: index, %ub: index, %st: index, %zero: f32, %m: memref<?x?xf32>, %n: i32) {
  %sum = scf.parallel (%i, %j) = (%lb, %lb) to (%ub, %ub) step (%st, %st) init (%zero) -> f32 {
    %v = memref.load %m[%i, %j] : memref<?x?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  %two:2 = scf.parallel (%i) = (%lb) to (%ub) step (%st) init (%zero, %n) -> (f32, i32) {
    scf.reduce(%zero, %n : f32, i32) {
    ^bb0(%l: f32, %r: f32):
      scf.reduce.return %l : f32
    }, {
    ^bb0(%l: i32, %r: i32):
      scf.reduce.return %r : i32
    }
  }
  scf.parallel (%k) = (%lb) to (%ub) step (%st) {
    memref.store %zero, %m[%k, %k] : memref<?x?xf32>
  }
  return
}

// CHECK-LABEL: func.func @execute_region
// CHECK-NEXT: %{{.*}} = scf.execute_region -> i32 {
// CHECK-NEXT:   cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   scf.yield %arg1 : i32
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   scf.yield %arg2 : i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
func.func @execute_region(%c: i1, %a: i32, %b: i32) {
  %r = scf.execute_region -> i32 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    scf.yield %a : i32
  ^bb2:
    scf.yield %b : i32
  }
  scf.execute_region no_inline {
    scf.yield
  }
  return
}

// A nest of loops: a matrix-vector product on buffers.
// CHECK-LABEL: func.func @matvec
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: scf.yield
// CHECK: memref.store
func.func @matvec(%a: memref<4x8xf32>, %x: memref<8xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %dot = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %aij = memref.load %a[%i, %j] : memref<4x8xf32>
      %xj = memref.load %x[%j] : memref<8xf32>
      %p = math.fma %aij, %xj, %acc : f32
      scf.yield %p : f32
    }
    memref.store %dot, %y[%i] : memref<4xf32>
  }
  return
}
