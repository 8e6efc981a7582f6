// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// Graph ops on f16, bf16 and f64 tensors (passes/nart-linalg-lowering/src/floats.rs): a 16-bit
// op computes in f32 between arith.extf and arith.truncf generics, rounding once per op as
// the interpreter does; f64 ops compute in f64.

// CHECK-LABEL: func.func @add_f16
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3xf16>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f16, %{{.*}}: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: linalg.yield %[[W]] : f32
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<3xf16>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf16>)
// CHECK-NEXT: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[N]] : f16
// CHECK: return %[[R]] : tensor<2x3xf16>
func.func @add_f16(%a: tensor<2x3xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %0 = "graph.Add"(%a, %b) : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// Small 16-bit constants become f32 constants of the same values, so that lowerings that read
// constant operands still see them.
// CHECK-LABEL: func.func @clip_bf16
// CHECK-DAG: %[[LO:.*]] = arith.constant dense<-1.500000e+00> : tensor<f32>
// CHECK-DAG: %[[HI:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[LO]], %[[HI]] : tensor<4xf32>, tensor<f32>, tensor<f32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @clip_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %lo = "graph.constant"() <{value = dense<-1.5> : tensor<bf16>}> : () -> tensor<bf16>
  %hi = "graph.constant"() <{value = dense<2.0> : tensor<bf16>}> : () -> tensor<bf16>
  %0 = "graph.Clip"(%a, %lo, %hi) : (tensor<4xbf16>, tensor<bf16>, tensor<bf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// A 16-bit matmul accumulates in f32 and rounds the sums once.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[F]] : tensor<2x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_f16(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = "graph.MatMul"(%a, %b) : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// A result that is not a float is not rounded.
// CHECK-LABEL: func.func @argmax_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK: return %{{.*}} : tensor<2x1xi64>
func.func @argmax_f16(%a: tensor<2x3xf16>) -> tensor<2x1xi64> {
  %0 = "graph.ArgMax"(%a) <{axis = 1 : i64}> : (tensor<2x3xf16>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// A float to integer cast as the interpreter's: truncated, wrapped modulo 2^64 from 2^63 on,
// saturated at +-2^127 (NaN to 0), then truncated to the width.
// CHECK-LABEL: func.func @cast_f16_to_i32
// CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: i32):
// CHECK-NEXT: %[[D:.*]] = arith.extf %[[X]] : f16 to f64
// CHECK-NEXT: %[[T:.*]] = math.trunc %[[D]] : f64
// CHECK: math.floor
// CHECK: %[[WRAP:.*]] = arith.fptoui %{{.*}} : f64 to i64
// CHECK: %[[ABS:.*]] = math.absf %[[T]] : f64
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[ABS]], %{{.*}} : f64
// CHECK: %[[DIRECT:.*]] = arith.fptosi %[[T]] : f64 to i64
// CHECK: %[[LOW:.*]] = arith.select %[[SMALL]], %[[DIRECT]], %[[WRAP]] : i64
// CHECK: %[[HIGH:.*]] = arith.cmpf oge, %[[T]], %{{.*}} : f64
// CHECK: %[[NEG:.*]] = arith.cmpf ule, %[[T]], %{{.*}} : f64
// CHECK: %[[V:.*]] = arith.select %[[NEG]], %{{.*}}, %[[LOW]] : i64
// CHECK: %[[W:.*]] = arith.select %[[HIGH]], %{{.*}}, %[[V]] : i64
// CHECK: %[[R:.*]] = arith.trunci %[[W]] : i64 to i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
func.func @cast_f16_to_i32(%a: tensor<3xf16>) -> tensor<3xi32> {
  %0 = "graph.Cast"(%a) <{to = 6 : i64}> : (tensor<3xf16>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Between the two 16-bit formats through f32, exact from either, rounded once.
// CHECK-LABEL: func.func @cast_f16_to_bf16
// CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[W]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
func.func @cast_f16_to_bf16(%a: tensor<3xf16>) -> tensor<3xbf16> {
  %0 = "graph.Cast"(%a) <{to = 16 : i64}> : (tensor<3xf16>) -> tensor<3xbf16>
  return %0 : tensor<3xbf16>
}

// -----

// f64 computes in f64.
// CHECK-LABEL: func.func @exp_f64
// CHECK-NOT: arith.truncf
// CHECK: ins(%arg0 : tensor<3xf64>) outs(%{{.*}} : tensor<3xf64>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f64
// CHECK-NEXT: linalg.yield %[[E]] : f64
func.func @exp_f64(%a: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "graph.Exp"(%a) : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// An f64 Range of constants, in f64 with no rounding.
// CHECK-LABEL: func.func @range_f64
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf64>)
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @range_f64() -> tensor<4xf64> {
  %s = "graph.constant"() <{value = dense<1.5> : tensor<f64>}> : () -> tensor<f64>
  %l = "graph.constant"() <{value = dense<3.5> : tensor<f64>}> : () -> tensor<f64>
  %d = "graph.constant"() <{value = dense<0.5> : tensor<f64>}> : () -> tensor<f64>
  %0 = "graph.Range"(%s, %l, %d) : (tensor<f64>, tensor<f64>, tensor<f64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Ops that only move elements take 16-bit tensors as they are.
// CHECK-LABEL: func.func @transpose_where_f16
// CHECK-NOT: arith.extf
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3xf16>) outs(%{{.*}} : tensor<3x2xf16>) permutation = [1, 0]
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @transpose_where_f16(%a: tensor<2x3xf16>, %c: tensor<3x2xi1>, %b: tensor<3x2xf16>) -> tensor<3x2xf16> {
  %0 = "graph.Transpose"(%a) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf16>) -> tensor<3x2xf16>
  %1 = "graph.Where"(%c, %0, %b) : (tensor<3x2xi1>, tensor<3x2xf16>, tensor<3x2xf16>) -> tensor<3x2xf16>
  return %1 : tensor<3x2xf16>
}

// -----

// An f64 Einsum sums in f64 (every element type the verifier allows now lowers; the refusal
// of f64 in graph-to-linalg-keyb-invalid.mlir is gone).
// CHECK-LABEL: func.func @einsum_f64
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x3xf64>, tensor<3x4xf64>) outs(%{{.*}} : tensor<2x4xf64>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
func.func @einsum_f64(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %0 = "graph.Einsum"(%a, %b) <{equation = "ij,jk->ik"}> : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
