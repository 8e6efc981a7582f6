// RUN: nart-opt %s -o %t
// RUN: filecheck %s --input-file=%t
// RUN: cat %s | nart-opt - | filecheck %s
// RUN: cat %s | nart-opt | filecheck %s
// RUN: nart-opt %s --no-verify-each --cse | filecheck %s --check-prefix=CSE
// RUN: nart-opt %s --verify-each=false --cse | filecheck %s --check-prefix=CSE
// RUN: nart-opt %s -o %t.2 --cse && filecheck %s --check-prefix=CSE --input-file=%t.2

// The output goes to -o when given, else to stdout; input `-` (or none) is stdin.
// CHECK-LABEL: func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %2 = arith.muli %0, %1 : i32
// CHECK-NEXT: return %2 : i32

// CSE-LABEL: func.func @f(%arg0: i32) -> i32 {
// CSE-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CSE-NEXT: %1 = arith.muli %0, %0 : i32
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
