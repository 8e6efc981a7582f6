// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(canonicalize))' | filecheck %s

// A buffer whose pipeline succeeds is still printed under --verify-diagnostics, transformed.
// CHECK-LABEL: func.func @printed(%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
func.func @printed(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %x, %c0 : i32
  return %0 : i32
}

// -----

// A buffer with an expected verifier error prints nothing; the buffer after it is printed.
// CHECK: {{^}}// {{-{5}$}}
// CHECK-NOT: @not_printed
// CHECK: {{^}}// {{-{5}$}}
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @after() {
func.func @not_printed(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @after() {
  return
}
