// RUN: nart-opt %s --canonicalize | filecheck %s

// The CHECK lines pass `mlir-opt --canonicalize` (LLVM 22) on this file too.

// scf.if true {A} else {B} → A
// CHECK-LABEL: func.func @if_true(
// CHECK-NEXT:   %[[A:.*]] = arith.addf %arg0, %arg1 : f32
// CHECK-NEXT:   return %[[A]] : f32
func.func @if_true(%x: f32, %y: f32) -> f32 {
  %true = arith.constant true
  %r = scf.if %true -> (f32) {
    %a = arith.addf %x, %y : f32
    scf.yield %a : f32
  } else {
    scf.yield %y : f32
  }
  return %r : f32
}

// scf.if false {A} → ()
// CHECK-LABEL: func.func @if_false_no_else(
// CHECK-NEXT:   return
func.func @if_false_no_else(%x: f32, %m: memref<f32>) {
  %false = arith.constant false
  scf.if %false {
    memref.store %x, %m[] : memref<f32>
  }
  return
}

// scf.if false {A} else {B} → B
// CHECK-LABEL: func.func @if_false_else(
// CHECK-NEXT:   %[[D:.*]] = arith.addf %arg0, %arg0 : f32
// CHECK-NEXT:   memref.store %[[D]], %arg1[] : memref<f32>
// CHECK-NEXT:   return
func.func @if_false_else(%x: f32, %m: memref<f32>) {
  %false = arith.constant false
  scf.if %false {
    memref.store %x, %m[] : memref<f32>
  } else {
    %d = arith.addf %x, %x : f32
    memref.store %d, %m[] : memref<f32>
  }
  return
}

// A loop from 4 to 0 runs zero times: its results are its inits.
// CHECK-LABEL: func.func @for_zero_trip(
// CHECK-NEXT:   return %arg0 : f32
func.func @for_zero_trip(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c4 to %c0 step %c1 iter_args(%a = %x) -> (f32) {
    %s = arith.addf %a, %a : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @for_same_bounds(
// CHECK-NEXT:   return
func.func @for_same_bounds(%n: index, %x: f32, %m: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  scf.for %i = %n to %n step %c1 {
    memref.store %x, %m[%i] : memref<?xf32>
  }
  return
}

// A loop from 0 to 1 by 8 runs once: its body, with the induction variable 0.
// CHECK-LABEL: func.func @for_one_trip(
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %arg0, %arg1[%[[C0]]] : memref<?xf32>
// CHECK-NEXT:   %[[S:.*]] = arith.addf %arg0, %arg0 : f32
// CHECK-NEXT:   return %[[S]] : f32
func.func @for_one_trip(%x: f32, %m: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c1 step %c8 iter_args(%a = %x) -> (f32) {
    memref.store %a, %m[%i] : memref<?xf32>
    %s = arith.addf %a, %a : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// An unsigned loop from 0 to -1 (the largest i8) runs, so it stays.
// CHECK-LABEL: func.func @for_unsigned_stays(
// CHECK:   scf.for unsigned
func.func @for_unsigned_stays(%m: memref<?xi8>, %x: i8) {
  %c0 = arith.constant 0 : i8
  %cm1 = arith.constant -1 : i8
  %c1 = arith.constant 1 : i8
  scf.for unsigned %i = %c0 to %cm1 step %c1 : i8 {
    %j = arith.index_cast %i : i8 to index
    memref.store %x, %m[%j] : memref<?xi8>
  }
  return
}
