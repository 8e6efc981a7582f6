// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file | filecheck %s

// addi(x, 0) → x
// CHECK-LABEL: func.func @addi_zero(%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
func.func @addi_zero(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %x, %c0 : i32
  return %0 : i32
}

// -----

// addi(0, x) → x (the constant moves to the right first)
// CHECK-LABEL: func.func @addi_zero_lhs(%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
func.func @addi_zero_lhs(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %c0, %x : i32
  return %0 : i32
}

// -----

// muli(x, 1) → x
// CHECK-LABEL: func.func @muli_one(%arg0: i64) -> i64
// CHECK-NEXT: return %arg0 : i64
func.func @muli_one(%x: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %0 = arith.muli %x, %c1 : i64
  return %0 : i64
}

// -----

// muli(x, 0) → 0
// CHECK-LABEL: func.func @muli_zero(%arg0: i64) -> i64
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: return %[[C0]] : i64
func.func @muli_zero(%x: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %0 = arith.muli %x, %c0 : i64
  return %0 : i64
}

// -----

// subi(x, x) → 0
// CHECK-LABEL: func.func @subi_self(%arg0: i32) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: return %[[C0]] : i32
func.func @subi_self(%x: i32) -> i32 {
  %0 = arith.subi %x, %x : i32
  return %0 : i32
}

// -----

// addi(addi(x, c1), c2) → addi(x, c1 + c2)
// CHECK-LABEL: func.func @addi_addi_constant(%arg0: i32) -> i32
// CHECK-NEXT: %[[C:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[R:.*]] = arith.addi %arg0, %[[C]] : i32
// CHECK-NEXT: return %[[R]] : i32
func.func @addi_addi_constant(%x: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %0 = arith.addi %x, %c3 : i32
  %1 = arith.addi %0, %c4 : i32
  return %1 : i32
}

// -----

// addi(addi(x, c1), c2) wraps around: 127 + 1 is -128 in i8
// CHECK-LABEL: func.func @addi_addi_wrap(%arg0: i8) -> i8
// CHECK-NEXT: %[[C:.*]] = arith.constant -128 : i8
// CHECK-NEXT: %[[R:.*]] = arith.addi %arg0, %[[C]] : i8
// CHECK-NEXT: return %[[R]] : i8
func.func @addi_addi_wrap(%x: i8) -> i8 {
  %c127 = arith.constant 127 : i8
  %c1 = arith.constant 1 : i8
  %0 = arith.addi %x, %c127 : i8
  %1 = arith.addi %0, %c1 : i8
  return %1 : i8
}

// -----

// subi(addi(x, y), y) → x
// CHECK-LABEL: func.func @subi_addi(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
func.func @subi_addi(%x: i32, %y: i32) -> i32 {
  %0 = arith.addi %x, %y : i32
  %1 = arith.subi %0, %y : i32
  return %1 : i32
}

// -----

// xori(x, x) → 0
// CHECK-LABEL: func.func @xori_self(%arg0: i16) -> i16
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i16
// CHECK-NEXT: return %[[C0]] : i16
func.func @xori_self(%x: i16) -> i16 {
  %0 = arith.xori %x, %x : i16
  return %0 : i16
}

// -----

// andi(x, x) → x
// CHECK-LABEL: func.func @andi_self(%arg0: i16) -> i16
// CHECK-NEXT: return %arg0 : i16
func.func @andi_self(%x: i16) -> i16 {
  %0 = arith.andi %x, %x : i16
  return %0 : i16
}

// -----

// select(true, a, b) → a
// CHECK-LABEL: func.func @select_true(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
func.func @select_true(%a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  %0 = arith.select %true, %a, %b : i32
  return %0 : i32
}

// -----

// select(c, a, a) → a
// CHECK-LABEL: func.func @select_same(%arg0: i1, %arg1: i32) -> i32
// CHECK-NEXT: return %arg1 : i32
func.func @select_same(%c: i1, %a: i32) -> i32 {
  %0 = arith.select %c, %a, %a : i32
  return %0 : i32
}

// -----

// cmpi eq(x, x) → true, cmpi slt(x, x) → false
// CHECK-LABEL: func.func @cmpi_self(%arg0: i32) -> (i1, i1)
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-NEXT: return %[[T]], %[[F]] : i1, i1
func.func @cmpi_self(%x: i32) -> (i1, i1) {
  %0 = arith.cmpi eq, %x, %x : i32
  %1 = arith.cmpi slt, %x, %x : i32
  return %0, %1 : i1, i1
}

// -----

// extsi(extsi(x)) → extsi(x)
// CHECK-LABEL: func.func @extsi_extsi(%arg0: i8) -> i64
// CHECK-NEXT: %[[R:.*]] = arith.extsi %arg0 : i8 to i64
// CHECK-NEXT: return %[[R]] : i64
func.func @extsi_extsi(%x: i8) -> i64 {
  %0 = arith.extsi %x : i8 to i32
  %1 = arith.extsi %0 : i32 to i64
  return %1 : i64
}

// -----

// index_cast(index_cast(x : i32 → index) → i32) → x
// CHECK-LABEL: func.func @index_cast_round_trip(%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
func.func @index_cast_round_trip(%x: i32) -> i32 {
  %0 = arith.index_cast %x : i32 to index
  %1 = arith.index_cast %0 : index to i32
  return %1 : i32
}

