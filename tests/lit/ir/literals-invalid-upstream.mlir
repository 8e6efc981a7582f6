// RUN: nart-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// Literals outside their type are rejected, not wrapped, with upstream's messages at the
// digits. Upstream `mlir-opt --verify-diagnostics` passes this file too.

func.func @below_i8() {
  // expected-error @+1 {{integer constant out of range for attribute}}
  %0 = arith.constant -129 : i8
  return
}

// -----

func.func @above_i8() {
  // expected-error @+1 {{integer constant out of range for attribute}}
  %0 = arith.constant 256 : i8
  return
}

// -----

// A signed type takes only its signed range.
// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = 128 : si8} : () -> ()

// -----

// Minus zero is no negative integer.
// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = -0 : i32} : () -> ()

// -----

// expected-error @+1 {{negative integer literal not valid for unsigned integer type}}
"foo.op"() {a = -1 : ui128} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = 340282366920938463463374607431768211456 : i128} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = -170141183460469231731687303715884105729 : i128} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = 115792089237316195423570985008687907853269984665640564039457584007913129639936 : i256} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = 9223372036854775808 : index} : () -> ()

// -----

// Without a type, an integer is an i64.
// expected-error @+1 {{integer constant out of range for attribute}}
"foo.op"() {a = 99999999999999999999} : () -> ()

// -----

// Dense elements are checked one by one, at the element.
func.func @dense_element() {
  // expected-error @+1 {{integer constant out of range for type}}
  %0 = arith.constant dense<[1, -129]> : tensor<2xi8>
  return
}

// -----

// expected-error @+1 {{integer constant out of range for type}}
"foo.op"() {a = dense<[0, 2]> : tensor<2xi1>} : () -> ()

// -----

// expected-error @+1 {{expected unsigned integer elements, but parsed negative value}}
"foo.op"() {a = dense<[1, -1]> : vector<2xui16>} : () -> ()

// -----

// expected-error @+1 {{expected integer elements, but parsed floating-point}}
"foo.op"() {a = dense<[1, 2.5]> : tensor<2xi32>} : () -> ()

// -----

// expected-error @+1 {{expected i1 type for 'true' or 'false' values}}
"foo.op"() {a = dense<true> : tensor<2xi8>} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range}}
"foo.op"() {a = array<i8: 1, 300>} : () -> ()

// -----

// Hex floats must fit the bits of their type, and take no sign.
func.func @hex_float_width() {
  // expected-error @+1 {{hexadecimal float constant out of range for type}}
  %0 = arith.constant 0x7FF0000000000000 : f32
  return
}

// -----

// expected-error @+1 {{hexadecimal float constant out of range for type}}
"foo.op"() {a = 0x10000 : bf16} : () -> ()

// -----

// expected-error @+1 {{hexadecimal float constant out of range for type}}
"foo.op"() {a = dense<[0x3C00, 0x7F800000]> : tensor<2xf16>} : () -> ()

// -----

// expected-error @+1 {{hexadecimal float literal should not have a leading minus}}
"foo.op"() {a = -0x7F800000 : f32} : () -> ()

// -----

// A decimal integer is no float.
// expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
// expected-note @+1 {{add a trailing dot to make the literal a float}}
"foo.op"() {a = 2 : f32} : () -> ()

// -----

// expected-error @+1 {{floating point value not valid for specified type}}
"foo.op"() {a = 2.5 : i32} : () -> ()

// -----

// Dense literals: shape, ranks, hex data.
// expected-error @+1 {{tensor literal is invalid; ranks are not consistent between elements}}
"foo.op"() {a = dense<[[1, 2], [3]]> : tensor<2x2xi32>} : () -> ()

// -----

// expected-error @+1 {{inferred shape of elements literal ([2, 1]) does not match type ([2])}}
"foo.op"() {a = dense<[[1], [2]]> : tensor<2xi32>} : () -> ()

// -----

// expected-error @+1 {{parsed zero elements, but type ('tensor<2xi32>') expected at least 1}}
"foo.op"() {a = dense<> : tensor<2xi32>} : () -> ()

// -----

// expected-error @+1 {{elements hex data size is invalid for provided type: 'tensor<3xi16>'}}
"foo.op"() {a = dense<"0x01020304"> : tensor<3xi16>} : () -> ()

// -----

// expected-error @+1 {{elements literal must be a shaped type}}
"foo.op"() {a = dense<1> : i32} : () -> ()
