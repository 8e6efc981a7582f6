// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// A view of a byte buffer: the aligned pointer moves by the source offset plus the byte
// shift, the offset is 0 and the strides are row-major.
// CHECK-LABEL: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @view(
// CHECK: %[[A:.*]] = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %{{.*}}, 1
// CHECK-NEXT: %[[P:.*]] = getelementptr inbounds i8, ptr %[[A]], i64 %5
// CHECK: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{.*}}, ptr %[[P]], 1
// CHECK-NEXT: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{.*}}, i64 0, 2
// CHECK: insertvalue [2 x i64] %{{.*}}, i64 4, 1
// CHECK: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{.*}}, [2 x i64] [i64 4, i64 1], 4
func.func @view(%b: memref<2048xi8>, %o: index, %n: index) -> memref<?x4xf32> {
  %0 = memref.view %b[%o][%n] : memref<2048xi8> to memref<?x4xf32>
  return %0 : memref<?x4xf32>
}
