// RUN: nart-opt %s --split-input-file --verify-diagnostics

func.func @br_count(%a: i32) {
  // expected-error @+1 {{branch has 1 operands for successor #0, but target block has 0}}
  "cf.br"(%a)[^bb1] : (i32) -> ()
^bb1:
  return
}

// -----

func.func @cond_br_type(%a: i32, %c: i1) {
  // expected-error @+1 {{type mismatch for bb argument #0 of successor #0}}
  "cf.cond_br"(%c, %c)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i1) -> ()
^bb1(%x: i32):
  return
}

// -----

func.func @cond_br_condition(%a: i32) {
  // expected-error @+1 {{operand #0 must be 1-bit signless integer, but got 'i32'}}
  "cf.cond_br"(%a)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_case_operands(%a: i32) {
  // expected-error @+1 {{branch has 1 operands for successor #1, but target block has 0}}
  cf.switch %a : i32, [
    default: ^bb1,
    42: ^bb1(%a : i32)
  ]
^bb1:
  return
}

// -----

func.func @switch_case_count(%a: i32) {
  // expected-error @+1 {{number of case values (2) should match number of case destinations (1)}}
  "cf.switch"(%a)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<[1, 2]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_case_type(%a: i32) {
  // expected-error @+1 {{'flag' type ('i32') should match case value type ('i64')}}
  "cf.switch"(%a)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<[1]> : vector<1xi64>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @assert_type(%a: i32) {
  // expected-error @+1 {{operand #0 must be 1-bit signless integer, but got 'i32'}}
  "cf.assert"(%a) <{msg = "x"}> : (i32) -> ()
  return
}

