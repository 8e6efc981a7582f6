// RUN: nart-opt %s --split-input-file --verify-diagnostics

func.func @fastmath_keyword(%x: f32) {
  // expected-error @+1 {{expected ::mlir::arith::FastMathFlags to be one of: none, reassoc, nnan}}
  %0 = math.exp %x fastmath<slow> : f32
  return
}

// -----

func.func @fpowi_float_exponent(%x: f32) {
  // expected-error @+1 {{custom op 'math.fpowi' 'rhs' must be signless-integer-like, but got 'f32'}}
  %0 = math.fpowi %x, %x : f32, f32
  return
}
