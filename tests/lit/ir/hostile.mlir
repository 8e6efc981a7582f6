// Hostile input gives an error, not a stack overflow or an unbounded allocation (upstream
// mlir-opt overflows its stack on a 100k-term sum and prints aliases expanded without bound).
// RUN: not nart-opt %s --split-input-file --allow-unregistered-dialect 2>&1 | filecheck %s

// An affine expression is at most 1000 levels deep; a sum of 1001 terms is one level more
// (a 100,000-term sum stops at the same place).
// CHECK: hostile.mlir:[[@LINE+1]]:{{[0-9]+}}: error: affine expression nested more than 1000 levels deep
#deep = affine_map<(d0) -> (d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0 + d0)>

// -----

// Each alias doubles the one before: #a29 expands to 2^31 elements. Uses of aliases may expand
// to 2^24 elements in all; the definition that passes that is the error.
#a0 = [1, 2]
#a1 = [#a0, #a0]
#a2 = [#a1, #a1]
#a3 = [#a2, #a2]
#a4 = [#a3, #a3]
#a5 = [#a4, #a4]
#a6 = [#a5, #a5]
#a7 = [#a6, #a6]
#a8 = [#a7, #a7]
#a9 = [#a8, #a8]
#a10 = [#a9, #a9]
#a11 = [#a10, #a10]
#a12 = [#a11, #a11]
#a13 = [#a12, #a12]
#a14 = [#a13, #a13]
#a15 = [#a14, #a14]
#a16 = [#a15, #a15]
#a17 = [#a16, #a16]
#a18 = [#a17, #a17]
#a19 = [#a18, #a18]
#a20 = [#a19, #a19]
#a21 = [#a20, #a20]
// CHECK: hostile.mlir:[[@LINE+1]]:9: error: aliases expand to more than 16777216 attribute and type elements
#a22 = [#a21, #a21]
#a23 = [#a22, #a22]
#a24 = [#a23, #a23]
#a25 = [#a24, #a24]
#a26 = [#a25, #a25]
#a27 = [#a26, #a26]
#a28 = [#a27, #a27]
#a29 = [#a28, #a28]
"foo.use"() {a = #a29} : () -> ()

// -----

// The same with types.
!t0 = tuple<i32, i32>
!t1 = tuple<!t0, !t0>
!t2 = tuple<!t1, !t1>
!t3 = tuple<!t2, !t2>
!t4 = tuple<!t3, !t3>
!t5 = tuple<!t4, !t4>
!t6 = tuple<!t5, !t5>
!t7 = tuple<!t6, !t6>
!t8 = tuple<!t7, !t7>
!t9 = tuple<!t8, !t8>
!t10 = tuple<!t9, !t9>
!t11 = tuple<!t10, !t10>
!t12 = tuple<!t11, !t11>
!t13 = tuple<!t12, !t12>
!t14 = tuple<!t13, !t13>
!t15 = tuple<!t14, !t14>
!t16 = tuple<!t15, !t15>
!t17 = tuple<!t16, !t16>
!t18 = tuple<!t17, !t17>
!t19 = tuple<!t18, !t18>
!t20 = tuple<!t19, !t19>
!t21 = tuple<!t20, !t20>
// CHECK: hostile.mlir:[[@LINE+1]]:14: error: aliases expand to more than 16777216 attribute and type elements
!t22 = tuple<!t21, !t21>
!t23 = tuple<!t22, !t22>
!t24 = tuple<!t23, !t23>
!t25 = tuple<!t24, !t24>
!t26 = tuple<!t25, !t25>
!t27 = tuple<!t26, !t26>
!t28 = tuple<!t27, !t27>
!t29 = tuple<!t28, !t28>
"foo.use"() : () -> !t29

// -----

// Nesting deeper than 500 levels is an error.
// CHECK: hostile.mlir:[[@LINE+1]]:{{[0-9]+}}: error: nesting too deep
"foo.op"() {a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]} : () -> ()

// -----

// A dense literal whose type counts more elements than a 64-bit count holds is an error (it
// used to overflow the element count).
// CHECK: hostile.mlir:[[@LINE+1]]:{{[0-9]+}}: error: elements literal type has more elements than fit in a 64-bit count
"test.x"() {v = dense<1.5> : tensor<9223372036854775807x4294967296xf32>} : () -> ()