// -----

// Constant folding wraps around at the result width: 100 + 100 in i8 is -56.
// CHECK-LABEL: func.func @fold_addi_wrap() -> i8
// CHECK-NEXT: %[[C:.*]] = arith.constant -56 : i8
// CHECK-NEXT: return %[[C]] : i8
func.func @fold_addi_wrap() -> i8 {
  %c100 = arith.constant 100 : i8
  %0 = arith.addi %c100, %c100 : i8
  return %0 : i8
}

// -----

// Division by zero is not folded.
// CHECK-LABEL: func.func @no_fold_div_zero() -> i32
// CHECK: arith.divsi
func.func @no_fold_div_zero() -> i32 {
  %c7 = arith.constant 7 : i32
  %c0 = arith.constant 0 : i32
  %0 = arith.divsi %c7, %c0 : i32
  return %0 : i32
}

// -----

// Unsigned comparison reads -1 as the largest value.
// CHECK-LABEL: func.func @fold_cmpi_unsigned() -> (i1, i1)
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-NEXT: return %[[F]], %[[T]] : i1, i1
func.func @fold_cmpi_unsigned() -> (i1, i1) {
  %m1 = arith.constant -1 : i8
  %c1 = arith.constant 1 : i8
  %0 = arith.cmpi ult, %m1, %c1 : i8
  %1 = arith.cmpi slt, %m1, %c1 : i8
  return %0, %1 : i1, i1
}

// -----

// f32 folding computes in f32.
// CHECK-LABEL: func.func @fold_addf_f32() -> f32
// CHECK-NEXT: %[[C:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: return %[[C]] : f32
func.func @fold_addf_f32() -> f32 {
  %a = arith.constant 1.000000e+00 : f32
  %b = arith.constant 2.000000e+00 : f32
  %0 = arith.addf %a, %b : f32
  return %0 : f32
}

// -----

// Splat constants fold elementwise.
// CHECK-LABEL: func.func @fold_splat() -> vector<4xi32>
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<5> : vector<4xi32>
// CHECK-NEXT: return %[[C]] : vector<4xi32>
func.func @fold_splat() -> vector<4xi32> {
  %a = arith.constant dense<2> : vector<4xi32>
  %b = arith.constant dense<3> : vector<4xi32>
  %0 = arith.addi %a, %b : vector<4xi32>
  return %0 : vector<4xi32>
}

// -----

// addi(addi(x, c0), c1) → addi(x, c0 + c1), keeping the flags both ops carry
// CHECK-LABEL: func.func @addi_addi_flags(%arg0: i32) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[R0:.*]] = arith.addi %arg0, %[[C0]] overflow<nsw> : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @addi_addi_flags(%x: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %0 = arith.addi %x, %c3 overflow<nsw, nuw> : i32
  %1 = arith.addi %0, %c4 overflow<nsw> : i32
  return %1 : i32
}

// -----

// Negative: AddIAddConstant takes scalar constants only (upstream's APIntAttr), not splats
// CHECK-LABEL: func.func @addi_addi_splat(%arg0: vector<4xi32>) -> vector<4xi32>
// CHECK-NEXT: %[[C0:.*]] = arith.constant dense<3> : vector<4xi32>
// CHECK-NEXT: %[[C1:.*]] = arith.constant dense<4> : vector<4xi32>
// CHECK-NEXT: %[[R0:.*]] = arith.addi %arg0, %[[C0]] : vector<4xi32>
// CHECK-NEXT: %[[R1:.*]] = arith.addi %[[R0]], %[[C1]] : vector<4xi32>
// CHECK-NEXT: return %[[R1]] : vector<4xi32>
func.func @addi_addi_splat(%x: vector<4xi32>) -> vector<4xi32> {
  %c3 = arith.constant dense<3> : vector<4xi32>
  %c4 = arith.constant dense<4> : vector<4xi32>
  %0 = arith.addi %x, %c3 : vector<4xi32>
  %1 = arith.addi %0, %c4 : vector<4xi32>
  return %1 : vector<4xi32>
}

// -----

// addi(subi(x, c0), c1) → addi(x, c1 - c0)
// CHECK-LABEL: func.func @addi_subi_constant_rhs(%arg0: i32) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[R0:.*]] = arith.addi %arg0, %[[C0]] overflow<nuw> : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @addi_subi_constant_rhs(%x: i32) -> i32 {
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %0 = arith.subi %x, %c5 overflow<nuw> : i32
  %1 = arith.addi %0, %c7 overflow<nuw> : i32
  return %1 : i32
}

// -----

// addi(subi(c0, x), c1) → subi(c0 + c1, x)
// CHECK-LABEL: func.func @addi_subi_constant_lhs(%arg0: i32) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 12 : i32
// CHECK-NEXT: %[[R0:.*]] = arith.subi %[[C0]], %arg0 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @addi_subi_constant_lhs(%x: i32) -> i32 {
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %0 = arith.subi %c5, %x : i32
  %1 = arith.addi %0, %c7 : i32
  return %1 : i32
}

// -----

// addi(x, muli(y, -1)) → subi(x, y)
// CHECK-LABEL: func.func @addi_muli_negative_one_rhs(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @addi_muli_negative_one_rhs(%x: i32, %y: i32) -> i32 {
  %m1 = arith.constant -1 : i32
  %0 = arith.muli %y, %m1 : i32
  %1 = arith.addi %x, %0 : i32
  return %1 : i32
}

