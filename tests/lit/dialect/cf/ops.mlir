// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK-LABEL: func.func @br(%arg0: i32)
// CHECK-NEXT: cf.br ^bb1(%arg0 : i32)
// CHECK-NEXT: ^bb1(%[[X:.*]]: i32):
// CHECK-NEXT: cf.br ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return
func.func @br(%a: i32) {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  cf.br ^bb2
^bb2:
  return
}

// CHECK-LABEL: func.func @cond_br(%arg0: i1, %arg1: i32, %arg2: f32)
// CHECK-NEXT: cf.cond_br %arg0, ^bb1(%arg1, %arg2 : i32, f32), ^bb2
// CHECK: cf.cond_br %arg0 weights([3, 5]), ^bb2, ^bb1(%arg1, %arg2 : i32, f32)
func.func @cond_br(%c: i1, %a: i32, %b: f32) {
  cf.cond_br %c, ^bb1(%a, %b : i32, f32), ^bb2
^bb1(%x: i32, %y: f32):
  cf.cond_br %c weights([3, 5]), ^bb2, ^bb1(%a, %b : i32, f32)
^bb2:
  return
}

// CHECK-LABEL: func.func @switch(%arg0: i32, %arg1: i64)
// CHECK-NEXT: cf.switch %arg0 : i32, [
// CHECK-NEXT:   default: ^bb1(%arg1 : i64),
// CHECK-NEXT:   42: ^bb1(%arg1 : i64),
// CHECK-NEXT:   43: ^bb2
// CHECK-NEXT: ]
// CHECK: cf.switch %arg0 : i32, [
// CHECK-NEXT:   default: ^bb2
func.func @switch(%flag: i32, %v: i64) {
  cf.switch %flag : i32, [
    default: ^bb1(%v : i64),
    42: ^bb1(%v : i64),
    43: ^bb2
  ]
^bb1(%x: i64):
  cf.switch %flag : i32, [
    default: ^bb2
  ]
^bb2:
  return
}

// CHECK-LABEL: func.func @assert(%arg0: i1)
// CHECK-NEXT: cf.assert %arg0, "must hold"
func.func @assert(%c: i1) {
  cf.assert %c, "must hold"
  return
}
