// Parser diagnostics placed and worded as mlir-opt places and words them.
// RUN: not nart-opt %s --split-input-file --allow-unregistered-dialect 2>&1 | filecheck %s

// A value from above used in an isolated region parses; the verifier rejects it.
// CHECK: parser-errors.mlir:[[@LINE+4]]:7: error: 'foo.use' op using value defined outside the region
func.func @outer(%a: i32) {
  builtin.module {
    func.func @inner() {
      "foo.use"(%a) : (i32) -> ()
      return
    }
  }
  return
}

// -----

// One error for a type mismatch between uses, noting the prior use.
// CHECK: parser-errors.mlir:[[@LINE+3]]:19: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'
// CHECK: parser-errors.mlir:[[@LINE+1]]:15: note: prior use here
func.func @h2(%a: i32) {
  %1 = arith.addi %a, %a : i64
  return
}

// -----

// Op diagnostics point at the op name.
// CHECK: parser-errors.mlir:[[@LINE+2]]:8: error: 'arith.addi' op requires the same type for all operands and results
func.func @name_column(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return %0 : i32
}

// -----

// A missing token is reported just after the previous one.
// CHECK: parser-errors.mlir:[[@LINE+1]]:22: error: expected ':' followed by operation type
"x.y"() {a = 1 : i32} {} : () -> ()

// -----

// CHECK: parser-errors.mlir:[[@LINE+1]]:7: error: invalid SSA name
"x.y"(%) : () -> ()

// -----

// CHECK: parser-errors.mlir:[[@LINE+3]]:9: error: reference to an undefined block
// CHECK-NOT: '^inner'
func.func @blocks() {
  cf.br ^inner
}