// -----

// addi(muli(x, -1), y) → subi(y, x)
// CHECK-LABEL: func.func @addi_muli_negative_one_lhs(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.subi %arg1, %arg0 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @addi_muli_negative_one_lhs(%x: i32, %y: i32) -> i32 {
  %m1 = arith.constant -1 : i32
  %0 = arith.muli %x, %m1 : i32
  %1 = arith.addi %0, %y : i32
  return %1 : i32
}

// -----

// addi(x, muli(y, splat(-1))) → subi(x, y)
// CHECK-LABEL: func.func @addi_muli_negative_one_splat(%arg0: vector<2xi8>, %arg1: vector<2xi8>) -> vector<2xi8>
// CHECK-NEXT: %[[R0:.*]] = arith.subi %arg0, %arg1 : vector<2xi8>
// CHECK-NEXT: return %[[R0]] : vector<2xi8>
func.func @addi_muli_negative_one_splat(%x: vector<2xi8>, %y: vector<2xi8>) -> vector<2xi8> {
  %m1 = arith.constant dense<-1> : vector<2xi8>
  %0 = arith.muli %y, %m1 : vector<2xi8>
  %1 = arith.addi %x, %0 : vector<2xi8>
  return %1 : vector<2xi8>
}

// -----

// subi(addi(x, c0), c1) → addi(x, c0 - c1), without flags (as upstream)
// CHECK-LABEL: func.func @subi_addi_constant_flags(%arg0: i32) -> i32
// CHECK-NEXT: %c-1_i32 = arith.constant -1 : i32
// CHECK-NEXT: %[[R0:.*]] = arith.addi %arg0, %c-1_i32 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @subi_addi_constant_flags(%x: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %0 = arith.addi %x, %c3 overflow<nsw> : i32
  %1 = arith.subi %0, %c4 overflow<nsw> : i32
  return %1 : i32
}

// -----

// subi(c1, addi(x, c0)) → subi(c1 - c0, x)
// CHECK-LABEL: func.func @subi_lhs_addi_constant(%arg0: i32) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[R0:.*]] = arith.subi %[[C0]], %arg0 overflow<nsw> : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @subi_lhs_addi_constant(%x: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %c10 = arith.constant 10 : i32
  %0 = arith.addi %x, %c3 overflow<nsw> : i32
  %1 = arith.subi %c10, %0 overflow<nsw> : i32
  return %1 : i32
}

// -----

// subi(subi(x, c0), c1) → subi(x, c0 + c1)
// CHECK-LABEL: func.func @subi_rhs_subi_constant_rhs(%arg0: i64) -> i64
// CHECK-NEXT: %[[C0:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[R0:.*]] = arith.subi %arg0, %[[C0]] : i64
// CHECK-NEXT: return %[[R0]] : i64
func.func @subi_rhs_subi_constant_rhs(%x: i64) -> i64 {
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %0 = arith.subi %x, %c3 : i64
  %1 = arith.subi %0, %c4 : i64
  return %1 : i64
}

// -----

// subi(subi(c0, x), c1) → subi(c0 - c1, x)
// CHECK-LABEL: func.func @subi_rhs_subi_constant_lhs(%arg0: i64) -> i64
// CHECK-NEXT: %[[C0:.*]] = arith.constant 6 : i64
// CHECK-NEXT: %[[R0:.*]] = arith.subi %[[C0]], %arg0 : i64
// CHECK-NEXT: return %[[R0]] : i64
func.func @subi_rhs_subi_constant_lhs(%x: i64) -> i64 {
  %c10 = arith.constant 10 : i64
  %c4 = arith.constant 4 : i64
  %0 = arith.subi %c10, %x : i64
  %1 = arith.subi %0, %c4 : i64
  return %1 : i64
}

// -----

// subi(c1, subi(x, c0)) → subi(c0 + c1, x)
// CHECK-LABEL: func.func @subi_lhs_subi_constant_rhs(%arg0: index) -> index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 13 : index
// CHECK-NEXT: %[[R0:.*]] = arith.subi %[[C0]], %arg0 : index
// CHECK-NEXT: return %[[R0]] : index
func.func @subi_lhs_subi_constant_rhs(%x: index) -> index {
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %0 = arith.subi %x, %c3 : index
  %1 = arith.subi %c10, %0 : index
  return %1 : index
}

// -----

// subi(c1, subi(c0, x)) → addi(x, c1 - c0)
// CHECK-LABEL: func.func @subi_lhs_subi_constant_lhs(%arg0: i16) -> i16
// CHECK-NEXT: %[[C0:.*]] = arith.constant 7 : i16
// CHECK-NEXT: %[[R0:.*]] = arith.addi %arg0, %[[C0]] : i16
// CHECK-NEXT: return %[[R0]] : i16
func.func @subi_lhs_subi_constant_lhs(%x: i16) -> i16 {
  %c3 = arith.constant 3 : i16
  %c10 = arith.constant 10 : i16
  %0 = arith.subi %c3, %x : i16
  %1 = arith.subi %c10, %0 : i16
  return %1 : i16
}

// -----

