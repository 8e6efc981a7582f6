// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file | filecheck %s

// cond_br true, ^a(x), ^b(y) → br ^a(x), then the single-predecessor block is merged.
// CHECK-LABEL: func.func @cond_br_true(%arg0: i32, %arg1: i32) -> i32
// CHECK-NOT: cf.cond_br
// CHECK: return %arg0 : i32
func.func @cond_br_true(%a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  cf.cond_br %true, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// cond_br false, ^a(x), ^b(y) → br ^b(y).
// CHECK-LABEL: func.func @cond_br_false(%arg0: i32, %arg1: i32) -> i32
// CHECK-NOT: cf.cond_br
// CHECK: return %arg1 : i32
func.func @cond_br_false(%a: i32, %b: i32) -> i32 {
  %false = arith.constant false
  cf.cond_br %false, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// cond_br %c, ^a(x), ^a(x) → br ^a(x).
// CHECK-LABEL: func.func @cond_br_same(%arg0: i1, %arg1: i32) -> i32
// CHECK-NOT: cf.cond_br
// CHECK: return %arg1 : i32
func.func @cond_br_same(%c: i1, %a: i32) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%a : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// A cond_br on an unknown condition to different blocks stays.
// CHECK-LABEL: func.func @cond_br_kept(%arg0: i1, %arg1: i32, %arg2: i32) -> i32
// CHECK: cf.cond_br %arg0
func.func @cond_br_kept(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %a : i32
^bb2:
  return %b : i32
}

// -----

// br ^b where ^b has one predecessor: the blocks merge.
// CHECK-LABEL: func.func @br_merge(%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
func.func @br_merge(%a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// switch on a constant flag → br to the matching case.
// CHECK-LABEL: func.func @switch_const(%arg0: i32, %arg1: i32) -> i32
// CHECK-NOT: cf.switch
// CHECK: return %arg1 : i32
func.func @switch_const(%a: i32, %b: i32) -> i32 {
  %c = arith.constant 43 : i32
  cf.switch %c : i32, [
    default: ^bb1(%a : i32),
    42: ^bb1(%a : i32),
    43: ^bb1(%b : i32)
  ]
^bb1(%x: i32):
  return %x : i32
}

// -----

// switch on a constant flag matching no case → br to the default.
// CHECK-LABEL: func.func @switch_default(%arg0: i32, %arg1: i32) -> i32
// CHECK-NOT: cf.switch
// CHECK: return %arg0 : i32
func.func @switch_default(%a: i32, %b: i32) -> i32 {
  %c = arith.constant 7 : i32
  cf.switch %c : i32, [
    default: ^bb1(%a : i32),
    42: ^bb1(%b : i32)
  ]
^bb1(%x: i32):
  return %x : i32
}

// -----

// switch without cases → br to the default.
// CHECK-LABEL: func.func @switch_no_cases(%arg0: i32, %arg1: i32) -> i32
// CHECK-NOT: cf.switch
// CHECK: return %arg1 : i32
func.func @switch_no_cases(%f: i32, %b: i32) -> i32 {
  cf.switch %f : i32, [
    default: ^bb1(%b : i32)
  ]
^bb1(%x: i32):
  return %x : i32
}

// -----

// assert true, "msg" → (nothing).
// CHECK-LABEL: func.func @assert_true()
// CHECK-NEXT: return
func.func @assert_true() {
  %true = arith.constant true
  cf.assert %true, "always"
  return
}

// -----

// An assert on an unknown condition stays.
// CHECK-LABEL: func.func @assert_kept(%arg0: i1)
// CHECK-NEXT: cf.assert %arg0, "maybe"
func.func @assert_kept(%c: i1) {
  cf.assert %c, "maybe"
  return
}
