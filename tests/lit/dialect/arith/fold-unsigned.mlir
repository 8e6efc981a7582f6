// Folds of unsigned operations on 128-bit and wider integers read the operands as unsigned,
// as upstream's folders (which compute on APInt) do: -1 is the largest value, not below 1.
// RUN: nart-opt %s --split-input-file --canonicalize | filecheck %s

// CHECK-LABEL: func.func @unsigned_i128
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : i128
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i128
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 170141183460469231731687303715884105727 : i128
// CHECK-DAG:     %[[CEIL:.*]] = arith.constant -170141183460469231731687303715884105728 : i128
// CHECK-DAG:     %[[DIV3:.*]] = arith.constant 113427455640312821154458202477256070485 : i128
// CHECK-DAG:     %[[REM:.*]] = arith.constant 0 : i128
// CHECK-DAG:     %[[F32:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG:     %[[TRUE:.*]] = arith.constant true
// CHECK:         return %[[M1]], %[[ONE]], %[[HALF]], %[[CEIL]], %[[DIV3]], %[[REM]], %[[F32]], %[[TRUE]]
func.func @unsigned_i128() -> (i128, i128, i128, i128, i128, i128, f32, i1) {
  %m1 = arith.constant -1 : i128
  %one = arith.constant 1 : i128
  %two = arith.constant 2 : i128
  %three = arith.constant 3 : i128
  %0 = arith.maxui %m1, %one : i128
  %1 = arith.minui %m1, %one : i128
  %2 = arith.shrui %m1, %one : i128
  %3 = arith.ceildivui %m1, %two : i128
  %4 = arith.divui %m1, %three : i128
  %5 = arith.remui %m1, %three : i128
  %6 = arith.uitofp %m1 : i128 to f32
  %7 = arith.cmpi ugt, %m1, %one : i128
  return %0, %1, %2, %3, %4, %5, %6, %7 : i128, i128, i128, i128, i128, i128, f32, i1
}

// -----

// The signed readings of the same bits, for contrast.
// CHECK-LABEL: func.func @signed_i128
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : i128
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i128
// CHECK-DAG:     %[[F:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG:     %[[FALSE:.*]] = arith.constant false
// CHECK:         return %[[ONE]], %[[M1]], %[[M1]], %[[F]], %[[FALSE]]
func.func @signed_i128() -> (i128, i128, i128, f32, i1) {
  %m1 = arith.constant -1 : i128
  %one = arith.constant 1 : i128
  %0 = arith.maxsi %m1, %one : i128
  %1 = arith.minsi %m1, %one : i128
  %2 = arith.shrsi %m1, %one : i128
  %3 = arith.sitofp %m1 : i128 to f32
  %4 = arith.cmpi sgt, %m1, %one : i128
  return %0, %1, %2, %3, %4 : i128, i128, i128, f32, i1
}

// -----

// Wider than 128 bits: the same rules, every bit kept.
// CHECK-LABEL: func.func @unsigned_i256
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : i256
// CHECK-DAG:     %[[SHR:.*]] = arith.constant 14474011154664524427946373126085988481658748083205070504932198000989141204991 : i256
// CHECK-DAG:     %[[CEIL:.*]] = arith.constant 38597363079105398474523661669562635951089994888546854679819194669304376546645 : i256
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -57896044618658097711785492504343953926634992332820282019728792003956564819968 : i256
// CHECK-DAG:     %[[MUL:.*]] = arith.constant 57896044618658097711785492504343953926634992332820282019728792003956564819965 : i256
// CHECK-DAG:     %[[TRUE:.*]] = arith.constant true
// CHECK:         return %[[M1]], %[[SHR]], %[[CEIL]], %[[MIN]], %[[MUL]], %[[TRUE]]
func.func @unsigned_i256() -> (i256, i256, i256, i256, i256, i1) {
  %m1 = arith.constant -1 : i256
  %one = arith.constant 1 : i256
  %three = arith.constant 3 : i256
  %max = arith.constant 57896044618658097711785492504343953926634992332820282019728792003956564819967 : i256
  %0 = arith.maxui %m1, %one : i256
  %1 = arith.shrui %m1, %three : i256
  %2 = arith.ceildivui %m1, %three : i256
  %3 = arith.addi %max, %one : i256
  %4 = arith.muli %max, %three : i256
  %5 = arith.cmpi ugt, %m1, %one : i256
  return %0, %1, %2, %3, %4, %5 : i256, i256, i256, i256, i256, i1
}

// -----

// Extended arithmetic at full width.
// CHECK-LABEL: func.func @extended
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i128
// CHECK-DAG:     %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:     %[[LO:.*]] = arith.constant -7 : i64
// CHECK-DAG:     %[[HI:.*]] = arith.constant 6 : i64
// CHECK:         return %[[ZERO]], %[[TRUE]], %[[LO]], %[[HI]]
func.func @extended() -> (i128, i1, i64, i64) {
  %m1 = arith.constant -1 : i128
  %one = arith.constant 1 : i128
  %0:2 = arith.addui_extended %m1, %one : i128, i1
  %a = arith.constant -1 : i64
  %b = arith.constant 7 : i64
  %1:2 = arith.mului_extended %a, %b : i64
  return %0#0, %0#1, %1#0, %1#1 : i128, i1, i64, i64
}

// -----

// Upstream's ceildivsi negates its operands and gives up when that overflows.
// CHECK-LABEL: func.func @ceildivsi_of_min
// CHECK:         arith.ceildivsi
func.func @ceildivsi_of_min() -> i128 {
  %min = arith.constant -170141183460469231731687303715884105728 : i128
  %three = arith.constant 3 : i128
  %0 = arith.ceildivsi %min, %three : i128
  return %0 : i128
}