// subi(subi(a, b), a) → subi(0, b)
// CHECK-LABEL: func.func @subi_subi_lhs_rhs_lhs(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[R0:.*]] = arith.subi %[[C0]], %arg1 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @subi_subi_lhs_rhs_lhs(%a: i32, %b: i32) -> i32 {
  %0 = arith.subi %a, %b : i32
  %1 = arith.subi %0, %a : i32
  return %1 : i32
}

// -----

// muli(muli(x, c0), c1) → muli(x, c0 * c1), keeping the flags both ops carry
// CHECK-LABEL: func.func @muli_muli_flags(%arg0: i8) -> i8
// CHECK-NEXT: %[[C0:.*]] = arith.constant 15 : i8
// CHECK-NEXT: %[[R0:.*]] = arith.muli %arg0, %[[C0]] overflow<nuw> : i8
// CHECK-NEXT: return %[[R0]] : i8
func.func @muli_muli_flags(%x: i8) -> i8 {
  %c3 = arith.constant 3 : i8
  %c5 = arith.constant 5 : i8
  %0 = arith.muli %x, %c3 overflow<nuw> : i8
  %1 = arith.muli %0, %c5 overflow<nsw, nuw> : i8
  return %1 : i8
}

// -----

// addui_extended(x, y) → [addi(x, y), x] when the overflow bit is unused
// CHECK-LABEL: func.func @addui_extended_unused_overflow(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @addui_extended_unused_overflow(%x: i32, %y: i32) -> i32 {
  %s, %o = arith.addui_extended %x, %y : i32, i1
  return %s : i32
}

// -----

// Negative: the overflow bit is used
// CHECK-LABEL: func.func @addui_extended_used_overflow(%arg0: i32, %arg1: i32) -> (i32, i1)
// CHECK-NEXT: arith.addui_extended %arg0, %arg1 : i32, i1
// CHECK-NEXT: return
func.func @addui_extended_used_overflow(%x: i32, %y: i32) -> (i32, i1) {
  %s, %o = arith.addui_extended %x, %y : i32, i1
  return %s, %o : i32, i1
}

// -----

// mulsi_extended(x, y) → [muli(x, y), x] when the high half is unused
// CHECK-LABEL: func.func @mulsi_extended_unused_high(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.muli %arg0, %arg1 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @mulsi_extended_unused_high(%x: i32, %y: i32) -> i32 {
  %l, %h = arith.mulsi_extended %x, %y : i32
  return %l : i32
}

// -----

// mului_extended(x, y) → [muli(x, y), x] when the high half is unused
// CHECK-LABEL: func.func @mului_extended_unused_high(%arg0: i32, %arg1: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.muli %arg0, %arg1 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @mului_extended_unused_high(%x: i32, %y: i32) -> i32 {
  %l, %h = arith.mului_extended %x, %y : i32
  return %l : i32
}

// -----

// xori(cmpi(p, a, b), true) → cmpi(!p, a, b)
// CHECK-LABEL: func.func @xori_not_cmpi(%arg0: i32, %arg1: i32) -> i1
// CHECK-NEXT: %[[R0:.*]] = arith.cmpi uge, %arg0, %arg1 : i32
// CHECK-NEXT: return %[[R0]] : i1
func.func @xori_not_cmpi(%a: i32, %b: i32) -> i1 {
  %true = arith.constant true
  %0 = arith.cmpi ult, %a, %b : i32
  %1 = arith.xori %0, %true : i1
  return %1 : i1
}

// -----

// Negative: xori(cmpi(p, a, b), c) with c not a constant
// CHECK-LABEL: func.func @xori_cmpi_not_true(%arg0: i32, %arg1: i32, %arg2: i1) -> i1
// CHECK-NEXT: %[[R0:.*]] = arith.cmpi ult, %arg0, %arg1 : i32
// CHECK-NEXT: %[[R1:.*]] = arith.xori %[[R0]], %arg2 : i1
// CHECK-NEXT: return %[[R1]] : i1
func.func @xori_cmpi_not_true(%a: i32, %b: i32, %c: i1) -> i1 {
  %0 = arith.cmpi ult, %a, %b : i32
  %1 = arith.xori %0, %c : i1
  return %1 : i1
}

// -----

// xori(extui(x), extui(y)) → extui(xori(x, y))
// CHECK-LABEL: func.func @xori_of_extui(%arg0: i8, %arg1: i8) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.xori %arg0, %arg1 : i8
// CHECK-NEXT: %[[R1:.*]] = arith.extui %[[R0]] : i8 to i32
// CHECK-NEXT: return %[[R1]] : i32
func.func @xori_of_extui(%x: i8, %y: i8) -> i32 {
  %0 = arith.extui %x : i8 to i32
  %1 = arith.extui %y : i8 to i32
  %2 = arith.xori %0, %1 : i32
  return %2 : i32
}

// -----

// xori(extsi(x), extsi(y)) → extsi(xori(x, y))
// CHECK-LABEL: func.func @xori_of_extsi(%arg0: i8, %arg1: i8) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.xori %arg0, %arg1 : i8
// CHECK-NEXT: %[[R1:.*]] = arith.extsi %[[R0]] : i8 to i32
// CHECK-NEXT: return %[[R1]] : i32
func.func @xori_of_extsi(%x: i8, %y: i8) -> i32 {
  %0 = arith.extsi %x : i8 to i32
  %1 = arith.extsi %y : i8 to i32
  %2 = arith.xori %0, %1 : i32
  return %2 : i32
}

// -----

