// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// An outermost scf.parallel without reductions becomes a body function over its linearized
// iteration space; the loop packs what the body reads into a struct and calls the runtime
// interface found through @nart_parallel_runtime, or the body itself on the whole space when
// there is none (or the space is small). The scf.parallel nested in it runs sequentially
// inside the body.
func.func @scale(%a: memref<?x?xf32>, %k: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%m) step (%c1) {
      %x = memref.load %a[%i, %j] : memref<?x?xf32>
      %y = arith.mulf %x, %k : f32
      memref.store %y, %a[%i, %j] : memref<?x?xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
// CHECK: @nart_parallel_runtime = global ptr null, align 8
// CHECK-LABEL: define void @scale(
// CHECK:         %[[CAP:.*]] = alloca { {{.*}} }
// CHECK:         store { {{.*}} } %{{.*}}, ptr %[[CAP]]
// CHECK:         %[[RT:.*]] = load atomic ptr, ptr @nart_parallel_runtime monotonic, align 8
// CHECK:         icmp eq ptr %[[RT]], null
// CHECK:         icmp ult i64 %{{.*}}, {{[0-9]+}}
// CHECK:         br i1 %{{.*}}, label %[[INLINE:.*]], label %[[DISPATCH:.*]]
// CHECK:       [[DISPATCH]]:
// CHECK:         %[[CTX:.*]] = load ptr, ptr
// CHECK:         %[[PF:.*]] = load ptr, ptr
// CHECK:         call void %[[PF]](ptr %[[CTX]], ptr @scale.parallel0, ptr %[[CAP]], i64 %{{.*}}, i64 {{[0-9]+}})
// CHECK:       [[INLINE]]:
// CHECK:         call void @scale.parallel0(ptr %[[CAP]], i64 0, i64 %{{.*}})
// CHECK-NOT:   @scale.parallel1
// CHECK-LABEL: define internal void @scale.parallel0(ptr %0, i64 %1, i64 %2)
// CHECK:         load { {{.*}} }, ptr %0
// CHECK:         fmul float
// CHECK:         ret void
// CHECK-NOT:   @scale.parallel1
