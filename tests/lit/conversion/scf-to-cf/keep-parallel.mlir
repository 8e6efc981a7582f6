// RUN: nart-opt %s --pass-pipeline='builtin.module(convert-scf-to-cf{keep-parallel=true})' | filecheck %s
// RUN: nart-opt %s --convert-scf-to-cf | filecheck %s --check-prefix=ALL

// keep-parallel=true leaves an scf.parallel without reductions, and the scf ops inside it,
// for the LLVM translation to run on threads; everything else is lowered as usual.
// CHECK-LABEL: func.func @kept(
// CHECK: cf.cond_br
// CHECK: scf.parallel (%[[I:.*]]) = (%arg0) to (%arg1) step (%arg2) {
// CHECK-NEXT: scf.for %[[J:.*]] = %arg0 to %arg1 step %arg2 {
// CHECK-NEXT: scf.if
// CHECK: scf.reduce
// CHECK: return
// ALL-LABEL: func.func @kept(
// ALL-NOT: scf.
// ALL: return
func.func @kept(%lb: index, %ub: index, %st: index, %m: memref<?x?xf32>, %c: i1) {
  scf.for %t = %lb to %ub step %st {
    scf.parallel (%i) = (%lb) to (%ub) step (%st) {
      scf.for %j = %lb to %ub step %st {
        scf.if %c {
          %v = memref.load %m[%i, %j] : memref<?x?xf32>
          memref.store %v, %m[%j, %i] : memref<?x?xf32>
        }
      }
      scf.reduce
    }
  }
  return
}

// A parallel loop with a reduction is lowered to loops and branches.
// CHECK-LABEL: func.func @reduced(
// CHECK-NOT: scf.
// CHECK: return
func.func @reduced(%lb: index, %ub: index, %st: index, %m: memref<?xf32>, %zero: f32) -> f32 {
  %s = scf.parallel (%i) = (%lb) to (%ub) step (%st) init (%zero) -> f32 {
    %v = memref.load %m[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      scf.reduce.return %a : f32
    }
  }
  return %s : f32
}
