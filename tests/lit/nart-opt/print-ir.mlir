// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --print-ir-before-all -o /dev/null 2>&1 | filecheck %s --check-prefix=BEFORE
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --print-ir-after-all -o /dev/null 2>&1 | filecheck %s --check-prefix=AFTER
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --print-ir-after-change -o /dev/null 2>&1 | filecheck %s --check-prefix=CHANGE
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after-all -o /dev/null 2>&1 | filecheck %s --check-prefix=AFTER
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --print-ir-after=symbol-dce -o /dev/null 2>&1 | filecheck %s --check-prefix=ONLY
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --print-ir-after=cse --print-ir-module-scope -o /dev/null 2>&1 | filecheck %s --check-prefix=SCOPE

// IR dumps go to stderr, one per pass run, headed by the pass's name and argument.
// A pass nested under func.func dumps the function it ran on.

// BEFORE: // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: func.func @f(%arg0: i32) -> i32 {
// BEFORE-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// BEFORE-NEXT: %1 = arith.addi %arg0, %arg0 : i32
// BEFORE: // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: func.func @g() {
// BEFORE: // -----// IR Dump Before SymbolDCE (symbol-dce) //----- //
// BEFORE-NEXT: module {
// BEFORE-NOT: IR Dump After

// AFTER: // -----// IR Dump After CSE (cse) //----- //
// AFTER-NEXT: func.func @f(%arg0: i32) -> i32 {
// AFTER-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// AFTER-NEXT: %1 = arith.muli %0, %0 : i32
// AFTER: // -----// IR Dump After CSE (cse) //----- //
// AFTER-NEXT: func.func @g() {
// AFTER: // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// AFTER-NEXT: module {
// AFTER-NOT: IR Dump Before

// Only the CSE run on @f changed the IR: @g is unchanged and symbol-dce keeps public symbols.
// CHANGE: // -----// IR Dump After CSE (cse) //----- //
// CHANGE-NEXT: func.func @f(%arg0: i32) -> i32 {
// CHANGE-NOT: IR Dump

// ONLY-NOT: (cse)
// ONLY: // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// ONLY-NOT: IR Dump

// SCOPE: // -----// IR Dump After CSE (cse) ('func.func' operation: @f) //----- //
// SCOPE-NEXT: module {
// SCOPE-NEXT: func.func @f(%arg0: i32) -> i32 {
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func @g() {
  return
}
