// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1},cse),symbol-dce,builtin.module(cse))' --dump-pass-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=NESTED
// RUN: nart-opt %s --pass-pipeline='  builtin.module( func.func( cse ) , func.func(canonicalize) )' --dump-pass-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=SPACES
// RUN: nart-opt %s --pass-pipeline='builtin.module(any(cse))' --dump-pass-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=ANY
// RUN: nart-opt %s --canonicalize --cse --dump-pass-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=FLAGS
// RUN: nart-opt %s --canonicalize='max-iterations=1 top-down=false region-simplify=aggressive' --dump-pass-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=FLAGOPTS
// RUN: nart-opt %s --pass-pipeline='builtin.module(inline{max-iterations=2})' --dump-pass-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=INLINE
// RUN: nart-opt %s --canonicalize --cse | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1},cse))' | filecheck %s
// RUN: nart-opt %s --cse --symbol-dce | filecheck %s --check-prefix=DCE

// --dump-pass-pipeline prints the parsed pipeline on stderr, every option with its value,
// one nested pass manager per anchor.

// NESTED: Pass Manager with 3 passes:
// NESTED-NEXT: builtin.module(
// NESTED-NEXT:   func.func(
// NESTED-NEXT:     canonicalize{max-iterations=1 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},
// NESTED-NEXT:     cse
// NESTED-NEXT:   ),
// NESTED-NEXT:   symbol-dce,
// NESTED-NEXT:   builtin.module(
// NESTED-NEXT:     cse
// NESTED-NEXT:   )
// NESTED-NEXT: )

// SPACES: Pass Manager with 2 passes:
// SPACES-NEXT: builtin.module(
// SPACES-NEXT:   func.func(
// SPACES-NEXT:     cse
// SPACES-NEXT:   ),
// SPACES-NEXT:   func.func(
// SPACES-NEXT:     canonicalize{max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}
// SPACES-NEXT:   )
// SPACES-NEXT: )

// ANY: Pass Manager with 1 passes:
// ANY-NEXT: builtin.module(
// ANY-NEXT:   any(
// ANY-NEXT:     cse
// ANY-NEXT:   )
// ANY-NEXT: )

// Per-pass flags add passes to the top-level module pass manager, in order.
// FLAGS: Pass Manager with 2 passes:
// FLAGS-NEXT: builtin.module(
// FLAGS-NEXT:   canonicalize{max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},
// FLAGS-NEXT:   cse
// FLAGS-NEXT: )

// FLAGOPTS: builtin.module(
// FLAGOPTS-NEXT:   canonicalize{max-iterations=1 max-num-rewrites=-1 region-simplify=aggressive test-convergence=false top-down=false}
// FLAGOPTS-NEXT: )

// INLINE: builtin.module(
// INLINE-NEXT:   inline{default-pipeline=canonicalize max-iterations=2}
// INLINE-NEXT: )

// The passes run: duplicates are merged and the dead private function survives only
// without symbol-dce.
// CHECK-LABEL: func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK-NEXT: return %[[M]] : i32
// CHECK: func.func private @dead()
// DCE-LABEL: func.func @f(
// DCE-NOT: @dead
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func private @dead() {
  return
}
