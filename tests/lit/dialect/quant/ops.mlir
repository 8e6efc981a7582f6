// RUN: nart-opt %s | filecheck %s
// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// The quantized types and casts print as upstream mlir-opt prints them (the upstream round-trip
// test feeds this file through mlir-opt 22 too).

// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME: (%arg0: tensor<4xf32>) -> tensor<4xf32>
func.func @per_tensor(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.250000e-02:-3>>
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.0125:-3>>
  // CHECK-NEXT: %1 = quant.scast %0 : tensor<4x!quant.uniform<i8:f32, 1.250000e-02:-3>> to tensor<4xi8>
  %s = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 0.0125:-3>> to tensor<4xi8>
  // CHECK-NEXT: %2 = quant.scast %1 : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 1.250000e-02:-3>>
  %q2 = quant.scast %s : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 0.0125:-3>>
  // CHECK-NEXT: %3 = quant.dcast %2 : tensor<4x!quant.uniform<i8:f32, 1.250000e-02:-3>> to tensor<4xf32>
  %r = quant.dcast %q2 : tensor<4x!quant.uniform<i8:f32, 0.0125:-3>> to tensor<4xf32>
  return %r : tensor<4xf32>
}

// Per-channel symmetric weights with a narrowed range (zero points of 0 are not written).
// CHECK-LABEL: func.func @per_axis
// CHECK-SAME: tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01:4}>>
func.func @per_axis(%w: tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.1:0, 0.2, 0.3:4}>>) {
  return
}

// Grouped 4-bit weights: one scale per 2 columns (MLIR's sub-channel form).
// CHECK-LABEL: func.func @per_block
// CHECK-SAME: tensor<2x4x!quant.uniform<i4:f32:{1:2}, {
// CHECK-SAME: {1.000000e-01, 2.000000e-01}, {3.000000e-01:1, 4.000000e-01}
// CHECK-SAME: }>>
func.func @per_block(%w: tensor<2x4x!quant.uniform<i4:f32:{1:2}, {{0.1, 0.2}, {0.3:1, 0.4}}>>) {
  return
}

// Sub-byte and unsigned storage, other expressed types.
// CHECK-LABEL: func.func @storage
// CHECK-SAME: !quant.uniform<u4:f16, 5.000000e-01:2>
// CHECK-SAME: !quant.uniform<i2:bf16, 1.000000e-03>
// CHECK-SAME: !quant.uniform<u8:f32, 1.000000e-01>
func.func @storage(%a: !quant.uniform<u4:f16, 0.5:2>, %b: !quant.uniform<i2:bf16, 1.0e-3>, %c: !quant.uniform<u8<0:255>:f32, 0.1>) {
  return
}

// Types whose parameters are not chosen yet.
// CHECK-LABEL: func.func @unchosen
// CHECK-SAME: tensor<4x!quant.any<i8:f32>>
// CHECK-SAME: tensor<4x!quant.calibrated<f32<-1.000000e+00:2.500000e+00>>>
func.func @unchosen(%a: tensor<4x!quant.any<i8:f32>>, %b: tensor<4x!quant.calibrated<f32<-1.0:2.5>>>) {
  return
}
