// RUN: nart-opt %s | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// Inherent attributes (properties) written in an attribute dictionary, as mlir-opt (LLVM 22)
// reads them: in the custom form the dictionary sets the property and overrides what the
// syntax said; in the generic form a dictionary entry without `<{...}>` becomes the property,
// and `<{...}>` wins over the dictionary. The printer writes them back in their own place.

// CHECK-LABEL: func.func @custom_form
// CHECK-NEXT: arith.addi %arg0, %arg1 overflow<nsw> : i32
// CHECK-NEXT: arith.cmpi sle, %arg0, %arg1 : i32
// CHECK-NEXT: arith.trunci %arg0 overflow<nuw> : i32 to i8
// CHECK-NEXT: arith.divsi %arg0, %arg1 exact : i32
// CHECK-NEXT: arith.addf %arg2, %arg2 fastmath<fast> : f32
// CHECK-NEXT: cf.cond_br %{{.*}} weights([2, 3]), ^bb1, ^bb1
// GENERIC-LABEL: sym_name = "custom_form"
// GENERIC: "arith.addi"({{.*}}) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32
// GENERIC-NEXT: "arith.cmpi"({{.*}}) <{predicate = 3 : i64}> : (i32, i32) -> i1
// GENERIC-NEXT: "arith.trunci"({{.*}}) <{overflowFlags = #arith.overflow<nuw>}> : (i32) -> i8
// GENERIC-NEXT: "arith.divsi"({{.*}}) <{isExact}> : (i32, i32) -> i32
// GENERIC-NEXT: "arith.addf"({{.*}}) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
// GENERIC-NEXT: <{branch_weights = array<i32: 2, 3>, operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @custom_form(%a: i32, %b: i32, %x: f32, %c: i1) {
  %0 = arith.addi %a, %b {overflowFlags = #arith.overflow<nsw>} : i32
  %1 = arith.cmpi slt, %a, %b {predicate = 3 : i64} : i32
  %2 = arith.trunci %a {overflowFlags = #arith.overflow<nuw>} : i32 to i8
  %3 = arith.divsi %a, %b {isExact} : i32
  %4 = arith.addf %x, %x {fastmath = #arith.fastmath<fast>} : f32
  cf.cond_br %c, ^bb1, ^bb1 {branch_weights = array<i32: 2, 3>}
^bb1:
  return
}

// CHECK-LABEL: func.func @generic_form
// CHECK-NEXT: arith.cmpi slt, %arg0, %arg1 : i32
// CHECK-NEXT: arith.cmpi eq, %arg0, %arg1 : i32
// CHECK-NEXT: arith.cmpi slt, %arg0, %arg1 : i32
// CHECK-NEXT: arith.muli %arg0, %arg1 overflow<nsw, nuw> : i32
// GENERIC-LABEL: sym_name = "generic_form"
// GENERIC: "arith.cmpi"({{.*}}) <{predicate = 2 : i64}> : (i32, i32) -> i1
// GENERIC-NEXT: "arith.cmpi"({{.*}}) <{predicate = 0 : i64}> : (i32, i32) -> i1
// GENERIC-NEXT: "arith.cmpi"({{.*}}) <{predicate = 2 : i64}> : (i32, i32) -> i1
func.func @generic_form(%a: i32, %b: i32) {
  %0 = "arith.cmpi"(%a, %b) {predicate = 2 : i64} : (i32, i32) -> i1
  %1 = "arith.cmpi"(%a, %b) {predicate = 0} : (i32, i32) -> i1
  %2 = "arith.cmpi"(%a, %b) <{predicate = 2 : i64}> {predicate = 5 : i64} : (i32, i32) -> i1
  %3 = "arith.muli"(%a, %b) {overflowFlags = #arith.overflow<nsw, nuw>} : (i32, i32) -> i32
  return
}
