// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops))' | nart-translate --mlir-to-llvmir | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops))' | nart-translate --emit=asm --target-triple=aarch64-unknown-linux-gnu | filecheck %s --check-prefix=A64

// Structured ops lowered to loops by nart-opt translate to LLVM IR and compile for aarch64.
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
// CHECK-LABEL: define void @matmul(
// CHECK:         store float 0.000000e+00, ptr
// CHECK:         %[[A:.*]] = load float, ptr
// CHECK:         %[[B:.*]] = load float, ptr
// CHECK:         %[[C:.*]] = load float, ptr
// CHECK-NEXT:    %[[M:.*]] = fmul float %[[A]], %[[B]]
// CHECK-NEXT:    %[[S:.*]] = fadd float %[[C]], %[[M]]
// CHECK:         store float %[[S]], ptr
// CHECK-LABEL: define void @_mlir_ciface_matmul(ptr %0, ptr %1, ptr %2)

// A64-LABEL: matmul:
// A64:         fmul {{(s|v)[0-9]+}}
// A64:         fadd {{(s|v)[0-9]+}}
