// RUN: nart-opt %s --split-input-file | filecheck %s
// RUN: nart-opt %s --split-input-file --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: not nart-opt %s 2>&1 | filecheck %s --check-prefix=WHOLE
// RUN: not nart-opt %s --split-input-file=@@ 2>&1 | filecheck %s --check-prefix=BADFLAG

// With --split-input-file each chunk is parsed and printed on its own, and the outputs are
// joined by `// -----` lines. Without it, the separators are plain comments.

// CHECK: module {
// CHECK-NEXT: func.func @a() {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @b() {
// CHECK: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @a() {
// CHECK-NOT: // -----

// GENERIC: "builtin.module"() ({
// GENERIC: // -----
// GENERIC-NEXT: "builtin.module"() ({

// WHOLE: split.mlir:[[@LINE+17]]:1: error: 'func.func' op redefinition of symbol named 'a'
// WHOLE-NOT: module {

// BADFLAG: nart-opt: flag 'split-input-file' takes true or false, not '@@'
func.func @a() {
  return
}

// -----

func.func @b() {
  return
}

// -----

// The same symbol may be defined again in another chunk.
func.func @a() {
  return
}