// Negative: xori(extui(x), extui(y)) with x and y of different types
// CHECK-LABEL: func.func @xori_of_extui_mixed(%arg0: i8, %arg1: i16) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.extui %arg0 : i8 to i32
// CHECK-NEXT: %[[R1:.*]] = arith.extui %arg1 : i16 to i32
// CHECK-NEXT: %[[R2:.*]] = arith.xori %[[R0]], %[[R1]] : i32
// CHECK-NEXT: return %[[R2]] : i32
func.func @xori_of_extui_mixed(%x: i8, %y: i16) -> i32 {
  %0 = arith.extui %x : i8 to i32
  %1 = arith.extui %y : i16 to i32
  %2 = arith.xori %0, %1 : i32
  return %2 : i32
}

// -----

// andi(extui(x), extui(y)) → extui(andi(x, y))
// CHECK-LABEL: func.func @andi_of_extui(%arg0: i8, %arg1: i8) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.andi %arg0, %arg1 : i8
// CHECK-NEXT: %[[R1:.*]] = arith.extui %[[R0]] : i8 to i32
// CHECK-NEXT: return %[[R1]] : i32
func.func @andi_of_extui(%x: i8, %y: i8) -> i32 {
  %0 = arith.extui %x : i8 to i32
  %1 = arith.extui %y : i8 to i32
  %2 = arith.andi %0, %1 : i32
  return %2 : i32
}

// -----

// andi(extsi(x), extsi(y)) → extsi(andi(x, y))
// CHECK-LABEL: func.func @andi_of_extsi(%arg0: vector<2xi8>, %arg1: vector<2xi8>) -> vector<2xi32>
// CHECK-NEXT: %[[R0:.*]] = arith.andi %arg0, %arg1 : vector<2xi8>
// CHECK-NEXT: %[[R1:.*]] = arith.extsi %[[R0]] : vector<2xi8> to vector<2xi32>
// CHECK-NEXT: return %[[R1]] : vector<2xi32>
func.func @andi_of_extsi(%x: vector<2xi8>, %y: vector<2xi8>) -> vector<2xi32> {
  %0 = arith.extsi %x : vector<2xi8> to vector<2xi32>
  %1 = arith.extsi %y : vector<2xi8> to vector<2xi32>
  %2 = arith.andi %0, %1 : vector<2xi32>
  return %2 : vector<2xi32>
}

// -----

// ori(extui(x), extui(y)) → extui(ori(x, y))
// CHECK-LABEL: func.func @ori_of_extui(%arg0: i1, %arg1: i1) -> i64
// CHECK-NEXT: %[[R0:.*]] = arith.ori %arg0, %arg1 : i1
// CHECK-NEXT: %[[R1:.*]] = arith.extui %[[R0]] : i1 to i64
// CHECK-NEXT: return %[[R1]] : i64
func.func @ori_of_extui(%x: i1, %y: i1) -> i64 {
  %0 = arith.extui %x : i1 to i64
  %1 = arith.extui %y : i1 to i64
  %2 = arith.ori %0, %1 : i64
  return %2 : i64
}

// -----

// ori(extsi(x), extsi(y)) → extsi(ori(x, y))
// CHECK-LABEL: func.func @ori_of_extsi(%arg0: i8, %arg1: i8) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.ori %arg0, %arg1 : i8
// CHECK-NEXT: %[[R1:.*]] = arith.extsi %[[R0]] : i8 to i32
// CHECK-NEXT: return %[[R1]] : i32
func.func @ori_of_extsi(%x: i8, %y: i8) -> i32 {
  %0 = arith.extsi %x : i8 to i32
  %1 = arith.extsi %y : i8 to i32
  %2 = arith.ori %0, %1 : i32
  return %2 : i32
}

// -----

// cmpi(eq, extsi(a), extsi(b)) → cmpi(eq, a, b)
// CHECK-LABEL: func.func @cmpi_extsi_eq(%arg0: i8, %arg1: i8) -> i1
// CHECK-NEXT: %[[R0:.*]] = arith.cmpi eq, %arg0, %arg1 : i8
// CHECK-NEXT: return %[[R0]] : i1
func.func @cmpi_extsi_eq(%a: i8, %b: i8) -> i1 {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extsi %b : i8 to i32
  %2 = arith.cmpi eq, %0, %1 : i32
  return %2 : i1
}

// -----

// cmpi(ne, extui(a), extui(b)) → cmpi(ne, a, b)
// CHECK-LABEL: func.func @cmpi_extui_ne(%arg0: i8, %arg1: i8) -> i1
// CHECK-NEXT: %[[R0:.*]] = arith.cmpi ne, %arg0, %arg1 : i8
// CHECK-NEXT: return %[[R0]] : i1
func.func @cmpi_extui_ne(%a: i8, %b: i8) -> i1 {
  %0 = arith.extui %a : i8 to i32
  %1 = arith.extui %b : i8 to i32
  %2 = arith.cmpi ne, %0, %1 : i32
  return %2 : i1
}

// -----

