// RUN: nart-opt %s --split-input-file --verify-diagnostics
// RUN: nart-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// Verifier behaviour that matches upstream mlir-opt message for message (these cases also pass
// with `mlir-opt --verify-diagnostics`): one error per function, reported in MLIR's order.

func.func @missing_terminator() {
  // expected-error @+1 {{block with no terminator, has %0 = "arith.constant"() <{value = 1 : i32}> : () -> i32}}
  %0 = arith.constant 1 : i32
}

// -----

func.func @terminator_not_last() {
  // expected-error @+1 {{'func.return' op must be the last operation in the parent block}}
  "func.return"() : () -> ()
  %0 = arith.constant 1 : i32
}

// -----

// expected-error @+1 {{entry block of region may not have predecessors}}
func.func @entry_has_predecessor() {
^entry:
  cf.br ^entry
}

// -----

func.func @dominance_note(%a: i32) -> i32 {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %0 = arith.addi %1, %1 : i32
  // expected-note @+1 {{operand defined here (op in the same block)}}
  %1 = arith.constant 1 : i32
  return %0 : i32
}

// -----

func.func @dominance_across_blocks(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  // expected-note @+1 {{operand defined here (op in the same region)}}
  %0 = arith.constant 1 : i32
  cf.br ^b
^b:
  // expected-error @+1 {{operand #0 does not dominate this use}}
  return %0 : i32
}

// -----

// One error per function, but every function is verified.
func.func @first(%a: i32) -> i32 {
  // expected-error @+1 {{'arith.addi' op requires one result}}
  %0:2 = "arith.addi"(%a, %a) : (i32, i32) -> (i32, i32)
  return %0#0 : i32
}
func.func @second() {
  // expected-error @+1 {{'func.return' op requires zero results}}
  %0 = "func.return"() : () -> i32
}

// -----

func.func @operand_count(%a: i32) -> i32 {
  // expected-error @+1 {{'arith.addi' op expected 2 operands, but found 1}}
  %0 = "arith.addi"(%a) : (i32) -> i32
  return %0 : i32
}

// -----

// A loaded dialect never accepts unknown ops, even with --allow-unregistered-dialect.
func.func @unknown_arith_op() {
  // expected-error @+1 {{unregistered operation 'arith.bogus' found in dialect ('arith') that does not allow unknown operations}}
  "arith.bogus"() : () -> ()
  return
}
