// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Rules nart checks that upstream's verifier words differently or leaves to its parser.

func.func @for_iter_args_and_types(%lb: index, %x: f32) {
  // expected-error @+1 {{expected as many iter_args (1) as result types (2)}}
  %r:2 = scf.for %i = %lb to %lb step %lb iter_args(%a = %x) -> (f32, f32) {
  }
  return
}

// -----

func.func @while_input_types(%x: f32) {
  // expected-error @+1 {{expected as many input types as operands (expected 1 got 0)}}
  %r = scf.while (%v = %x) : () -> f32 {
  } do {
  }
  return
}

// -----

func.func @parallel_bound_count(%lb: index) {
  // expected-error @+1 {{expected 2 operands, but got 1}}
  scf.parallel (%i, %j) = (%lb) to (%lb, %lb) step (%lb, %lb) {
  }
  return
}

// -----

func.func @for_without_induction_variable(%lb: index) {
  // expected-error @+1 {{'scf.for' op expected the body to have the induction variable as its first argument}}
  "scf.for"(%lb, %lb, %lb) ({
    scf.yield
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @parallel_bounds_and_steps(%lb: index) {
  // expected-error @+1 {{'scf.parallel' op expects as many lower bounds (2) and upper bounds (1) as steps (1)}}
  "scf.parallel"(%lb, %lb, %lb, %lb) <{operandSegmentSizes = array<i32: 2, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.reduce
  }) : (index, index, index, index) -> ()
  return
}

// -----

func.func @reduce_count(%lb: index, %x: f32) {
  scf.parallel (%i) = (%lb) to (%lb) step (%lb) {
    // expected-error @+1 {{'scf.reduce' op expects number of reduction regions: 0 to be the same as number of reduction operands: 1}}
    "scf.reduce"(%x) : (f32) -> ()
  }
  return
}
