// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK-LABEL: func.func @float_unary
// CHECK-NEXT: %{{.*}} = math.absf %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.acos %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.acosh %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.asin %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.asinh %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.atan %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.atanh %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.cbrt %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.ceil %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.cos %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.cosh %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.erf %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.erfc %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.exp %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.exp2 %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.expm1 %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.floor %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.log %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.log10 %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.log1p %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.log2 %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.round %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.roundeven %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.rsqrt %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.sin %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.sinh %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.sqrt %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.tan %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.tanh %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.trunc %arg0 : f32
func.func @float_unary(%x: f32) {
  %0 = math.absf %x : f32
  %1 = math.acos %x : f32
  %2 = math.acosh %x : f32
  %3 = math.asin %x : f32
  %4 = math.asinh %x : f32
  %5 = math.atan %x : f32
  %6 = math.atanh %x : f32
  %7 = math.cbrt %x : f32
  %8 = math.ceil %x : f32
  %9 = math.cos %x : f32
  %10 = math.cosh %x : f32
  %11 = math.erf %x : f32
  %12 = math.erfc %x : f32
  %13 = math.exp %x : f32
  %14 = math.exp2 %x : f32
  %15 = math.expm1 %x : f32
  %16 = math.floor %x : f32
  %17 = math.log %x : f32
  %18 = math.log10 %x : f32
  %19 = math.log1p %x : f32
  %20 = math.log2 %x : f32
  %21 = math.round %x : f32
  %22 = math.roundeven %x : f32
  %23 = math.rsqrt %x : f32
  %24 = math.sin %x : f32
  %25 = math.sinh %x : f32
  %26 = math.sqrt %x : f32
  %27 = math.tan %x : f32
  %28 = math.tanh %x : f32
  %29 = math.trunc %x : f32
  return
}

// CHECK-LABEL: func.func @fastmath_and_shapes
// CHECK-NEXT: %{{.*}} = math.exp %arg0 fastmath<fast> : vector<4xf32>
// CHECK-NEXT: %{{.*}} = math.tanh %arg1 fastmath<nnan,ninf> : tensor<2x?xf64>
// CHECK-NEXT: %{{.*}} = math.sqrt %arg2 : f16
func.func @fastmath_and_shapes(%v: vector<4xf32>, %t: tensor<2x?xf64>, %h: f16) {
  %0 = math.exp %v fastmath<fast> : vector<4xf32>
  %1 = math.tanh %t fastmath<nnan,ninf> : tensor<2x?xf64>
  %2 = math.sqrt %h fastmath<none> : f16
  return
}

// CHECK-LABEL: func.func @binary_and_fma
// CHECK-NEXT: %{{.*}} = math.atan2 %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = math.copysign %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = math.powf %arg0, %arg1 fastmath<afn> : f32
// CHECK-NEXT: %{{.*}} = math.fma %arg0, %arg1, %arg0 : f32
// CHECK-NEXT: %{{.*}} = math.fma %arg3, %arg3, %arg3 fastmath<contract> : vector<8xf32>
// CHECK-NEXT: %{{.*}} = math.fpowi %arg0, %arg2 : f32, i32
// CHECK-NEXT: %{{.*}} = math.fpowi %arg3, %arg4 : vector<8xf32>, vector<8xi32>
// CHECK-NEXT: %{{.*}} = math.ipowi %arg2, %arg2 : i32
func.func @binary_and_fma(%a: f32, %b: f32, %n: i32, %v: vector<8xf32>, %vn: vector<8xi32>) {
  %0 = math.atan2 %a, %b : f32
  %1 = math.copysign %a, %b : f32
  %2 = math.powf %a, %b fastmath<afn> : f32
  %3 = math.fma %a, %b, %a : f32
  %4 = math.fma %v, %v, %v fastmath<contract> : vector<8xf32>
  %5 = math.fpowi %a, %n : f32, i32
  %6 = math.fpowi %v, %vn : vector<8xf32>, vector<8xi32>
  %7 = math.ipowi %n, %n : i32
  return
}

// CHECK-LABEL: func.func @integer_and_classification
// CHECK-NEXT: %{{.*}} = math.absi %arg0 : i32
// CHECK-NEXT: %{{.*}} = math.ctlz %arg0 : i32
// CHECK-NEXT: %{{.*}} = math.cttz %arg1 : vector<4xi8>
// CHECK-NEXT: %{{.*}} = math.ctpop %arg2 : index
// CHECK-NEXT: %{{.*}} = math.isnan %arg3 : f32
// CHECK-NEXT: %{{.*}} = math.isinf %arg4 : vector<4xf32>
// CHECK-NEXT: %{{.*}} = math.isfinite %arg3 {fastmath = #arith.fastmath<nnan>} : f32
// CHECK-NEXT: %{{.*}} = math.isnormal %arg3 : f32
func.func @integer_and_classification(%i: i32, %v: vector<4xi8>, %x: index, %f: f32, %vf: vector<4xf32>) {
  %0 = math.absi %i : i32
  %1 = math.ctlz %i : i32
  %2 = math.cttz %v : vector<4xi8>
  %3 = math.ctpop %x : index
  %4 = math.isnan %f : f32
  %5 = math.isinf %vf : vector<4xf32>
  %6 = math.isfinite %f {fastmath = #arith.fastmath<nnan>} : f32
  %7 = math.isnormal %f : f32
  return
}
