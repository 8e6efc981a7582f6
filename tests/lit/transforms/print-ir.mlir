// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(print-ir{label=hello}))' -o /dev/null 2>&1 | filecheck %s

// CHECK: // -----// IR Dump hello //----- //
// CHECK-NEXT: func.func @f() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @f() {
  return
}
