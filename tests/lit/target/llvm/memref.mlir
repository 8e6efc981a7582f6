// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// The globals defined at the end, first in the output: the elements as their bits, internal
// when private, external without an initial value.
// CHECK-DAG: @w = internal constant [4 x i32] [i32 1065353216, i32 1073741824, i32 1077936128, i32 1082130432], align 64
// CHECK-DAG: @zeros = global [3 x i32] zeroinitializer
// CHECK-DAG: @ext = external global [16 x i8]

// A load from a static memref: the strides are constants.
func.func @load_static(%m: memref<4x8xf32>, %i: index, %j: index) -> f32 {
  %v = memref.load %m[%i, %j] : memref<4x8xf32>
  return %v : f32
}
// CHECK-LABEL: define float @load_static(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8)
// CHECK:         %[[ROW:.*]] = mul i64 %7, 8
// CHECK-NEXT:    %[[OFF:.*]] = add i64 %[[ROW]], %8
// CHECK-NEXT:    %[[P:.*]] = getelementptr float, ptr %{{.*}}, i64 %[[OFF]]
// CHECK-NEXT:    %[[V:.*]] = load float, ptr %[[P]]
// CHECK-NEXT:    ret float %[[V]]

// A store into a dynamic, strided memref reads the offset and strides from the descriptor.
func.func @store_dynamic(%m: memref<?xi16, strided<[?], offset: ?>>, %i: index, %v: i16) {
  memref.store %v, %m[%i] : memref<?xi16, strided<[?], offset: ?>>
  return
}
// CHECK-LABEL: define void @store_dynamic(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i16 %6)
// CHECK:         %[[OFF:.*]] = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %{{.*}}, 2
// CHECK:         %[[SA:.*]] = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %{{.*}}, 4
// CHECK-NEXT:    %[[STRIDE:.*]] = extractvalue [1 x i64] %[[SA]], 0
// CHECK-NEXT:    %[[M:.*]] = mul i64 %5, %[[STRIDE]]
// CHECK-NEXT:    %[[O:.*]] = add i64 %[[OFF]], %[[M]]
// CHECK-NEXT:    %[[P:.*]] = getelementptr i16, ptr %{{.*}}, i64 %[[O]]
// CHECK-NEXT:    store i16 %6, ptr %[[P]]

// alloc with an alignment asks for more and rounds the aligned pointer up; dealloc frees
// the allocated pointer.
func.func @alloc_free(%n: index) {
  %m = memref.alloc(%n) {alignment = 64 : i64} : memref<?x4xf64>
  memref.dealloc %m : memref<?x4xf64>
  return
}
// CHECK-LABEL: define void @alloc_free(i64 %0)
// CHECK:         %[[BYTES:.*]] = mul i64 %{{.*}}, ptrtoint (ptr getelementptr (double, ptr null, i32 1) to i64)
// CHECK-NEXT:    %[[MORE:.*]] = add i64 %[[BYTES]], 64
// CHECK-NEXT:    %[[P:.*]] = call ptr @malloc(i64 %[[MORE]])
// CHECK-NEXT:    %[[PI:.*]] = ptrtoint ptr %[[P]] to i64
// CHECK-NEXT:    %[[UP:.*]] = add i64 %[[PI]], 63
// CHECK-NEXT:    %[[AL:.*]] = and i64 %[[UP]], -64
// CHECK-NEXT:    inttoptr i64 %[[AL]] to ptr
// CHECK:         call void @free(ptr

// alloca is a stack allocation with the alignment.
func.func @stack() -> f32 {
  %c0 = arith.constant 0 : index
  %m = memref.alloca() {alignment = 32 : i64} : memref<8xf32>
  %v = memref.load %m[%c0] : memref<8xf32>
  return %v : f32
}
// CHECK-LABEL: define float @stack()
// CHECK-NEXT:    alloca float, i64 8, align 32

// A subview: offset plus offsets times strides, strides times steps; a rank-reducing one
// drops the unit dimension.
func.func @row(%m: memref<4x8xf32>, %i: index) -> memref<8xf32, strided<[1], offset: ?>> {
  %r = memref.subview %m[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
  return %r : memref<8xf32, strided<[1], offset: ?>>
}
// CHECK-LABEL: define { ptr, ptr, i64, [1 x i64], [1 x i64] } @row(
// CHECK:         %[[OFF:.*]] = mul i64 %7, 8
// CHECK:         insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %{{.*}}, i64 %[[OFF]], 2

// memref.dim with a constant index reads the size; a static size is a constant.
func.func @dims(%m: memref<?x5xi8>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %m, %c0 : memref<?x5xi8>
  %d1 = memref.dim %m, %c1 : memref<?x5xi8>
  return %d0, %d1 : index, index
}
// CHECK-LABEL: define { i64, i64 } @dims(
// CHECK:         %[[S:.*]] = insertvalue { i64, i64 } undef, i64 %{{.*}}, 0
// CHECK-NEXT:    insertvalue { i64, i64 } %[[S]], i64 5, 1

// get_global is a descriptor of the global.
memref.global "private" constant @w : memref<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]> {alignment = 64 : i64}
memref.global @zeros : memref<3xi32> = dense<0>
memref.global @ext : memref<16xi8>
func.func @get() -> memref<2x2xf32> {
  %g = memref.get_global @w : memref<2x2xf32>
  return %g : memref<2x2xf32>
}
// CHECK-LABEL: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @get()
// CHECK-NEXT:    ret { ptr, ptr, i64, [2 x i64], [2 x i64] } { ptr @w, ptr @w, i64 0, [2 x i64] [i64 2, i64 2], [2 x i64] [i64 2, i64 1] }

// The C interface returns a memref through a pointer.
// CHECK-LABEL: define void @_mlir_ciface_get(ptr %0)
// CHECK-NEXT:    %[[D:.*]] = call { ptr, ptr, i64, [2 x i64], [2 x i64] } @get()
// CHECK-NEXT:    store { ptr, ptr, i64, [2 x i64], [2 x i64] } %[[D]], ptr %0