// Negative: cmpi(slt, extsi(a), extsi(b)) keeps the extensions
// CHECK-LABEL: func.func @cmpi_extsi_slt(%arg0: i8, %arg1: i8) -> i1
// CHECK-NEXT: %[[R0:.*]] = arith.extsi %arg0 : i8 to i32
// CHECK-NEXT: %[[R1:.*]] = arith.extsi %arg1 : i8 to i32
// CHECK-NEXT: %[[R2:.*]] = arith.cmpi slt, %[[R0]], %[[R1]] : i32
// CHECK-NEXT: return %[[R2]] : i1
func.func @cmpi_extsi_slt(%a: i8, %b: i8) -> i1 {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extsi %b : i8 to i32
  %2 = arith.cmpi slt, %0, %1 : i32
  return %2 : i1
}

// -----

// select(xori(c, true), a, b) → select(c, b, a)
// CHECK-LABEL: func.func @select_not_cond(%arg0: i1, %arg1: i32, %arg2: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.select %arg0, %arg2, %arg1 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @select_not_cond(%c: i1, %a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  %n = arith.xori %c, %true : i1
  %0 = arith.select %n, %a, %b : i32
  return %0 : i32
}

// -----

// select(c, select(c, a, b), d) → select(c, a, d)
// CHECK-LABEL: func.func @redundant_select_true(%arg0: i1, %arg1: i32, %arg2: i32, %arg3: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.select %arg0, %arg1, %arg3 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @redundant_select_true(%c: i1, %a: i32, %b: i32, %d: i32) -> i32 {
  %0 = arith.select %c, %a, %b : i32
  %1 = arith.select %c, %0, %d : i32
  return %1 : i32
}

// -----

// select(c, a, select(c, b, d)) → select(c, a, d)
// CHECK-LABEL: func.func @redundant_select_false(%arg0: i1, %arg1: i32, %arg2: i32, %arg3: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.select %arg0, %arg1, %arg3 : i32
// CHECK-NEXT: return %[[R0]] : i32
func.func @redundant_select_false(%c: i1, %a: i32, %b: i32, %d: i32) -> i32 {
  %0 = arith.select %c, %b, %d : i32
  %1 = arith.select %c, %a, %0 : i32
  return %1 : i32
}

// -----

// Negative: the inner select has another condition
// CHECK-LABEL: func.func @redundant_select_other_cond(%arg0: i1, %arg1: i1, %arg2: i32, %arg3: i32, %arg4: i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = arith.select %arg1, %arg2, %arg3 : i32
// CHECK-NEXT: %[[R1:.*]] = arith.select %arg0, %[[R0]], %arg4 : i32
// CHECK-NEXT: return %[[R1]] : i32
func.func @redundant_select_other_cond(%c: i1, %e: i1, %a: i32, %b: i32, %d: i32) -> i32 {
  %0 = arith.select %e, %a, %b : i32
  %1 = arith.select %c, %0, %d : i32
  return %1 : i32
}

// -----

// select(c, false, true) → xori(c, true)
// CHECK-LABEL: func.func @select_i1_to_not(%arg0: i1) -> i1
// CHECK-NEXT: %[[C0:.*]] = arith.constant true
// CHECK-NEXT: %[[R0:.*]] = arith.xori %arg0, %[[C0]] : i1
// CHECK-NEXT: return %[[R0]] : i1
func.func @select_i1_to_not(%c: i1) -> i1 {
  %false = arith.constant false
  %true = arith.constant true
  %0 = arith.select %c, %false, %true : i1
  return %0 : i1
}

// -----

// extsi(extui(x)) → extui(x)
// CHECK-LABEL: func.func @extsi_of_extui(%arg0: i8) -> i64
// CHECK-NEXT: %[[R0:.*]] = arith.extui %arg0 : i8 to i64
// CHECK-NEXT: return %[[R0]] : i64
func.func @extsi_of_extui(%x: i8) -> i64 {
  %0 = arith.extui %x : i8 to i16
  %1 = arith.extsi %0 : i16 to i64
  return %1 : i64
}

// -----

// extui(extui(x)) → extui(x)
// CHECK-LABEL: func.func @extui_of_extui(%arg0: i8) -> i64
// CHECK-NEXT: %[[R0:.*]] = arith.extui %arg0 : i8 to i64
// CHECK-NEXT: return %[[R0]] : i64
func.func @extui_of_extui(%x: i8) -> i64 {
  %0 = arith.extui %x : i8 to i16
  %1 = arith.extui %0 : i16 to i64
  return %1 : i64
}

// -----

// Negative: extui(extsi(x)) is not extsi(x)
// CHECK-LABEL: func.func @extui_of_extsi(%arg0: i8) -> i64
// CHECK-NEXT: %[[R0:.*]] = arith.extsi %arg0 : i8 to i16
// CHECK-NEXT: %[[R1:.*]] = arith.extui %[[R0]] : i16 to i64
// CHECK-NEXT: return %[[R1]] : i64
func.func @extui_of_extsi(%x: i8) -> i64 {
  %0 = arith.extsi %x : i8 to i16
  %1 = arith.extui %0 : i16 to i64
  return %1 : i64
}

// -----

// trunci(extsi(x)) → extsi(x) when x is narrower than the result
// CHECK-LABEL: func.func @trunci_extsi_to_extsi(%arg0: i8) -> i16
// CHECK-NEXT: %[[R0:.*]] = arith.extsi %arg0 : i8 to i16
// CHECK-NEXT: return %[[R0]] : i16
func.func @trunci_extsi_to_extsi(%x: i8) -> i16 {
  %0 = arith.extsi %x : i8 to i32
  %1 = arith.trunci %0 : i32 to i16
  return %1 : i16
}

// -----

