// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence=true}))' --print-ir-after-failure 2>&1 | filecheck %s
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence=true}))' 2>&1 | filecheck %s --check-prefix=NODUMP

// A pass that fails: with --print-ir-after-failure the IR it left is dumped; nothing goes to
// stdout and the exit code is 1.
// CHECK: // -----// IR Dump After Canonicalizer Failed (canonicalize) //----- //
// CHECK-NEXT: func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT: %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %{{.*}} = arith.addi %arg0, %[[C]] : i32
// CHECK: failure.mlir:[[@LINE+4]]:1: error: 'func.func' op canonicalizer failed to converge
// CHECK-NOT: module {
// NODUMP-NOT: IR Dump
// NODUMP: error: 'func.func' op canonicalizer failed to converge
func.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %c1, %c2 : i32
  %1 = arith.addi %0, %c2 : i32
  %2 = arith.addi %1, %a : i32
  return %2 : i32
}
