// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// The qnn ops in their custom form (defaults left out) and in the generic form, which upstream
// mlir-opt reads with --allow-unregistered-dialect (the upstream round-trip test feeds it this
// file).

// Requantization: an i32 accumulator to i8 and u8, and a per-axis input to per tensor.
// CHECK-LABEL: func.func @requantize
// CHECK-NEXT: %0 = qnn.requantize %arg0 : tensor<4x!quant.uniform<i32:f32, 1.000000e-04>> to tensor<4x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK-NEXT: %1 = qnn.requantize %arg0 round<half_away> : tensor<4x!quant.uniform<i32:f32, 1.000000e-04>> to tensor<4x!quant.uniform<u8:f32, 5.000000e-02:128>>
// CHECK-NEXT: %2 = qnn.requantize %arg1 round<half_up> : tensor<2x3x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01:1,3.000000e-01}>> to tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
func.func @requantize(%x: tensor<4x!quant.uniform<i32:f32, 1.0e-4>>, %p: tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2:1, 0.3}>>) {
  %0 = qnn.requantize %x : tensor<4x!quant.uniform<i32:f32, 1.0e-4>> to tensor<4x!quant.uniform<i8:f32, 0.05:-3>>
  %1 = qnn.requantize %x round<half_away> : tensor<4x!quant.uniform<i32:f32, 1.0e-4>> to tensor<4x!quant.uniform<u8:f32, 0.05:128>>
  %2 = qnn.requantize %p round<half_up> : tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2:1, 0.3}>> to tensor<2x3x!quant.uniform<i8:f32, 0.25>>
  return
}

// A grouped convolution with per-channel weights, bias and relu; a depthwise one with every
// window property, a clip activation and gemmlowp's rounding.
// CHECK-LABEL: func.func @conv
// CHECK-NEXT: %0 = qnn.conv %arg0, %arg1, %arg2 pads [1, 1, 1, 1] act<relu> {group = 2 : i64} : (tensor<1x4x8x8x!quant.uniform<u8:f32, 2.000000e-02:128>>, tensor<6x2x3x3x!quant.uniform<i8:f32:0, {1.000000e-02,2.000000e-02,1.000000e-02,3.000000e-02,1.000000e-02,2.000000e-02}>>, tensor<6x!quant.uniform<i32:f32:0, {2.000000e-04,4.000000e-04,2.000000e-04,6.000000e-04,2.000000e-04,4.000000e-04}>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 5.000000e-02>>
// CHECK-NEXT: %1 = qnn.conv %arg0, %arg3 strides [2, 2] pads [0, 0, 1, 1] dilations [1, 1] act<clip> bounds(-1.000000e+00, 2.500000e+00) round<half_away> {group = 4 : i64} : (tensor<1x4x8x8x!quant.uniform<u8:f32, 2.000000e-02:128>>, tensor<4x1x3x3x!quant.uniform<i8:f32, 1.000000e-02>>) -> tensor<1x4x4x4x!quant.uniform<i8:f32, 5.000000e-02:-10>>
func.func @conv(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x2x3x3x!quant.uniform<i8:f32:0, {0.01,0.02,0.01,0.03,0.01,0.02}>>, %b: tensor<6x!quant.uniform<i32:f32:0, {2.0e-4,4.0e-4,2.0e-4,6.0e-4,2.0e-4,4.0e-4}>>, %dw: tensor<4x1x3x3x!quant.uniform<i8:f32, 0.01>>) {
  %0 = qnn.conv %x, %w, %b pads [1, 1, 1, 1] act<relu> {group = 2 : i64} : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x2x3x3x!quant.uniform<i8:f32:0, {0.01,0.02,0.01,0.03,0.01,0.02}>>, tensor<6x!quant.uniform<i32:f32:0, {2.0e-4,4.0e-4,2.0e-4,6.0e-4,2.0e-4,4.0e-4}>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  %1 = qnn.conv %x, %dw strides [2, 2] pads [0, 0, 1, 1] dilations [1, 1] act<clip> bounds(-1.0, 2.5) round<half_away> {group = 4 : i64} : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<4x1x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x4x4x4x!quant.uniform<i8:f32, 0.05:-10>>
  return
}

