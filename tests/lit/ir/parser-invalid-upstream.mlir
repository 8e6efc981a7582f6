// RUN: nart-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// Parse errors worded and placed as upstream's parser words and places them; each case stops
// at its first error, as upstream does. Upstream `mlir-opt --verify-diagnostics` passes this
// file too.

// A function with unnamed arguments writes its entry block; it must match the signature.
// expected-error @+1 {{entry block must have 2 arguments to match function signature}}
func.func @entry_arity(f32, i32) {
^entry(%a: f32):
  return
}

// -----

// expected-error @+1 {{type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('f32')}}
func.func @entry_types(f32) {
^entry(%a: i64):
  return
}

// -----

// An empty body of a function with arguments is an entry block without them.
// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
func.func @empty_body_with_arguments(f32) {}

// -----

// expected-error @+1 {{custom op 'func.func' expected non-empty function body}}
func.func @empty_body() {}

// -----

// Arguments are all named or all unnamed.
// expected-error @+1 {{custom op 'func.func' expected type instead of SSA identifier}}
func.func @unnamed_then_named(f32, %a: i32) {
  return
}

// -----

// expected-error @+1 {{custom op 'func.func' expected SSA identifier}}
func.func @named_then_unnamed(%a: i32, f32) {
  return
}

// -----

// expected-error @+1 {{custom op 'func.func' expected valid '@'-identifier for symbol name}}
func.func nameless() -> i32

// -----

// expected-error @+1 {{custom op 'func.func' 'sym_visibility' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func @visibility_twice() attributes {sym_visibility = "private"}

// -----

// expected-error @+1 {{custom op 'func.func' 'function_type' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func private @type_twice() attributes {function_type = () -> ()}

// -----

// expected-error @+1 {{expected '{' in attribute dictionary}}
func.func private @attributes_without_dictionary() attributes

// -----

// A syntax error stops the parse: the block referenced before it is not reported as
// undefined.
func.func @no_cascade() {
  cf.br ^later
  // expected-error @+1 {{expected ':' followed by operation type}}
  "foo.op"() {a = 1}
}

// -----

// An enum keyword that is not a case.
func.func @predicate(%a: i32) {
  // expected-error @+1 {{custom op 'arith.cmpi' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge]}}
  %0 = arith.cmpi less, %a, %a : i32
  return
}

// -----

func.func @missing_predicate(%a: f32) {
  // expected-error @+1 {{custom op 'arith.cmpf' expected string or keyword containing one of the following enum values for attribute 'predicate'}}
  %0 = arith.cmpf %a, %a : f32
  return
}

// -----

// Vector shapes: positive sizes, static, with scalable dimensions in brackets.
// expected-error @+1 {{vector types must have positive constant sizes but got 4, 0}}
func.func private @zero_size(vector<[4]x0xi32>)

// -----

// expected-error @+1 {{missing ']' closing scalable dimension}}
func.func private @unclosed_scalable(vector<[4 x i32>)

// -----

// expected-error @+1 {{invalid dimension}}
func.func private @dynamic_scalable(vector<[?]xi32>)

// -----

// expected-error @+1 {{expected non-function type}}
func.func private @dynamic_vector(vector<4x?xi32>)

// -----

// expected-error @+1 {{failed to verify 'elementType': VectorElementTypeInterface instance}}
func.func private @vector_of_vectors(vector<[2]xvector<2xf32>>)

// -----

// expected-error @+1 {{expected 'x' in dimension list}}
func.func private @missing_x(tensor<4 ? x f32>)

// -----

// expected-error @+1 {{invalid tensor element type}}
func.func private @tensor_of_memrefs(tensor<2 x memref<4xf32>>)

// -----

// expected-error @+1 {{invalid memref element type}}
func.func private @memref_of_tuples(memref<2xtuple<i32>>)

// -----

// expected-error @+1 {{invalid element type for complex}}
func.func private @complex_index(complex<index>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func private @type_as_memory_space(memref<4xf32, i8>)

// -----

// expected-error @+1 {{integer bitwidth is limited to 16777215 bits}}
func.func private @too_wide(i16777216)

// -----

// expected-error @+1 {{invalid dimension}}
func.func private @huge_dimension(tensor<9223372036854775808xf32>)

// -----

// Top-level definitions.
// expected-error @+1 {{type names with a '.' are reserved for dialect-defined names}}
!dialect.name = i32

// -----

// expected-error @+1 {{expected '=' in attribute alias definition}}
#no_equal 42

// -----

// expected-error @+1 {{expected three consecutive dots for an ellipsis}}
func.func private @dots(i32, ..)

// -----

// expected-error @+1 {{unbalanced '<' character in pretty dialect name}}
func.func private @unbalanced(!foo.bar<(i32)->)

// -----

func.func @successors(%a: i32) {
  // expected-error @+1 {{successors in non-terminator}}
  %0 = "arith.addi"(%a, %a)[^bb1] : (i32, i32) -> i32
^bb1:
  return
}

// -----

func.func @named_without_results() {
  // expected-error @+1 {{cannot name an operation with no results}}
  %0 = "foo.none"() : () -> ()
  return
}

// -----

func.func @trailing_comma() {
  // expected-error @+1 {{expected valid ssa identifier}}
  %0, = "foo.two"() : () -> (i32, i32)
  return
}

// -----

// `i32` is a type, not the name of an op.
func.func @type_as_op() {
  // expected-error @+1 {{expected operation name in quotes}}
  %0 = arith.constant 1 i32
  return
}

// -----

// `module` is `builtin.module` only where `builtin` is the default dialect.
func.func @module_in_function() {
  // expected-error @+1 {{custom op 'module' is unknown (tried 'func.module' as well)}}
  module {
  }
  return
}

// -----

// Strings, symbols and affine maps.
// expected-error @+1 {{unknown escape in string literal}}
"foo.op"() {a = "bad\q"} : () -> ()

// -----

// expected-error @+1 {{@ identifier expected to start with letter or '_'}}
"foo.op"() {a = @} : () -> ()

// -----

// expected-error @+1 {{redefinition of identifier 'd0'}}
#redefined = affine_map<(d0)[d0] -> (d0)>

// -----

// expected-error @+1 {{non-affine expression: at least one of the multiply operands has to be either a constant or symbolic}}
#product = affine_map<(d0, d1) -> (d0 * d1)>

// -----

// expected-error @+1 {{non-affine expression: right operand of mod has to be either a constant or symbolic}}
#modulo = affine_map<(d0, d1)[s0] -> (d0 mod d1)>

// -----

// expected-error @+1 {{expected a 64-bit signed integer or '?'}}
#layout = strided<[1], offset: x>
