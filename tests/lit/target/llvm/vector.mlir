// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// An in-bounds transfer along a unit-stride dimension is one vector load or store.
func.func @copy_in_bounds(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<4x8xf32>, vector<8xf32>
  vector.transfer_write %v, %b[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<4x8xf32>
  return
}
// CHECK-LABEL: define void @copy_in_bounds(
// CHECK:         %[[V:.*]] = load <8 x float>, ptr %{{.*}}, align 4
// CHECK:         store <8 x float> %[[V]], ptr %{{.*}}, align 4
// CHECK-NOT:     masked
// CHECK:         ret void

// Otherwise the lanes past the dimension's end are masked off: the padding is read there,
// and nothing is written.
func.func @copy_tail(%a: memref<?xf32>, %b: memref<?xf32>, %i: index, %pad: f32) {
  %v = vector.transfer_read %a[%i], %pad : memref<?xf32>, vector<4xf32>
  vector.transfer_write %v, %b[%i] : vector<4xf32>, memref<?xf32>
  return
}
// CHECK-LABEL: define void @copy_tail(
// CHECK:         %[[REM:.*]] = sub i64 %{{.*}}, %{{.*}}
// CHECK:         %[[MASK:.*]] = icmp slt <4 x i64> <i64 0, i64 1, i64 2, i64 3>, %{{.*}}
// CHECK:         %[[V:.*]] = call <4 x float> @llvm.masked.load.v4f32.p0(ptr align 4 %{{.*}}, <4 x i1> %[[MASK]], <4 x float> %{{.*}})
// CHECK:         call void @llvm.masked.store.v4f32.p0(<4 x float> %[[V]], ptr align 4 %{{.*}}, <4 x i1> %{{.*}})

// A transfer along an outer dimension (a column) gathers and scatters.
func.func @column(%a: memref<?x?xf32>, %j: index, %pad: f32) {
  %c0 = arith.constant 0 : index
  %v = vector.transfer_read %a[%c0, %j], %pad {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<?x?xf32>, vector<4xf32>
  vector.transfer_write %v, %a[%c0, %j] {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<4xf32>, memref<?x?xf32>
  return
}
// CHECK-LABEL: define void @column(
// CHECK:         call <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr> align 4 %{{.*}}, <4 x i1> %{{.*}}, <4 x float> %{{.*}})
// CHECK:         call void @llvm.masked.scatter.v4f32.v4p0(<4 x float> %{{.*}}, <4 x ptr> align 4 %{{.*}}, <4 x i1> splat (i1 true))

// Building and taking apart vectors, fma, outer products and reductions.
func.func @compute(%m: memref<8xf32>, %x: f32, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %v = vector.load %m[%c0] : memref<8xf32>, vector<8xf32>
  %b = vector.broadcast %x : f32 to vector<8xf32>
  %f = vector.fma %v, %b, %v : vector<8xf32>
  %o = vector.outerproduct %f, %x, %v : vector<8xf32>, f32
  %e = vector.extract %o[%i] : f32 from vector<8xf32>
  %n = vector.insert %e, %o [7] : f32 into vector<8xf32>
  %s = vector.shuffle %n, %v [0, 8, 1, 9, 2, 10, 3, 11] : vector<8xf32>, vector<8xf32>
  vector.store %s, %m[%c0] : memref<8xf32>, vector<8xf32>
  %r = vector.reduction <add>, %s, %x : vector<8xf32> into f32
  %q = vector.reduction <maximumf>, %s fastmath<nnan> : vector<8xf32> into f32
  %t = arith.addf %r, %q : f32
  return %t : f32
}
// CHECK-LABEL: define float @compute(
// CHECK:         %[[V:.*]] = load <8 x float>, ptr %{{.*}}, align 4
// CHECK:         %[[B0:.*]] = insertelement <8 x float> poison, float %{{.*}}, i32 0
// CHECK-NEXT:    %[[B:.*]] = shufflevector <8 x float> %[[B0]], <8 x float> poison, <8 x i32> zeroinitializer
// CHECK-NEXT:    %[[F:.*]] = call <8 x float> @llvm.fma.v8f32(<8 x float> %[[V]], <8 x float> %[[B]], <8 x float> %[[V]])
// CHECK:         %[[O:.*]] = call <8 x float> @llvm.fma.v8f32(<8 x float> %[[F]], <8 x float> %{{.*}}, <8 x float> %[[V]])
// CHECK-NEXT:    %[[E:.*]] = extractelement <8 x float> %[[O]], i64 %{{.*}}
// CHECK-NEXT:    %[[N:.*]] = insertelement <8 x float> %[[O]], float %[[E]], i64 7
// CHECK-NEXT:    %[[S:.*]] = shufflevector <8 x float> %[[N]], <8 x float> %[[V]], <8 x i32> <i32 0, i32 8, i32 1, i32 9, i32 2, i32 10, i32 3, i32 11>
// CHECK:         store <8 x float> %[[S]], ptr %{{.*}}, align 4
// CHECK:         %{{.*}} = call float @llvm.vector.reduce.fadd.v8f32(float %{{.*}}, <8 x float> %[[S]])
// CHECK-NEXT:    %{{.*}} = call nnan float @llvm.vector.reduce.fmaximum.v8f32(<8 x float> %[[S]])

// Integer reductions with an accumulator combine it afterwards.
func.func @int_reduce(%v: vector<4xi32>, %acc: i32) -> i32 {
  %r = vector.reduction <minsi>, %v, %acc : vector<4xi32> into i32
  return %r : i32
}
// CHECK-LABEL: define i32 @int_reduce(<4 x i32> %0, i32 %1)
// CHECK-NEXT:    %[[R:.*]] = call i32 @llvm.vector.reduce.smin.v4i32(<4 x i32> %0)
// CHECK-NEXT:    %[[C:.*]] = call i32 @llvm.smin.i32(i32 %[[R]], i32 %1)
// CHECK-NEXT:    ret i32 %[[C]]
