// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect | nart-opt --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | nart-opt --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// The generic operation form: operands, results, successors, properties, attributes, regions.

// A module body is a graph region: a value may be used before its definition.
// Result groups print as %N:count and single results of a group as %N#i.
// CHECK-LABEL: "foo.user"(%0) : (i32) -> ()
// CHECK-NEXT: %0 = "foo.def"() : () -> i32
// CHECK-NEXT: %1:2 = "foo.pair"() : () -> (i32, f32)
// CHECK-NEXT: "foo.use"(%1#1, %1#0, %0) : (f32, i32, i32) -> ()
// CHECK-NEXT: %2:3 = "foo.triple"(%1#1) : (f32) -> (i1, i1, i1)
// CHECK-NEXT: "foo.use"(%2#2) : (i1) -> ()
// GENERIC-LABEL: "builtin.module"() ({
// GENERIC-NEXT: "foo.user"(%0) : (i32) -> ()
// GENERIC-NEXT: %0 = "foo.def"() : () -> i32
// GENERIC-NEXT: %1:2 = "foo.pair"() : () -> (i32, f32)
// GENERIC-NEXT: "foo.use"(%1#1, %1#0, %0) : (f32, i32, i32) -> ()
// GENERIC-NEXT: %2:3 = "foo.triple"(%1#1) : (f32) -> (i1, i1, i1)
// GENERIC-NEXT: "foo.use"(%2#2) : (i1) -> ()
// GENERIC-NEXT: }) : () -> ()
"foo.user"(%fwd) : (i32) -> ()   // a forward reference
%fwd = "foo.def"() : () -> i32
%pair:2 = "foo.pair"() : () -> (i32, f32)
"foo.use"(%pair#1, %pair#0, %fwd) : (f32, i32, i32) -> ()
%t:3 = "foo.triple"(%pair#1) : (f32) -> (i1, i1, i1)
"foo.use"(%t#2) : (i1) -> ()

// -----

// Properties print between <{ and }>, before the discardable attribute dictionary.
// CHECK-LABEL: %0 = "foo.props"() <{alpha = 1 : i64, name = "n"}> {discardable} : () -> i1
// CHECK-NEXT: "foo.only_props"(%0) <{p = [1 : i32]}> : (i1) -> ()
// CHECK-NEXT: "foo.only_attrs"() {a = 1 : i32} : () -> ()
// CHECK-NEXT: "foo.empty"() : () -> ()
// GENERIC-LABEL: %0 = "foo.props"() <{alpha = 1 : i64, name = "n"}> {discardable} : () -> i1
// GENERIC-NEXT: "foo.only_props"(%0) <{p = [1 : i32]}> : (i1) -> ()
// GENERIC-NEXT: "foo.only_attrs"() {a = 1 : i32} : () -> ()
// GENERIC-NEXT: "foo.empty"() : () -> ()
%p = "foo.props"() <{name = "n", alpha = 1 : i64}> {discardable} : () -> i1
"foo.only_props"(%p) <{p = [1 : i32]}> : (i1) -> ()
"foo.only_attrs"() {a = 1 : i32} : () -> ()
"foo.empty"() {} : () -> ()

// -----

// Regions with several blocks, block arguments, successors and nested regions.
// Block and value names are renumbered; the entry block label is kept when it has arguments.
// CHECK-LABEL: "foo.region"() ({
// CHECK-NEXT: ^bb0(%arg0: i32, %arg1: f32):
// CHECK-NEXT: "foo.br"(%arg0)[^bb1, ^bb2] : (i32) -> ()
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: "foo.nested"() ({
// CHECK-NEXT: "foo.inner"(%arg0) : (i32) -> ()
// CHECK-NEXT: "foo.yield"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%arg2: index):
// CHECK-NEXT: "foo.yield"(%arg2, %arg1) : (index, f32) -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: "foo.ret"() : () -> ()
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: "foo.ret"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: "foo.empty_region"() ({
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: "foo.two_empty"() ({
// CHECK-NEXT: }, {
// CHECK-NEXT: }) : () -> ()
// GENERIC-LABEL: "foo.region"() ({
// GENERIC-NEXT: ^bb0(%arg0: i32, %arg1: f32):
// GENERIC-NEXT: "foo.br"(%arg0)[^bb1, ^bb2] : (i32) -> ()
// GENERIC-NEXT: ^bb1:
"foo.region"() ({
^entry(%a: i32, %b: f32):  // comment after a block label
  "foo.br"(%a)[^next, ^other] : (i32) -> ()
^next:
  "foo.nested"() ({
    "foo.inner"(%a) : (i32) -> ()
    "foo.yield"() : () -> ()
  }, {
  ^bb0(%c: index):
    "foo.yield"(%c, %b) : (index, f32) -> ()
  }) : () -> ()
  "foo.ret"() : () -> ()
// A comment between blocks.
^other:
  "foo.ret"() : () -> ()
}) : () -> ()
"foo.empty_region"() ({
}) : () -> ()
"foo.two_empty"() ({}, {}) : () -> ()

// -----

// Registered ops in the generic form parse as the same ops and print in their custom form.
// CHECK-LABEL: func.func @branches(%arg0: i1, %arg1: i32) -> i32 {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1(%arg1 : i32), ^bb2
// CHECK-NEXT: ^bb1(%0: i32):
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : i32
// CHECK-NEXT: cf.br ^bb1(%[[C]] : i32)
// CHECK-NEXT: }
// GENERIC-LABEL: "func.func"() <{function_type = (i1, i32) -> i32, sym_name = "branches"}> ({
// GENERIC-NEXT: ^bb0(%arg0: i1, %arg1: i32):
// GENERIC-NEXT: "cf.cond_br"(%arg0, %arg1)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
// GENERIC-NEXT: ^bb1(%0: i32):
// GENERIC-NEXT: "func.return"(%0) : (i32) -> ()
// GENERIC-NEXT: ^bb2:
// GENERIC-NEXT: %1 = "arith.constant"() <{value = 0 : i32}> : () -> i32
// GENERIC-NEXT: "cf.br"(%1)[^bb1] : (i32) -> ()
// GENERIC-NEXT: }) : () -> ()
"func.func"() <{function_type = (i1, i32) -> i32, sym_name = "branches"}> ({
^bb0(%c: i1, %x: i32):
  "cf.cond_br"(%c, %x)[^ret, ^zero] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
^ret(%v: i32):
  "func.return"(%v) : (i32) -> ()
^zero:
  %z = "arith.constant"() <{value = 0 : i32}> : () -> i32
  "cf.br"(%z)[^ret] : (i32) -> ()
}) : () -> ()

// -----

// Nested modules and functions; a region's values are visible in the regions it holds.
// CHECK-LABEL: module @outer {
// CHECK-NEXT: module @inner attributes {foo.attr = 1 : i32} {
// CHECK-NEXT: func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = "foo.wrap"() ({
// CHECK-NEXT: %1 = "foo.deeper"() ({
// CHECK-NEXT: "foo.yield"(%arg0) : (i32) -> ()
// CHECK-NEXT: }) : () -> i32
// CHECK-NEXT: "foo.yield"(%1) : (i32) -> ()
// CHECK-NEXT: }) : () -> i32
// CHECK-NEXT: return %0 : i32
// GENERIC-LABEL: "builtin.module"() <{sym_name = "outer"}> ({
// GENERIC-NEXT: "builtin.module"() <{sym_name = "inner"}> ({
// GENERIC: }) {foo.attr = 1 : i32} : () -> ()
module @outer {
  module @inner attributes {foo.attr = 1 : i32} {
    func.func @f(%x: i32) -> i32 {
      %r = "foo.wrap"() ({
        %s = "foo.deeper"() ({
          "foo.yield"(%x) : (i32) -> ()
        }) : () -> i32
        "foo.yield"(%s) : (i32) -> ()
      }) : () -> i32
      return %r : i32
    }
  }
}

// -----

// Comments are skipped anywhere whitespace may appear.
// CHECK-LABEL: func.func @comments(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NOT: comment
func.func @comments(// comment in the argument list
    %a: i32) // comment before the result type
    -> i32 { // comment after a brace
  %0 = arith.addi %a, // comment between operands
       %a : i32
  // A comment line.
  return %0 : i32 // trailing comment
} // comment after the function
