// RUN: nart-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// Verifier errors of the core IR and of op definitions, then parse errors.
// Only the line of a diagnostic is checked, with `@+N` / `@-N` offsets.

// Dominance: a use before its definition in the same block of an SSACFG region.
func.func @same_block(%a: i32) -> i32 {
  // expected-error @+1 {{operand #1 does not dominate this use}}
  %0 = arith.addi %a, %1 : i32
  // expected-note @+1 {{operand defined here}}
  %1 = arith.constant 1 : i32
  return %0 : i32
}

// -----

// Dominance across blocks: ^a does not dominate ^b.
func.func @across_blocks(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  // expected-note @+1 {{operand defined here}}
  %0 = arith.constant 1 : i32
  cf.br ^b
^b:
  // expected-error @+1 {{operand #0 does not dominate this use}}
  return %0 : i32
}

// -----

// A use inside a nested region of a value defined later in the enclosing block.
func.func @nested_later() {
  "foo.region"() ({
    // expected-error @+1 {{operand #0 does not dominate this use}}
    "foo.use"(%0) : (i32) -> ()
    "foo.yield"() : () -> ()
  }) : () -> ()
  // expected-note @+1 {{operand defined here}}
  %0 = arith.constant 1 : i32
  return
}

// -----

// A use in a nested region is fine when the value dominates the op holding the region,
// and a graph region (the module body) allows uses before definitions.
"foo.use"(%late) : (i32) -> ()
%late = "foo.def"() : () -> i32
func.func @nested_ok() {
  %0 = arith.constant 1 : i32
  "foo.region"() ({
    "foo.use"(%0) : (i32) -> ()
  }) : () -> ()
  return
}

// -----

// An empty block of a region that needs terminators.
// expected-error @+1 {{empty block: expect at least a terminator}}
func.func @empty_block() {
^bb0:
}

// -----

// A terminator that is not the last op of its block.
func.func @terminator_not_last() {
  // expected-error @+1 {{must be the last operation in the parent block}}
  "func.return"() : () -> ()
  %0 = arith.constant 1 : i32
  "func.return"() : () -> ()
}

// -----

// Successor operands must match the target block's arguments, in number and type.
func.func @successor_count(%a: i32) {
  // expected-error @+1 {{branch has 0 operands for successor #0, but target block has 1}}
  cf.br ^bb1
^bb1(%x: i32):
  return
}

// -----

func.func @successor_type(%a: i64) {
  // expected-error @+1 {{type mismatch for bb argument #0 of successor #0}}
  cf.br ^bb1(%a : i64)
^bb1(%x: i32):
  return
}

// -----

func.func @cond_successor_count(%c: i1, %a: i32) {
  // expected-error @+1 {{branch has 2 operands for successor #1, but target block has 1}}
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%a, %a : i32, i32)
^bb1(%x: i32):
  return
}

// -----

// Successors must name blocks of the same region.
func.func @other_region() {
  "foo.region"() ({
  ^inner:
    "foo.yield"() : () -> ()
  }) : () -> ()
  // expected-error @+1 {{reference to an undefined block}}
  cf.br ^inner
}

// -----

// Symbol redefinition in a symbol table.
// expected-note @+1 {{see existing symbol definition here}}
func.func private @dup()
// expected-error @+1 {{redefinition of symbol named 'dup'}}
func.func private @dup()

// -----

module {
  // expected-note @+1 {{see existing symbol definition here}}
  func.func private @nested_dup()
  // expected-error @+1 {{redefinition of symbol named 'nested_dup'}}
  func.func private @nested_dup(i32)
}

// -----

// Ops with a required parent.
func.func @ret_ok() {
  return
}
// expected-error @+1 {{expects parent op 'func.func'}}
"func.return"() : () -> ()

// -----

func.func @ret_in_region() {
  "foo.region"() ({
    // expected-error @+1 {{expects parent op 'func.func'}}
    "func.return"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Operand and result counts and types from the op definitions.
func.func @operand_count(%a: i32) {
  // expected-error @+1 {{'arith.addi' op expected 2 operands, but found 1}}
  %0 = "arith.addi"(%a) : (i32) -> i32
  return
}

// -----

func.func @same_type(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @operand_type(%a: f32) {
  // expected-error @+1 {{'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = "arith.addi"(%a, %a) : (f32, f32) -> f32
  return
}

// -----

func.func @return_type(%a: i32) -> i64 {
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('i64') in function @return_type}}
  return %a : i32
}

// -----

// Missing required attribute and attribute constraints.
func.func @missing_attr() {
  // expected-error @+1 {{'arith.constant' op requires attribute 'value'}}
  %0 = "arith.constant"() : () -> i32
  return
}

// -----

func.func @missing_predicate(%a: i32) {
  // expected-error @+1 {{'arith.cmpi' op requires attribute 'predicate'}}
  %0 = "arith.cmpi"(%a, %a) : (i32, i32) -> i1
  return
}

// -----

func.func @bad_predicate(%a: i32) {
  // expected-error @+1 {{'arith.cmpi' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases}}
  %0 = "arith.cmpi"(%a, %a) {predicate = "eq"} : (i32, i32) -> i1
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = 1 : i64}> : () -> i32
  return
}

// -----

// Parse errors: an SSA name that is never defined.
func.func @undefined(%a: i32) {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = arith.addi %a, %nope : i32
  return
}

// -----

// A value defined twice.
func.func @redefinition() {
  // expected-note @+1 {{previously defined here}}
  %0 = arith.constant 1 : i32
  // expected-error @+1 {{redefinition of SSA value '%0'}}
  %0 = arith.constant 2 : i32
  return
}

// -----

// A forward reference used with a type that differs from its definition.
func.func @use_type_mismatch() {
  "foo.region"() ({
    // expected-note @+1 {{previously used here with type 'i32'}}
    "foo.use"(%1) : (i32) -> ()
    // expected-error @+1 {{definition of SSA value '%1#0' has type 'i64'}}
    %1 = "foo.def"() : () -> i64
    "foo.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A malformed type.
// expected-error @+1 {{expected non-function type}}
"foo.op"() : () -> (tensor<4xbogus>)

// -----

func.func @unclosed_type(%a: tensor<4xf32) {
  // expected-error @-1 {{expected '>'}}
  return
}

// -----

// A custom-form op that no dialect defines.
func.func @unknown_custom() {
  // expected-error @+1 {{custom op 'arith.frobnicate' is unknown}}
  arith.frobnicate
  return
}

// -----

// Malformed attributes.
func.func @bad_attribute() {
  // expected-error @+1 {{expected attribute value}}
  %0 = arith.constant ) : i32
  return
}

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = 300 : i8} : () -> ()

// -----

// expected-error @+1 {{undefined symbol alias id 'nope'}}
"foo.op"() {a = #nope} : () -> ()

// -----

// Operand and type lists of the generic form must agree.
// expected-error @+1 {{expected 0 operand types but had 2}}
"foo.op"() : (i32, i32) -> ()