// A batched matmul with per-column weights and a bias; a broadcast batch with relu6.
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT: %0 = qnn.matmul %arg0, %arg1, %arg2 : (tensor<2x5x4x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<4x3x!quant.uniform<i8:f32:1, {2.000000e-01:1,4.000000e-01,2.000000e-01}>>, tensor<3x!quant.uniform<i32:f32:0, {2.000000e-02,4.000000e-02,2.000000e-02}>>) -> tensor<2x5x3x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT: %1 = qnn.matmul %arg0, %arg3 act<relu6> round<half_up> : (tensor<2x5x4x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<1x4x3x!quant.uniform<u8:f32, 2.000000e-01:128>>) -> tensor<2x5x3x!quant.uniform<u8:f32, 2.500000e-02>>
func.func @matmul(%a: tensor<2x5x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x3x!quant.uniform<i8:f32:1, {0.2:1, 0.4, 0.2}>>, %c: tensor<3x!quant.uniform<i32:f32:0, {0.02, 0.04, 0.02}>>, %d: tensor<1x4x3x!quant.uniform<u8:f32, 0.2:128>>) {
  %0 = qnn.matmul %a, %b, %c : (tensor<2x5x4x!quant.uniform<i8:f32, 0.1>>, tensor<4x3x!quant.uniform<i8:f32:1, {0.2:1, 0.4, 0.2}>>, tensor<3x!quant.uniform<i32:f32:0, {0.02, 0.04, 0.02}>>) -> tensor<2x5x3x!quant.uniform<i8:f32, 0.5>>
  %1 = qnn.matmul %a, %d act<relu6> round<half_up> : (tensor<2x5x4x!quant.uniform<i8:f32, 0.1>>, tensor<1x4x3x!quant.uniform<u8:f32, 0.2:128>>) -> tensor<2x5x3x!quant.uniform<u8:f32, 0.025>>
  return
}

// Broadcasting add and mul, with a sub-byte operand and fused activations.
// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT: %0 = qnn.add %arg0, %arg1 : (tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<3x!quant.uniform<i8:f32, 2.000000e-01:4>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-1>>
// CHECK-NEXT: %1 = qnn.add %arg0, %arg2 act<relu> round<half_away> : (tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<2x1x!quant.uniform<u4:f32, 5.000000e-01:8>>) -> tensor<2x3x!quant.uniform<u8:f32, 5.000000e-02>>
// CHECK-NEXT: %2 = qnn.mul %arg0, %arg1 act<clip> bounds(-2.000000e+00, 2.000000e+00) : (tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<3x!quant.uniform<i8:f32, 2.000000e-01:4>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.000000e-02>>
func.func @elementwise(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x!quant.uniform<i8:f32, 0.2:4>>, %c: tensor<2x1x!quant.uniform<u4:f32, 0.5:8>>) {
  %0 = qnn.add %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.2:4>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>>
  %1 = qnn.add %a, %c act<relu> round<half_away> : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<2x1x!quant.uniform<u4:f32, 0.5:8>>) -> tensor<2x3x!quant.uniform<u8:f32, 0.05>>
  %2 = qnn.mul %a, %b act<clip> bounds(-2.0, 2.0) : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.2:4>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.02>>
  return
}

