// RUN: nart-opt %s --pass-pipeline='builtin.module(strip-debuginfo)' --mlir-print-debuginfo | filecheck %s

// Every op location becomes loc(unknown): nothing from a.mlir is left.
// CHECK-NOT: a.mlir
// CHECK-LABEL: func.func @f
// CHECK-NOT: a.mlir
// CHECK: arith.addi
// CHECK-NOT: a.mlir
func.func @f(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32 loc("a.mlir":3:5)
  return %0 : i32 loc("a.mlir":4:5)
} loc("a.mlir":2:1)
