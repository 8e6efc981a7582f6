// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Without --allow-unregistered-dialect, ops of unknown dialects are rejected when parsed.

// expected-error @+1 {{operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used}}
"foo.bar"() {a = 1 : i32} : () -> ()

// -----

func.func @nested() {
  // expected-error @+1 {{operation being parsed with an unregistered dialect}}
  %0 = "foo.def"() : () -> i32
  return
}

// -----

// An unknown op of a registered dialect.
// expected-error @+1 {{unregistered operation 'arith.bogus' found in dialect ('arith') that does not allow unknown operations}}
"arith.bogus"() : () -> ()