// Concatenation, requantizing inputs whose parameters differ from the result's.
// CHECK-LABEL: func.func @concat
// CHECK-NEXT: %0 = qnn.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<1x2x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<1x3x!quant.uniform<i8:f32, 2.000000e-01:5>>) -> tensor<1x5x!quant.uniform<i8:f32, 2.000000e-01:5>>
// CHECK-NEXT: %1 = qnn.concat %arg0, %arg0 round<half_away> {axis = 0 : i64} : (tensor<1x2x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<1x2x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<2x2x!quant.uniform<i8:f32, 3.000000e-01>>
func.func @concat(%a: tensor<1x2x!quant.uniform<i8:f32, 0.1>>, %b: tensor<1x3x!quant.uniform<i8:f32, 0.2:5>>) {
  %0 = qnn.concat %a, %b {axis = 1 : i64} : (tensor<1x2x!quant.uniform<i8:f32, 0.1>>, tensor<1x3x!quant.uniform<i8:f32, 0.2:5>>) -> tensor<1x5x!quant.uniform<i8:f32, 0.2:5>>
  %1 = qnn.concat %a, %a round<half_away> {axis = 0 : i64} : (tensor<1x2x!quant.uniform<i8:f32, 0.1>>, tensor<1x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.3>>
  return
}

// Average pooling (with and without padded positions counted) and max pooling.
// CHECK-LABEL: func.func @pool
// CHECK-NEXT: %0 = qnn.avg_pool %arg0 kernel [2, 2] strides [2, 2] : tensor<1x2x5x5x!quant.uniform<u8:f32, 1.000000e-01:3>> to tensor<1x2x2x2x!quant.uniform<u8:f32, 1.000000e-01:3>>
// CHECK-NEXT: %1 = qnn.avg_pool %arg0 kernel [3, 3] pads [1, 1, 1, 1] count_include_pad round<half_up> : tensor<1x2x5x5x!quant.uniform<u8:f32, 1.000000e-01:3>> to tensor<1x2x5x5x!quant.uniform<i8:f32, 5.000000e-02>>
// CHECK-NEXT: %2 = qnn.max_pool %arg0 kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] dilations [1, 1] : tensor<1x2x5x5x!quant.uniform<u8:f32, 1.000000e-01:3>> to tensor<1x2x3x3x!quant.uniform<u8:f32, 1.000000e-01:3>>
func.func @pool(%x: tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>>) {
  %0 = qnn.avg_pool %x kernel [2, 2] strides [2, 2] : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:3>>
  %1 = qnn.avg_pool %x kernel [3, 3] pads [1, 1, 1, 1] count_include_pad round<half_up> : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x2x5x5x!quant.uniform<i8:f32, 0.05>>
  %2 = qnn.max_pool %x kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] dilations [1, 1] : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:3>>
  return
}

// Lookup tables: 2^bits entries for a 2-bit and a 4-bit input.
// CHECK-LABEL: func.func @lut
// CHECK-NEXT: %0 = qnn.lut %arg0 table [1, 0, 1, 4] : tensor<4x!quant.uniform<u2:f32, 1.000000e+00:1>> to tensor<4x!quant.uniform<u8:f32, 5.000000e-01>>
// CHECK-NEXT: %1 = qnn.lut %arg1 table [-8, -8, -7, -6, -5, -4, -2, -1, 0, 1, 2, 4, 5, 6, 7, 7] : tensor<2x2x!quant.uniform<i4:f32, 5.000000e-01>> to tensor<2x2x!quant.uniform<i4:f32, 2.500000e-01>>
func.func @lut(%x: tensor<4x!quant.uniform<u2:f32, 1.0:1>>, %y: tensor<2x2x!quant.uniform<i4:f32, 0.5>>) {
  %0 = qnn.lut %x table [1, 0, 1, 4] : tensor<4x!quant.uniform<u2:f32, 1.0:1>> to tensor<4x!quant.uniform<u8:f32, 0.5>>
  %1 = qnn.lut %y table [-8, -8, -7, -6, -5, -4, -2, -1, 0, 1, 2, 4, 5, 6, 7, 7] : tensor<2x2x!quant.uniform<i4:f32, 0.5>> to tensor<2x2x!quant.uniform<i4:f32, 0.25>>
  return
}

// The generic form spells every property, defaults included.
// GENERIC-LABEL: sym_name = "conv"
// GENERIC: "qnn.conv"(%{{.*}}, %{{.*}}, %{{.*}}) <{activation = #qnn.activation<relu>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, rounding = #qnn.rounding<half_even>}>
// GENERIC: "qnn.conv"(%{{.*}}, %{{.*}}) <{activation = #qnn.activation<clip>, clip_max = 2.500000e+00 : f64, clip_min = -1.000000e+00 : f64, dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 1, 1>, rounding = #qnn.rounding<half_away>, strides = array<i64: 2, 2>}>
// GENERIC-LABEL: sym_name = "pool"
// GENERIC: "qnn.avg_pool"(%{{.*}}) <{kernel_shape = array<i64: 2, 2>, rounding = #qnn.rounding<half_even>, strides = array<i64: 2, 2>}>
// GENERIC: "qnn.avg_pool"(%{{.*}}) <{count_include_pad, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, rounding = #qnn.rounding<half_up>}>
// GENERIC-LABEL: sym_name = "lut"
// GENERIC: "qnn.lut"(%{{.*}}) <{table = array<i32: 1, 0, 1, 4>}>
