// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK-LABEL: func.func private @decl(i32, f32) -> i64
func.func private @decl(i32, f32) -> i64

// CHECK-LABEL: func.func private @decl_attrs(i32 {test.arg}) -> (i32 {test.res})
func.func private @decl_attrs(i32 {test.arg}) -> (i32 {test.res})

// CHECK-LABEL: func.func @empty()
// CHECK-NEXT: return
func.func @empty() {
  return
}

// CHECK-LABEL: func.func @args(%arg0: i32, %arg1: f32) -> (i32, f32)
// CHECK-NEXT: return %arg0, %arg1 : i32, f32
func.func @args(%a: i32, %b: f32) -> (i32, f32) {
  return %a, %b : i32, f32
}

// CHECK-LABEL: func.func @with_attrs(%arg0: i32 {test.arg}) -> (i32 {test.res}) attributes {test.fn}
func.func @with_attrs(%a: i32 {test.arg}) -> (i32 {test.res}) attributes {test.fn} {
  return %a : i32
}

// CHECK-LABEL: func.func @calls(%arg0: i32, %arg1: f32) -> i64
// CHECK-NEXT: %[[R:.*]] = call @decl(%arg0, %arg1) : (i32, f32) -> i64
// CHECK-NEXT: %[[F:.*]] = constant @decl : (i32, f32) -> i64
// CHECK-NEXT: %[[I:.*]] = call_indirect %[[F]](%arg0, %arg1) : (i32, f32) -> i64
// CHECK-NEXT: call @empty() : () -> ()
// CHECK-NEXT: return %[[I]] : i64
func.func @calls(%a: i32, %b: f32) -> i64 {
  %0 = func.call @decl(%a, %b) : (i32, f32) -> i64
  %f = func.constant @decl : (i32, f32) -> i64
  %1 = func.call_indirect %f(%a, %b) : (i32, f32) -> i64
  func.call @empty() : () -> ()
  return %1 : i64
}

// CHECK-LABEL: func.func @blocks(%arg0: i32) -> i32
// CHECK: ^bb1(%[[X:.*]]: i32):
// CHECK-NEXT: return %[[X]] : i32
func.func @blocks(%a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  return %x : i32
}

// CHECK-LABEL: func.func nested @nested_vis()
func.func nested @nested_vis() {
  return
}