// trunci(extui(x)) → extui(x) when x is narrower than the result
// CHECK-LABEL: func.func @trunci_extui_to_extui(%arg0: vector<2xi8>) -> vector<2xi16>
// CHECK-NEXT: %[[R0:.*]] = arith.extui %arg0 : vector<2xi8> to vector<2xi16>
// CHECK-NEXT: return %[[R0]] : vector<2xi16>
func.func @trunci_extui_to_extui(%x: vector<2xi8>) -> vector<2xi16> {
  %0 = arith.extui %x : vector<2xi8> to vector<2xi32>
  %1 = arith.trunci %0 : vector<2xi32> to vector<2xi16>
  return %1 : vector<2xi16>
}

// -----

// trunci(extui(x)) → trunci(x) when x is wider than the result
// CHECK-LABEL: func.func @trunci_extui_to_trunci(%arg0: i32) -> i8
// CHECK-NEXT: %[[R0:.*]] = arith.trunci %arg0 : i32 to i8
// CHECK-NEXT: return %[[R0]] : i8
func.func @trunci_extui_to_trunci(%x: i32) -> i8 {
  %0 = arith.extui %x : i32 to i64
  %1 = arith.trunci %0 : i64 to i8
  return %1 : i8
}

// -----

// trunci(shrsi(x, c)) → trunci(shrui(x, c)) when the truncation drops the c shifted-in bits
// CHECK-LABEL: func.func @trunci_shrsi_to_shrui(%arg0: i64) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[R0:.*]] = arith.shrui %arg0, %[[C0]] : i64
// CHECK-NEXT: %[[R1:.*]] = arith.trunci %[[R0]] : i64 to i32
// CHECK-NEXT: return %[[R1]] : i32
func.func @trunci_shrsi_to_shrui(%x: i64) -> i32 {
  %c32 = arith.constant 32 : i64
  %0 = arith.shrsi %x, %c32 : i64
  %1 = arith.trunci %0 : i64 to i32
  return %1 : i32
}

// -----

// Negative: the shift brings in bits the truncation keeps
// CHECK-LABEL: func.func @trunci_shrsi_other_shift(%arg0: i64) -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 16 : i64
// CHECK-NEXT: %[[R0:.*]] = arith.shrsi %arg0, %[[C0]] : i64
// CHECK-NEXT: %[[R1:.*]] = arith.trunci %[[R0]] : i64 to i32
// CHECK-NEXT: return %[[R1]] : i32
func.func @trunci_shrsi_other_shift(%x: i64) -> i32 {
  %c16 = arith.constant 16 : i64
  %0 = arith.shrsi %x, %c16 : i64
  %1 = arith.trunci %0 : i64 to i32
  return %1 : i32
}

// -----

// truncf(sitofp(x)) → sitofp(x)
// CHECK-LABEL: func.func @truncf_sitofp(%arg0: i32) -> f32
// CHECK-NEXT: %[[R0:.*]] = arith.sitofp %arg0 : i32 to f32
// CHECK-NEXT: return %[[R0]] : f32
func.func @truncf_sitofp(%x: i32) -> f32 {
  %0 = arith.sitofp %x : i32 to f64
  %1 = arith.truncf %0 : f64 to f32
  return %1 : f32
}

// -----

// truncf(uitofp(x)) → uitofp(x)
// CHECK-LABEL: func.func @truncf_uitofp(%arg0: i32) -> f16
// CHECK-NEXT: %[[R0:.*]] = arith.uitofp %arg0 : i32 to f16
// CHECK-NEXT: return %[[R0]] : f16
func.func @truncf_uitofp(%x: i32) -> f16 {
  %0 = arith.uitofp %x : i32 to f64
  %1 = arith.truncf %0 : f64 to f16
  return %1 : f16
}

// -----

// Negative: truncf with a rounding mode
// CHECK-LABEL: func.func @truncf_sitofp_rounding(%arg0: i32) -> f32
// CHECK-NEXT: %[[R0:.*]] = arith.sitofp %arg0 : i32 to f64
// CHECK-NEXT: %[[R1:.*]] = arith.truncf %[[R0]] to_nearest_away : f64 to f32
// CHECK-NEXT: return %[[R1]] : f32
func.func @truncf_sitofp_rounding(%x: i32) -> f32 {
  %0 = arith.sitofp %x : i32 to f64
  %1 = arith.truncf %0 to_nearest_away : f64 to f32
  return %1 : f32
}

// -----

// index_cast(extsi(x)) → index_cast(x)
// CHECK-LABEL: func.func @index_cast_of_extsi(%arg0: i8) -> index
// CHECK-NEXT: %[[R0:.*]] = arith.index_cast %arg0 : i8 to index
// CHECK-NEXT: return %[[R0]] : index
func.func @index_cast_of_extsi(%x: i8) -> index {
  %0 = arith.extsi %x : i8 to i32
  %1 = arith.index_cast %0 : i32 to index
  return %1 : index
}

// -----

// index_castui(extui(x)) → index_castui(x)
// CHECK-LABEL: func.func @index_castui_of_extui(%arg0: i8) -> index
// CHECK-NEXT: %[[R0:.*]] = arith.index_castui %arg0 : i8 to index
// CHECK-NEXT: return %[[R0]] : index
func.func @index_castui_of_extui(%x: i8) -> index {
  %0 = arith.extui %x : i8 to i32
  %1 = arith.index_castui %0 : i32 to index
  return %1 : index
}

