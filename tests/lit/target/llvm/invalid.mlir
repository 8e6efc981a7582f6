// RUN: not nart-translate --mlir-to-llvmir --allow-unregistered-dialect %s 2>&1 | filecheck %s
// RUN: not nart-translate --mlir-to-llvmir %s 2>&1 | filecheck %s --check-prefix=PARSE

// Every op and type with no translation is reported, each at its location, not just the
// first; nothing is printed on standard output.

func.func @f(%a: i32, %t: tensor<2xf32>) -> i32 {
  %0 = "foo.bar"(%a) : (i32) -> i32
  %1 = arith.addf %t, %t : tensor<2xf32>
  %2 = arith.constant 1.0 : f8E4M3FN
  %3 = arith.truncf %1 to_nearest_away : tensor<2xf32> to tensor<2xf16>
  return %0 : i32
}
// CHECK: invalid.mlir:7:1: error: 'func.func' op cannot be translated to LLVM IR: type 'tensor<2xf32>' has no LLVM IR equivalent
// CHECK: invalid.mlir:8:8: error: 'foo.bar' op has no translation to LLVM IR
// CHECK: invalid.mlir:9:8: error: 'arith.addf' op cannot be translated to LLVM IR: type 'tensor<2xf32>' has no LLVM IR equivalent
// CHECK: invalid.mlir:10:8: error: 'arith.constant' op cannot be translated to LLVM IR: type 'f8E4M3FN' has no LLVM IR equivalent
// CHECK: invalid.mlir:11:8: error: 'arith.truncf' op cannot be translated to LLVM IR: type 'tensor<2xf32>' has no LLVM IR equivalent
// CHECK: invalid.mlir:11:8: error: 'arith.truncf' op cannot be translated to LLVM IR: type 'tensor<2xf16>' has no LLVM IR equivalent
// CHECK: invalid.mlir:11:8: error: 'arith.truncf' op cannot be translated to LLVM IR: only the default rounding mode is supported
// CHECK-NOT: error

// Without --allow-unregistered-dialect, the unknown op stops the parse.
// PARSE: invalid.mlir:8:17: error: operation being parsed with an unregistered dialect
