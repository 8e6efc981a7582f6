// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(convert-scf-to-cf))' | nart-translate --mlir-to-llvmir | filecheck %s
// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// The two routes to LLVM IR, through convert-scf-to-cf and the cf translation or straight
// from scf, give the same loop.
func.func @dot(%a: memref<?xf32>, %b: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  return %r : f32
}
// CHECK-LABEL: define float @dot(
// CHECK:         br label %[[HEAD:.*]]
// CHECK:       [[HEAD]]:
// CHECK-NEXT:    %[[I:.*]] = phi i64 [ 0, %{{.*}} ], [ %[[NEXT:.*]], %[[BODY:.*]] ]
// CHECK-NEXT:    %[[S:.*]] = phi float [ 0.000000e+00, %{{.*}} ], [ %[[T:.*]], %[[BODY]] ]
// CHECK-NEXT:    %[[C:.*]] = icmp slt i64 %[[I]], %{{.*}}
// CHECK-NEXT:    br i1 %[[C]], label %[[BODY]], label %[[EXIT:.*]]
// CHECK:       [[BODY]]:
// CHECK:         %[[X:.*]] = load float, ptr
// CHECK:         %[[Y:.*]] = load float, ptr
// CHECK-NEXT:    %[[P:.*]] = fmul float %[[X]], %[[Y]]
// CHECK-NEXT:    %[[T]] = fadd float %[[S]], %[[P]]
// CHECK-NEXT:    %[[NEXT]] = add i64 %[[I]], 1
// CHECK-NEXT:    br label %[[HEAD]]
// CHECK:       [[EXIT]]:
// CHECK-NEXT:    ret float %[[S]]
