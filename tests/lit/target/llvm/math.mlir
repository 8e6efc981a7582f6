// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// Intrinsics where LLVM has them, with the fast-math flags.
func.func @intrinsics(%x: f32, %y: f32, %i: i32) -> (f32, i32) {
  %0 = math.sqrt %x : f32
  %1 = math.exp %0 fastmath<afn> : f32
  %2 = math.fma %1, %x, %y : f32
  %3 = math.powf %2, %y : f32
  %4 = math.fpowi %3, %i : f32, i32
  %5 = math.ctlz %i : i32
  return %4, %5 : f32, i32
}
// CHECK-LABEL: define { float, i32 } @intrinsics(float %0, float %1, i32 %2)
// CHECK-NEXT:    %[[S:.*]] = call float @llvm.sqrt.f32(float %0)
// CHECK-NEXT:    %[[E:.*]] = call afn float @llvm.exp.f32(float %[[S]])
// CHECK-NEXT:    %[[F:.*]] = call float @llvm.fma.f32(float %[[E]], float %0, float %1)
// CHECK-NEXT:    %[[P:.*]] = call float @llvm.pow.f32(float %[[F]], float %1)
// CHECK-NEXT:    %[[PI:.*]] = call float @llvm.powi.f32.i32(float %[[P]], i32 %2)
// CHECK-NEXT:    %[[C:.*]] = call i32 @llvm.ctlz.i32(i32 %2, i1 false)

// libm for the rest, one call per element of a vector.
func.func @libm(%x: f64, %v: vector<2xf32>) -> (f64, vector<2xf32>) {
  %0 = math.erf %x : f64
  %1 = math.log1p %v : vector<2xf32>
  return %0, %1 : f64, vector<2xf32>
}
// CHECK-LABEL: define { double, <2 x float> } @libm(double %0, <2 x float> %1)
// CHECK-NEXT:    %[[E:.*]] = call double @erf(double %0)
// CHECK-NEXT:    %[[X0:.*]] = extractelement <2 x float> %1, i32 0
// CHECK-NEXT:    %[[Y0:.*]] = call float @log1pf(float %[[X0]])
// CHECK-NEXT:    %[[V0:.*]] = insertelement <2 x float> poison, float %[[Y0]], i32 0
// CHECK-NEXT:    %[[X1:.*]] = extractelement <2 x float> %1, i32 1
// CHECK-NEXT:    %[[Y1:.*]] = call float @log1pf(float %[[X1]])
// CHECK-NEXT:    insertelement <2 x float> %[[V0]], float %[[Y1]], i32 1

// Classification by comparisons; rsqrt as a division.
func.func @classes(%x: f32) -> (i1, i1, f32) {
  %0 = math.isnan %x : f32
  %1 = math.isinf %x : f32
  %2 = math.rsqrt %x : f32
  return %0, %1, %2 : i1, i1, f32
}
// CHECK-LABEL: define { i1, i1, float } @classes(float %0)
// CHECK-NEXT:    %[[N:.*]] = fcmp uno float %0, %0
// CHECK-NEXT:    %[[A:.*]] = call float @llvm.fabs.f32(float %0)
// CHECK-NEXT:    %[[I:.*]] = fcmp oeq float %[[A]], 0x7FF0000000000000
// CHECK-NEXT:    %[[S:.*]] = call float @llvm.sqrt.f32(float %0)
// CHECK-NEXT:    fdiv float 1.000000e+00, %[[S]]
