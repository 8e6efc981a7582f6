// RUN: nart-opt %s --split-input-file --verify-diagnostics

// The verifier rules of upstream's mlir/test/Dialect/ControlFlow/invalid.mlir, written for nart.
// Every case here also passes `mlir-opt --split-input-file --verify-diagnostics` (LLVM 22),
// which crates/nart-opt/tests/upstream_diagnostics.rs checks. LLVM 22 truncates a case value to
// the flag's width (newer upstream rejects it), so the two cases of wrapping values verify.
// Differences that remain are in ../../KNOWN_BUGS.md.

func.func @cond_br_three_weights(%c: i1) {
  // expected-error @+1 {{expects number of branch weights to match number of successors: 3 vs 2}}
  cf.cond_br %c weights([1, 2, 3]), ^a, ^b
^a:
  return
^b:
  return
}

// -----

func.func @cond_br_zero_weights(%c: i1) {
  // expected-error @+1 {{branch weights cannot all be zero}}
  cf.cond_br %c weights([0, 0]), ^a, ^b
^a:
  return
^b:
  return
}

// -----

// LLVM 22 truncates a case value to the flag's width (newer upstream rejects it).
func.func @switch_i4_wraps(%f: i4) {
  cf.switch %f : i4, [
    default: ^a,
    16: ^a
  ]
^a:
  return
}

// -----

func.func @switch_i4_wraps_negative(%f: i4) {
  cf.switch %f : i4, [
    default: ^a,
    -9: ^a
  ]
^a:
  return
}
