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
