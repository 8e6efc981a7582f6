// Integer and float literals at the edges of their types, read and printed as mlir-opt reads
// and prints them: a signless literal may be written signed or unsigned, integers of any width
// keep every bit, hex floats give the bits of their type.
// RUN: nart-opt %s --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect | nart-opt --allow-unregistered-dialect | filecheck %s

// CHECK-LABEL: func.func @integer_edges
// CHECK-NEXT:    %c-128_i8 = arith.constant -128 : i8
// CHECK-NEXT:    %c-1_i8 = arith.constant -1 : i8
// CHECK-NEXT:    %c127_i8 = arith.constant 127 : i8
// CHECK-NEXT:    %c-170141183460469231731687303715884105728_i128 = arith.constant -170141183460469231731687303715884105728 : i128
// CHECK-NEXT:    %c-1_i128 = arith.constant -1 : i128
// CHECK-NEXT:    %c-1_i256 = arith.constant -1 : i256
// CHECK-NEXT:    %c-57896044618658097711785492504343953926634992332820282019728792003956564819968_i256 = arith.constant -57896044618658097711785492504343953926634992332820282019728792003956564819968 : i256
// CHECK-NEXT:    %c340282366920938463463374607431768211456_i256 = arith.constant 340282366920938463463374607431768211456 : i256
// CHECK-NEXT:    %c12_i8 = arith.constant 12 : i8
func.func @integer_edges() {
  %0 = arith.constant -128 : i8
  %1 = arith.constant 255 : i8
  %2 = arith.constant 127 : i8
  %3 = arith.constant -170141183460469231731687303715884105728 : i128
  %4 = arith.constant 340282366920938463463374607431768211455 : i128
  %5 = arith.constant 115792089237316195423570985008687907853269984665640564039457584007913129639935 : i256
  %6 = arith.constant -57896044618658097711785492504343953926634992332820282019728792003956564819968 : i256
  %7 = arith.constant 340282366920938463463374607431768211456 : i256
  %8 = arith.constant 0x0000000000000000000000000000000C : i8
  return
}

// Signed and unsigned types print their own reading of the bits; `-1 : i1` is `true`.
// CHECK-LABEL: "foo.signedness"
// CHECK-SAME:    {a = 255 : ui8, b = -128 : si8, c = 340282366920938463463374607431768211455 : ui128, d = 5 : ui200, e = true, f = -9223372036854775808 : index, g = -1 : i64}
"foo.signedness"() {a = 255 : ui8, b = -128 : si8, c = 340282366920938463463374607431768211455 : ui128,
                    d = 5 : ui200, e = -1 : i1, f = -9223372036854775808 : index,
                    g = 18446744073709551615 : i64} : () -> ()

// Dense elements of any width, checked element by element.
// CHECK-LABEL: "foo.dense"
// CHECK-SAME:    a = dense<[1, -1, 340282366920938463463374607431768211456]> : tensor<3xi256>
// CHECK-SAME:    b = dense<-1> : vector<2xi200>
// CHECK-SAME:    c = dense<[-1, -128]> : tensor<2xi8>
// CHECK-SAME:    d = dense<true> : tensor<2xi1>
"foo.dense"() {a = dense<[1, -1, 340282366920938463463374607431768211456]> : tensor<3xi256>,
               b = dense<-1> : vector<2xi200>, c = dense<[255, -128]> : tensor<2xi8>,
               d = dense<-1> : tensor<2xi1>} : () -> ()

// Hex floats give the bits of their type; a narrower literal is zero-extended.
// CHECK-LABEL: "foo.hex_floats"
// CHECK-SAME:    {a = 0x7F800000 : f32, b = 0xFC00 : f16, c = 0x7FC0 : bf16, d = 0x7FF0000000000001 : f64, e = dense<[0x7F800000, 1.000000e+00]> : tensor<2xf32>}
"foo.hex_floats"() {a = 0x7F800000 : f32, b = 0xFC00 : f16, c = 0x7FC0 : bf16,
                    d = 0x7FF0000000000001 : f64,
                    e = dense<[0x7F800000, 1.0]> : tensor<2xf32>} : () -> ()
