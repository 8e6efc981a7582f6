// RUN: not nart-opt %s --split-input-file 2>&1 | filecheck %s

// The shape of diagnostics printed without --verify-diagnostics: `file:line:col: error: message`,
// then the source line and a caret under the column; notes follow their error.
// Every chunk is processed even after one fails, and the exit code is 1.

// CHECK: diagnostics.mlir:[[@LINE+4]]:{{[0-9]+}}: error: {{.*}}block with no terminator
// CHECK-NEXT: {{^}}  %0 = arith.constant 1 : i32
// CHECK-NEXT: {{^ +\^$}}
func.func @missing_terminator() {
  %0 = arith.constant 1 : i32
}

// -----

// CHECK: diagnostics.mlir:[[@LINE+1]]:1: error: entry block of region may not have predecessors
func.func @entry_predecessor() {
^entry:
  cf.br ^entry
}

// -----

// CHECK: diagnostics.mlir:[[@LINE+5]]:{{[0-9]+}}: error: operand #1 does not dominate this use
// CHECK-NEXT: {{^}}  %0 = arith.addi %a, %1 : i32
// CHECK-NEXT: {{^ +\^$}}
// CHECK-NEXT: diagnostics.mlir:[[@LINE+3]]:{{[0-9]+}}: note: operand defined here (op in the same block)
func.func @dominance(%a: i32) -> i32 {
  %0 = arith.addi %a, %1 : i32
  %1 = arith.constant 1 : i32
  return %0 : i32
}

// -----

// CHECK: diagnostics.mlir:[[@LINE+4]]:14: error: use of undeclared SSA value name
// CHECK-NEXT: {{^}}  return %a, %nope : i32, i32
// CHECK-NEXT: {{^}}             ^
func.func @undefined(%a: i32) -> (i32, i32) {
  return %a, %nope : i32, i32
}

// -----

// A stray closing brace at the top level: reported, as MLIR does, just after the token
// before it.
// CHECK: diagnostics.mlir:[[@LINE+5]]:2: error: expected operation name in quotes
// CHECK-NEXT: {{^}}}
// CHECK-NEXT: {{^}} ^
func.func @stray() {
  return
}
}

// -----

// A region that is never closed: the error points just after the last token.
// CHECK: diagnostics.mlir:[[@LINE+2]]:9: error: expected operation name in quotes
func.func @unclosed() {
  return

// -----

// The driver still prints the chunks that succeeded.
// CHECK: func.func @fine()
func.func @fine() {
  return
}