// -----

// index_castui(index_castui(x : i32 → index) → i32) → x
// CHECK-LABEL: func.func @index_castui_round_trip(%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
func.func @index_castui_round_trip(%x: i32) -> i32 {
  %0 = arith.index_castui %x : i32 to index
  %1 = arith.index_castui %0 : index to i32
  return %1 : i32
}

// -----

// Negative: index_cast(index_cast(x : i32 → index) → i64) is not x
// CHECK-LABEL: func.func @index_cast_other_width(%arg0: i32) -> i64
// CHECK-NEXT: %[[R0:.*]] = arith.index_cast %arg0 : i32 to index
// CHECK-NEXT: %[[R1:.*]] = arith.index_cast %[[R0]] : index to i64
// CHECK-NEXT: return %[[R1]] : i64
func.func @index_cast_other_width(%x: i32) -> i64 {
  %0 = arith.index_cast %x : i32 to index
  %1 = arith.index_cast %0 : index to i64
  return %1 : i64
}

// -----

// bitcast(bitcast(x : f32 → i32) → f32) → bitcast(x : f32 → f32), which folds to x
// CHECK-LABEL: func.func @bitcast_round_trip(%arg0: f32) -> f32
// CHECK-NEXT: return %arg0 : f32
func.func @bitcast_round_trip(%x: f32) -> f32 {
  %0 = arith.bitcast %x : f32 to i32
  %1 = arith.bitcast %0 : i32 to f32
  return %1 : f32
}

// -----

// bitcast(bitcast(x : f16 → i16) → bf16) → bitcast(x : f16 → bf16)
// CHECK-LABEL: func.func @bitcast_of_bitcast(%arg0: f16) -> bf16
// CHECK-NEXT: %[[R0:.*]] = arith.bitcast %arg0 : f16 to bf16
// CHECK-NEXT: return %[[R0]] : bf16
func.func @bitcast_of_bitcast(%x: f16) -> bf16 {
  %0 = arith.bitcast %x : f16 to i16
  %1 = arith.bitcast %0 : i16 to bf16
  return %1 : bf16
}

// -----

// mulf(negf(x), negf(y)) → mulf(x, y), keeping the mulf's fast-math flags
// CHECK-LABEL: func.func @mulf_of_negf(%arg0: f32, %arg1: f32) -> f32
// CHECK-NEXT: %[[R0:.*]] = arith.mulf %arg0, %arg1 fastmath<fast> : f32
// CHECK-NEXT: return %[[R0]] : f32
func.func @mulf_of_negf(%x: f32, %y: f32) -> f32 {
  %0 = arith.negf %x : f32
  %1 = arith.negf %y fastmath<nnan> : f32
  %2 = arith.mulf %0, %1 fastmath<fast> : f32
  return %2 : f32
}

// -----

// divf(negf(x), negf(y)) → divf(x, y)
// CHECK-LABEL: func.func @divf_of_negf(%arg0: f64, %arg1: f64) -> f64
// CHECK-NEXT: %[[R0:.*]] = arith.divf %arg0, %arg1 : f64
// CHECK-NEXT: return %[[R0]] : f64
func.func @divf_of_negf(%x: f64, %y: f64) -> f64 {
  %0 = arith.negf %x : f64
  %1 = arith.negf %y : f64
  %2 = arith.divf %0, %1 : f64
  return %2 : f64
}


// -----

// mulf(x, ±0.0) → ±0.0 under fastmath<nnan,nsz> (also fast, and a zero on the left, moved right);
// without both flags the multiplication stays.
// CHECK-LABEL: func.func @mulf_zero(%arg0: f32) -> (f32, f32, f32, f32, f32, f32)
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NZ:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT: %[[R0:.*]] = arith.mulf %arg0, %[[Z]] fastmath<nnan> : f32
// CHECK-NEXT: %[[R1:.*]] = arith.mulf %arg0, %[[Z]] : f32
// CHECK-NEXT: return %[[Z]], %[[NZ]], %[[Z]], %[[R0]], %[[Z]], %[[R1]] : f32, f32, f32, f32, f32, f32
func.func @mulf_zero(%x: f32) -> (f32, f32, f32, f32, f32, f32) {
  %z = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %0 = arith.mulf %x, %z fastmath<nnan,nsz> : f32
  %1 = arith.mulf %x, %nz fastmath<nnan,nsz> : f32
  %2 = arith.mulf %z, %x fastmath<nnan,nsz> : f32
  %3 = arith.mulf %x, %z fastmath<nnan> : f32
  %4 = arith.mulf %x, %z fastmath<fast> : f32
  %5 = arith.mulf %x, %z : f32
  return %0, %1, %2, %3, %4, %5 : f32, f32, f32, f32, f32, f32
}

// -----

// mulf(x, splat 0.0) → the splat under fastmath<nnan,nsz>.
// CHECK-LABEL: func.func @mulf_zero_splat(%arg0: vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: return %[[Z]] : vector<4xf32>
func.func @mulf_zero_splat(%x: vector<4xf32>) -> vector<4xf32> {
  %z = arith.constant dense<0.0> : vector<4xf32>
  %0 = arith.mulf %x, %z fastmath<nnan,nsz> : vector<4xf32>
  return %0 : vector<4xf32>
}
