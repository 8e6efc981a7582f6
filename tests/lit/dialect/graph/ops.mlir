// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// Graph ops have no custom syntax: both RUN lines print the generic form, with ONNX attributes
// as properties. Every result type below is the one inference gives, or a compatible one.

// Elementwise ops broadcast numpy-style; comparisons give i1; Pow's exponent and Where's
// condition may have another element type.
// CHECK-LABEL: func.func @elementwise(%arg0: tensor<2x1x3xf32>, %arg1: tensor<4x1xf32>, %arg2: tensor<2x4x3xi1>, %arg3: tensor<3xi32>, %arg4: tensor<?x3xf32>)
// CHECK-NEXT: %{{.*}} = "graph.Add"(%arg0, %arg1) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Sub"(%arg0, %arg0) : (tensor<2x1x3xf32>, tensor<2x1x3xf32>) -> tensor<2x1x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Mul"(%arg4, %arg0) : (tensor<?x3xf32>, tensor<2x1x3xf32>) -> tensor<2x?x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Div"(%arg4, %arg4) : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Pow"(%arg0, %arg3) : (tensor<2x1x3xf32>, tensor<3xi32>) -> tensor<2x1x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Mod"(%arg3, %arg3) <{fmod = 0 : i64}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: %{{.*}} = "graph.BitShift"(%arg3, %arg3) <{direction = "LEFT"}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: %{{.*}} = "graph.Equal"(%arg0, %arg1) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.Less"(%arg0, %arg1) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.Where"(%arg2, %arg0, %arg1) : (tensor<2x4x3xi1>, tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Sum"(%arg0, %arg1, %arg0) : (tensor<2x1x3xf32>, tensor<4x1xf32>, tensor<2x1x3xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Max"(%arg0, %arg1) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Not"(%arg2) : (tensor<2x4x3xi1>) -> tensor<2x4x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.And"(%arg2, %arg2) : (tensor<2x4x3xi1>, tensor<2x4x3xi1>) -> tensor<2x4x3xi1>
// CHECK-NEXT: return
func.func @elementwise(%a: tensor<2x1x3xf32>, %b: tensor<4x1xf32>, %c: tensor<2x4x3xi1>, %i: tensor<3xi32>, %d: tensor<?x3xf32>) {
  %0 = "graph.Add"(%a, %b) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  %1 = "graph.Sub"(%a, %a) : (tensor<2x1x3xf32>, tensor<2x1x3xf32>) -> tensor<2x1x3xf32>
  %2 = "graph.Mul"(%d, %a) : (tensor<?x3xf32>, tensor<2x1x3xf32>) -> tensor<2x?x3xf32>
  %3 = "graph.Div"(%d, %d) : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %4 = "graph.Pow"(%a, %i) : (tensor<2x1x3xf32>, tensor<3xi32>) -> tensor<2x1x3xf32>
  %5 = "graph.Mod"(%i, %i) <{fmod = 0 : i64}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %6 = "graph.BitShift"(%i, %i) <{direction = "LEFT"}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %7 = "graph.Equal"(%a, %b) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xi1>
  %8 = "graph.Less"(%a, %b) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xi1>
  %9 = "graph.Where"(%c, %a, %b) : (tensor<2x4x3xi1>, tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  %10 = "graph.Sum"(%a, %b, %a) : (tensor<2x1x3xf32>, tensor<4x1xf32>, tensor<2x1x3xf32>) -> tensor<2x4x3xf32>
  %11 = "graph.Max"(%a, %b) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  %12 = "graph.Not"(%c) : (tensor<2x4x3xi1>) -> tensor<2x4x3xi1>
  %13 = "graph.And"(%c, %c) : (tensor<2x4x3xi1>, tensor<2x4x3xi1>) -> tensor<2x4x3xi1>
  return
}

// Activations keep the input's type; an absent Clip bound is a graph.none operand.
// CHECK-LABEL: func.func @activations(%arg0: tensor<2x8xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<8xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %{{.*}} = "graph.Relu"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Sigmoid"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Tanh"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.LeakyRelu"(%arg0) <{alpha = 1.000000e-01 : f32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Elu"(%arg0) <{alpha = 1.000000e+00 : f32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Gelu"(%arg0) <{approximate = "tanh"}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.HardSigmoid"(%arg0) <{alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.HardSwish"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Softmax"(%arg0) <{axis = -1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.LogSoftmax"(%arg0) <{axis = 1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.PRelu"(%arg0, %arg3) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Clip"(%arg0, %[[NONE]], %[[NONE]]) : (tensor<2x8xf32>, none, none) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Clip"(%arg0, %arg1, %arg2) : (tensor<2x8xf32>, tensor<f32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Exp"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Sqrt"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.Erf"(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return
func.func @activations(%x: tensor<2x8xf32>, %lo: tensor<f32>, %hi: tensor<f32>, %slope: tensor<8xf32>) {
  %none = "graph.none"() : () -> none
  %0 = "graph.Relu"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = "graph.Sigmoid"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = "graph.Tanh"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = "graph.LeakyRelu"(%x) <{alpha = 0.1 : f32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = "graph.Elu"(%x) <{alpha = 1.0 : f32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = "graph.Gelu"(%x) <{approximate = "tanh"}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %6 = "graph.HardSigmoid"(%x) <{alpha = 0.2 : f32, beta = 0.5 : f32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %7 = "graph.HardSwish"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %8 = "graph.Softmax"(%x) <{axis = -1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %9 = "graph.LogSoftmax"(%x) <{axis = 1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %10 = "graph.PRelu"(%x, %slope) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %11 = "graph.Clip"(%x, %none, %none) : (tensor<2x8xf32>, none, none) -> tensor<2x8xf32>
  %12 = "graph.Clip"(%x, %lo, %hi) : (tensor<2x8xf32>, tensor<f32>, tensor<f32>) -> tensor<2x8xf32>
  %13 = "graph.Exp"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %14 = "graph.Sqrt"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %15 = "graph.Erf"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// Convolution and pooling: pads, strides, dilations, groups, auto_pad and ceil_mode; MaxPool's
// Indices result is none when absent.
// CHECK-LABEL: func.func @conv_pool(%arg0: tensor<1x3x32x32xf32>, %arg1: tensor<16x3x3x3xf32>, %arg2: tensor<16xf32>, %arg3: tensor<3x1x3x3xf32>, %arg4: tensor<1x16x16x16xf32>, %arg5: tensor<16x8x4x4xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %{{.*}} = "graph.Conv"(%arg0, %arg1, %arg2) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
// CHECK-NEXT: %{{.*}} = "graph.Conv"(%arg0, %arg1, %[[NONE]]) <{auto_pad = "SAME_UPPER"}> : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x32x32xf32>
// CHECK-NEXT: %{{.*}} = "graph.Conv"(%arg0, %arg1, %[[NONE]]) <{dilations = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x28x28xf32>
// CHECK-NEXT: %{{.*}} = "graph.Conv"(%arg0, %arg3, %[[NONE]]) <{group = 3 : i64, kernel_shape = array<i64: 3, 3>}> : (tensor<1x3x32x32xf32>, tensor<3x1x3x3xf32>, none) -> tensor<1x3x30x30xf32>
// CHECK-NEXT: %{{.*}} = "graph.ConvTranspose"(%arg4, %arg5, %[[NONE]]) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x16x16x16xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x8x32x32xf32>
// CHECK-NEXT: %{{.*}}:2 = "graph.MaxPool"(%arg0) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>) -> (tensor<1x3x16x16xf32>, none)
// CHECK-NEXT: %{{.*}}:2 = "graph.MaxPool"(%arg0) <{ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>) -> (tensor<1x3x16x16xf32>, tensor<1x3x16x16xi64>)
// CHECK-NEXT: %{{.*}} = "graph.AveragePool"(%arg0) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x32x32xf32>) -> tensor<1x3x32x32xf32>
// CHECK-NEXT: %{{.*}} = "graph.LpPool"(%arg0) <{kernel_shape = array<i64: 2, 2>, p = 2 : i64}> : (tensor<1x3x32x32xf32>) -> tensor<1x3x31x31xf32>
// CHECK-NEXT: %{{.*}} = "graph.GlobalAveragePool"(%arg0) : (tensor<1x3x32x32xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT: %{{.*}} = "graph.GlobalMaxPool"(%arg0) : (tensor<1x3x32x32xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT: return
func.func @conv_pool(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>, %dw: tensor<3x1x3x3xf32>, %y: tensor<1x16x16x16xf32>, %wt: tensor<16x8x4x4xf32>) {
  %none = "graph.none"() : () -> none
  %0 = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  %1 = "graph.Conv"(%x, %w, %none) <{auto_pad = "SAME_UPPER"}> : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x32x32xf32>
  %2 = "graph.Conv"(%x, %w, %none) <{dilations = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x28x28xf32>
  %3 = "graph.Conv"(%x, %dw, %none) <{group = 3 : i64, kernel_shape = array<i64: 3, 3>}> : (tensor<1x3x32x32xf32>, tensor<3x1x3x3xf32>, none) -> tensor<1x3x30x30xf32>
  %4 = "graph.ConvTranspose"(%y, %wt, %none) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x16x16x16xf32>, tensor<16x8x4x4xf32>, none) -> tensor<1x8x32x32xf32>
  %5:2 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>) -> (tensor<1x3x16x16xf32>, none)
  %6:2 = "graph.MaxPool"(%x) <{ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x3x32x32xf32>) -> (tensor<1x3x16x16xf32>, tensor<1x3x16x16xi64>)
  %7 = "graph.AveragePool"(%x) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x32x32xf32>) -> tensor<1x3x32x32xf32>
  %8 = "graph.LpPool"(%x) <{kernel_shape = array<i64: 2, 2>, p = 2 : i64}> : (tensor<1x3x32x32xf32>) -> tensor<1x3x31x31xf32>
  %9 = "graph.GlobalAveragePool"(%x) : (tensor<1x3x32x32xf32>) -> tensor<1x3x1x1xf32>
  %10 = "graph.GlobalMaxPool"(%x) : (tensor<1x3x32x32xf32>) -> tensor<1x3x1x1xf32>
  return
}

// Matrix products: batched and 1-D MatMul, Gemm with transB and an absent C, Einsum.
// CHECK-LABEL: func.func @gemm_matmul(%arg0: tensor<2x5x3x4xf32>, %arg1: tensor<4x6xf32>, %arg2: tensor<4xf32>, %arg3: tensor<3x4xf32>, %arg4: tensor<5x4xf32>, %arg5: tensor<5xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %{{.*}} = "graph.MatMul"(%arg0, %arg1) : (tensor<2x5x3x4xf32>, tensor<4x6xf32>) -> tensor<2x5x3x6xf32>
// CHECK-NEXT: %{{.*}} = "graph.MatMul"(%arg0, %arg2) : (tensor<2x5x3x4xf32>, tensor<4xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.MatMul"(%arg2, %arg1) : (tensor<4xf32>, tensor<4x6xf32>) -> tensor<6xf32>
// CHECK-NEXT: %{{.*}} = "graph.Gemm"(%arg3, %arg4, %arg5) <{alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, transB = 1 : i64}> : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %{{.*}} = "graph.Gemm"(%arg3, %arg1, %[[NONE]]) : (tensor<3x4xf32>, tensor<4x6xf32>, none) -> tensor<3x6xf32>
// CHECK-NEXT: %{{.*}} = "graph.Einsum"(%arg3, %arg1) <{equation = "ij,jk->ik"}> : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: %{{.*}} = "graph.Einsum"(%arg3) <{equation = "ij->ji"}> : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: return
func.func @gemm_matmul(%a: tensor<2x5x3x4xf32>, %b: tensor<4x6xf32>, %v: tensor<4xf32>, %g: tensor<3x4xf32>, %h: tensor<5x4xf32>, %c: tensor<5xf32>) {
  %none = "graph.none"() : () -> none
  %0 = "graph.MatMul"(%a, %b) : (tensor<2x5x3x4xf32>, tensor<4x6xf32>) -> tensor<2x5x3x6xf32>
  %1 = "graph.MatMul"(%a, %v) : (tensor<2x5x3x4xf32>, tensor<4xf32>) -> tensor<2x5x3xf32>
  %2 = "graph.MatMul"(%v, %b) : (tensor<4xf32>, tensor<4x6xf32>) -> tensor<6xf32>
  %3 = "graph.Gemm"(%g, %h, %c) <{alpha = 5.000000e-01 : f32, beta = 1.0 : f32, transB = 1 : i64}> : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %4 = "graph.Gemm"(%g, %b, %none) : (tensor<3x4xf32>, tensor<4x6xf32>, none) -> tensor<3x6xf32>
  %5 = "graph.Einsum"(%g, %b) <{equation = "ij,jk->ik"}> : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %6 = "graph.Einsum"(%g) <{equation = "ij->ji"}> : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return
}

// Reductions take their axes as a constant operand (absent: all axes); non-constant axes
// leave the dims unknown.
// CHECK-LABEL: func.func @reductions(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1xi64>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %[[AX1:.*]] = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
// CHECK-NEXT: %{{.*}} = "graph.ReduceSum"(%arg0, %[[AX1]]) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.ReduceMean"(%arg0, %[[AX1]]) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.ReduceMax"(%arg0, %[[NONE]]) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, none) -> tensor<f32>
// CHECK-NEXT: %{{.*}} = "graph.ReduceMin"(%arg0, %[[NONE]]) <{noop_with_empty_axes = 1 : i64}> : (tensor<2x3x4xf32>, none) -> tensor<2x3x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.ReduceL2"(%arg0, %arg1) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT: %{{.*}} = "graph.ArgMax"(%arg0) <{axis = 2 : i64, keepdims = 0 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
// CHECK-NEXT: %{{.*}} = "graph.ArgMin"(%arg0) <{axis = -1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
// CHECK-NEXT: return
func.func @reductions(%x: tensor<2x3x4xf32>, %axes: tensor<1xi64>) {
  %none = "graph.none"() : () -> none
  %ax1 = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ReduceSum"(%x, %ax1) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %1 = "graph.ReduceMean"(%x, %ax1) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %2 = "graph.ReduceMax"(%x, %none) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, none) -> tensor<f32>
  %3 = "graph.ReduceMin"(%x, %none) <{noop_with_empty_axes = 1 : i64}> : (tensor<2x3x4xf32>, none) -> tensor<2x3x4xf32>
  %4 = "graph.ReduceL2"(%x, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %5 = "graph.ArgMax"(%x) <{axis = 2 : i64, keepdims = 0 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  %6 = "graph.ArgMin"(%x) <{axis = -1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  return
}

// Shape ops read shapes, axes, pads and sizes from constant operands.
// CHECK-LABEL: func.func @shape_ops(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1x3x1xf32>, %arg2: tensor<5xi64>, %arg3: tensor<i64>, %arg4: tensor<3xi64>, %arg5: tensor<3x1xf32>, %arg6: tensor<1x3x8x8xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %[[SHAPE:.*]] = "graph.constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %{{.*}} = "graph.Reshape"(%arg0, %[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
// CHECK-NEXT: %{{.*}} = "graph.Reshape"(%arg0, %arg4) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT: %{{.*}} = "graph.Transpose"(%arg0) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Transpose"(%arg0) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: %[[AX03:.*]] = "graph.constant"() <{value = dense<[0, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %{{.*}} = "graph.Unsqueeze"(%arg0, %[[AX03]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.Squeeze"(%arg1, %[[NONE]]) : (tensor<1x3x1xf32>, none) -> tensor<3xf32>
// CHECK-NEXT: %[[AX0:.*]] = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
// CHECK-NEXT: %{{.*}} = "graph.Squeeze"(%arg1, %[[AX0]]) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
// CHECK-NEXT: %{{.*}} = "graph.Flatten"(%arg0) <{axis = 2 : i64}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.Concat"(%arg0, %arg0) <{axis = 2 : i64}> : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT: %[[SIZES:.*]] = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %{{.*}}:2 = "graph.Split"(%arg0, %[[SIZES]]) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> (tensor<2x1x4xf32>, tensor<2x2x4xf32>)
// CHECK-NEXT: %{{.*}}:2 = "graph.Split"(%arg0, %[[NONE]]) <{axis = 2 : i64, num_outputs = 2 : i64}> : (tensor<2x3x4xf32>, none) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
// CHECK-NEXT: %[[STARTS:.*]] = "graph.constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %[[ENDS:.*]] = "graph.constant"() <{value = dense<[100, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %[[AXES:.*]] = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %{{.*}} = "graph.Slice"(%arg0, %[[STARTS]], %[[ENDS]], %[[AXES]], %[[NONE]]) : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, none) -> tensor<2x2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.Gather"(%arg0, %arg2) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x5x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.Gather"(%arg0, %arg3) : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[TO:.*]] = "graph.constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
// CHECK-NEXT: %{{.*}} = "graph.Expand"(%arg5, %[[TO]]) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[PADS:.*]] = "graph.constant"() <{value = dense<[0, 1, 1, 0, 1, 1]> : tensor<6xi64>}> : () -> tensor<6xi64>
// CHECK-NEXT: %{{.*}} = "graph.Pad"(%arg0, %[[PADS]], %[[NONE]], %[[NONE]]) <{mode = "constant"}> : (tensor<2x3x4xf32>, tensor<6xi64>, none, none) -> tensor<2x5x6xf32>
// CHECK-NEXT: %[[ZERO:.*]] = "graph.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// CHECK-NEXT: %[[PADS2:.*]] = "graph.constant"() <{value = dense<2> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %[[LAST:.*]] = "graph.constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
// CHECK-NEXT: %{{.*}} = "graph.Pad"(%arg0, %[[PADS2]], %[[ZERO]], %[[LAST]]) <{mode = "reflect"}> : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<2x3x8xf32>
// CHECK-NEXT: %[[REPS:.*]] = "graph.constant"() <{value = dense<[1, 2, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
// CHECK-NEXT: %{{.*}} = "graph.Tile"(%arg0, %[[REPS]]) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x6x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.Shape"(%arg0) : (tensor<2x3x4xf32>) -> tensor<3xi64>
// CHECK-NEXT: %{{.*}} = "graph.Shape"(%arg0) <{start = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2xi64>
// CHECK-NEXT: %{{.*}} = "graph.Size"(%arg0) : (tensor<2x3x4xf32>) -> tensor<i64>
// CHECK-NEXT: %{{.*}} = "graph.Cast"(%arg0) <{to = 7 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xi64>
// CHECK-NEXT: %{{.*}} = "graph.CastLike"(%arg0, %arg2) : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x3x4xi64>
// CHECK-NEXT: %[[SCALES:.*]] = "graph.constant"() <{value = dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
// CHECK-NEXT: %{{.*}} = "graph.Resize"(%arg6, %[[NONE]], %[[SCALES]], %[[NONE]]) <{mode = "nearest"}> : (tensor<1x3x8x8xf32>, none, tensor<4xf32>, none) -> tensor<1x3x16x16xf32>
// CHECK-NEXT: %{{.*}} = "graph.SpaceToDepth"(%arg6) <{blocksize = 2 : i64}> : (tensor<1x3x8x8xf32>) -> tensor<1x12x4x4xf32>
// CHECK-NEXT: %[[DIMS:.*]] = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %{{.*}} = "graph.ConstantOfShape"(%[[DIMS]]) <{value = dense<7> : tensor<1xi32>}> : (tensor<2xi64>) -> tensor<2x3xi32>
// CHECK-NEXT: %[[START:.*]] = "graph.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT: %[[LIMIT:.*]] = "graph.constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT: %[[DELTA:.*]] = "graph.constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT: %{{.*}} = "graph.Range"(%[[START]], %[[LIMIT]], %[[DELTA]]) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT: %[[TWO:.*]] = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
// CHECK-NEXT: %{{.*}}:2 = "graph.TopK"(%arg0, %[[TWO]]) <{largest = 1 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> (tensor<2x3x2xf32>, tensor<2x3x2xi64>)
// CHECK-NEXT: %{{.*}} = "graph.NonZero"(%arg0) : (tensor<2x3x4xf32>) -> tensor<3x?xi64>
// CHECK-NEXT: return
func.func @shape_ops(%x: tensor<2x3x4xf32>, %y: tensor<1x3x1xf32>, %idx: tensor<5xi64>, %k: tensor<i64>, %dyn: tensor<3xi64>, %e: tensor<3x1xf32>, %img: tensor<1x3x8x8xf32>) {
  %none = "graph.none"() : () -> none
  %shape = "graph.constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Reshape"(%x, %shape) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %1 = "graph.Reshape"(%x, %dyn) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %2 = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %3 = "graph.Transpose"(%x) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %ax03 = "graph.constant"() <{value = dense<[0, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %4 = "graph.Unsqueeze"(%x, %ax03) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x1x4xf32>
  %5 = "graph.Squeeze"(%y, %none) : (tensor<1x3x1xf32>, none) -> tensor<3xf32>
  %ax0 = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %6 = "graph.Squeeze"(%y, %ax0) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %7 = "graph.Flatten"(%x) <{axis = 2 : i64}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %8 = "graph.Concat"(%x, %x) <{axis = 2 : i64}> : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  %sizes = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %9:2 = "graph.Split"(%x, %sizes) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> (tensor<2x1x4xf32>, tensor<2x2x4xf32>)
  %10:2 = "graph.Split"(%x, %none) <{axis = 2 : i64, num_outputs = 2 : i64}> : (tensor<2x3x4xf32>, none) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
  %starts = "graph.constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ends = "graph.constant"() <{value = dense<[100, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axes = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %11 = "graph.Slice"(%x, %starts, %ends, %axes, %none) : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, none) -> tensor<2x2x3xf32>
  %12 = "graph.Gather"(%x, %idx) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x5x4xf32>
  %13 = "graph.Gather"(%x, %k) : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  %to = "graph.constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %14 = "graph.Expand"(%e, %to) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %pads = "graph.constant"() <{value = dense<[0, 1, 1, 0, 1, 1]> : tensor<6xi64>}> : () -> tensor<6xi64>
  %15 = "graph.Pad"(%x, %pads, %none, %none) <{mode = "constant"}> : (tensor<2x3x4xf32>, tensor<6xi64>, none, none) -> tensor<2x5x6xf32>
  %zero = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %pads2 = "graph.constant"() <{value = dense<[2, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %last = "graph.constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %16 = "graph.Pad"(%x, %pads2, %zero, %last) <{mode = "reflect"}> : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<2x3x8xf32>
  %reps = "graph.constant"() <{value = dense<[1, 2, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %17 = "graph.Tile"(%x, %reps) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x6x4xf32>
  %18 = "graph.Shape"(%x) : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %19 = "graph.Shape"(%x) <{start = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2xi64>
  %20 = "graph.Size"(%x) : (tensor<2x3x4xf32>) -> tensor<i64>
  %21 = "graph.Cast"(%x) <{to = 7 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xi64>
  %22 = "graph.CastLike"(%x, %idx) : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x3x4xi64>
  %scales = "graph.constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %23 = "graph.Resize"(%img, %none, %scales, %none) <{mode = "nearest"}> : (tensor<1x3x8x8xf32>, none, tensor<4xf32>, none) -> tensor<1x3x16x16xf32>
  %24 = "graph.SpaceToDepth"(%img) <{blocksize = 2 : i64}> : (tensor<1x3x8x8xf32>) -> tensor<1x12x4x4xf32>
  %dims = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %25 = "graph.ConstantOfShape"(%dims) <{value = dense<7> : tensor<1xi32>}> : (tensor<2xi64>) -> tensor<2x3xi32>
  %start = "graph.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %limit = "graph.constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
  %delta = "graph.constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %26 = "graph.Range"(%start, %limit, %delta) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  %two = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %27:2 = "graph.TopK"(%x, %two) <{largest = 1 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> (tensor<2x3x2xf32>, tensor<2x3x2xi64>)
  %28 = "graph.NonZero"(%x) : (tensor<2x3x4xf32>) -> tensor<3x?xi64>
  return
}

// Normalizations; absent optional outputs (BatchNormalization's running statistics,
// LayerNormalization's Mean and InvStdDev, Dropout's mask) are results of type none.
// CHECK-LABEL: func.func @normalization(%arg0: tensor<2x4x8x8xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2x5x16xf32>, %arg3: tensor<16xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %{{.*}}:3 = "graph.BatchNormalization"(%arg0, %arg1, %arg1, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, none, none)
// CHECK-NEXT: %{{.*}}:3 = "graph.BatchNormalization"(%arg0, %arg1, %arg1, %arg1, %arg1) <{momentum = 9.000000e-01 : f32, training_mode = 1 : i64}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %{{.*}}:3 = "graph.LayerNormalization"(%arg2, %arg3, %[[NONE]]) <{axis = -1 : i64}> : (tensor<2x5x16xf32>, tensor<16xf32>, none) -> (tensor<2x5x16xf32>, none, none)
// CHECK-NEXT: %{{.*}}:3 = "graph.LayerNormalization"(%arg2, %arg3, %arg3) <{axis = 1 : i64}> : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x5x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
// CHECK-NEXT: %{{.*}} = "graph.InstanceNormalization"(%arg0, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.GroupNormalization"(%arg0, %arg1, %arg1) <{num_groups = 2 : i64}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %{{.*}} = "graph.LpNormalization"(%arg2) <{axis = 1 : i64, p = 2 : i64}> : (tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT: %{{.*}} = "graph.MeanVarianceNormalization"(%arg0) <{axes = array<i64: 0, 2, 3>}> : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %{{.*}}:2 = "graph.Dropout"(%arg0, %[[NONE]], %[[NONE]]) : (tensor<2x4x8x8xf32>, none, none) -> (tensor<2x4x8x8xf32>, none)
// CHECK-NEXT: return
func.func @normalization(%x: tensor<2x4x8x8xf32>, %c: tensor<4xf32>, %l: tensor<2x5x16xf32>, %s: tensor<16xf32>) {
  %none = "graph.none"() : () -> none
  %0:3 = "graph.BatchNormalization"(%x, %c, %c, %c, %c) <{epsilon = 1.0e-03 : f32}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, none, none)
  %1:3 = "graph.BatchNormalization"(%x, %c, %c, %c, %c) <{momentum = 0.9 : f32, training_mode = 1 : i64}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %2:3 = "graph.LayerNormalization"(%l, %s, %none) <{axis = -1 : i64}> : (tensor<2x5x16xf32>, tensor<16xf32>, none) -> (tensor<2x5x16xf32>, none, none)
  %3:3 = "graph.LayerNormalization"(%l, %s, %s) <{axis = 1 : i64}> : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x5x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  %4 = "graph.InstanceNormalization"(%x, %c, %c) <{epsilon = 1.0e-03 : f32}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %5 = "graph.GroupNormalization"(%x, %c, %c) <{num_groups = 2 : i64}> : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %6 = "graph.LpNormalization"(%l) <{axis = 1 : i64, p = 2 : i64}> : (tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %7 = "graph.MeanVarianceNormalization"(%x) <{axes = array<i64: 0, 2, 3>}> : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %8:2 = "graph.Dropout"(%x, %none, %none) : (tensor<2x4x8x8xf32>, none, none) -> (tensor<2x4x8x8xf32>, none)
  return
}

// Quantization: uint8 is ui8, int8 is i8; QuantizeLinear without a zero point gives
// output_dtype (ui8 by default).
// CHECK-LABEL: func.func @quantization(%arg0: tensor<1x2x5x5xf32>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<4x2x3x3xui8>, %arg4: tensor<3x5xui8>, %arg5: tensor<5x4xui8>, %arg6: tensor<3x5xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %[[Q:.*]] = "graph.QuantizeLinear"(%arg0, %arg1, %arg2) : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xui8>
// CHECK-NEXT: %{{.*}} = "graph.QuantizeLinear"(%arg0, %arg1, %[[NONE]]) <{output_dtype = 3 : i64}> : (tensor<1x2x5x5xf32>, tensor<f32>, none) -> tensor<1x2x5x5xi8>
// CHECK-NEXT: %{{.*}} = "graph.DequantizeLinear"(%[[Q]], %arg1, %arg2) : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT: %{{.*}} = "graph.QLinearConv"(%[[Q]], %arg1, %arg2, %arg3, %arg1, %arg2, %arg1, %arg2, %[[NONE]]) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x2x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, none) -> tensor<1x4x5x5xui8>
// CHECK-NEXT: %{{.*}} = "graph.QLinearMatMul"(%arg4, %arg1, %arg2, %arg5, %arg1, %arg2, %arg1, %arg2) : (tensor<3x5xui8>, tensor<f32>, tensor<ui8>, tensor<5x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xui8>
// CHECK-NEXT: %{{.*}} = "graph.MatMulInteger"(%arg4, %arg5, %arg2, %arg2) : (tensor<3x5xui8>, tensor<5x4xui8>, tensor<ui8>, tensor<ui8>) -> tensor<3x4xi32>
// CHECK-NEXT: %{{.*}} = "graph.ConvInteger"(%[[Q]], %arg3, %[[NONE]], %[[NONE]]) : (tensor<1x2x5x5xui8>, tensor<4x2x3x3xui8>, none, none) -> tensor<1x4x3x3xi32>
// CHECK-NEXT: %{{.*}}:3 = "graph.DynamicQuantizeLinear"(%arg6) : (tensor<3x5xf32>) -> (tensor<3x5xui8>, tensor<f32>, tensor<ui8>)
// CHECK-NEXT: return
func.func @quantization(%x: tensor<1x2x5x5xf32>, %s: tensor<f32>, %zp: tensor<ui8>, %w: tensor<4x2x3x3xui8>, %a: tensor<3x5xui8>, %b: tensor<5x4xui8>, %f: tensor<3x5xf32>) {
  %none = "graph.none"() : () -> none
  %q = "graph.QuantizeLinear"(%x, %s, %zp) : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xui8>
  %0 = "graph.QuantizeLinear"(%x, %s, %none) <{output_dtype = 3 : i64}> : (tensor<1x2x5x5xf32>, tensor<f32>, none) -> tensor<1x2x5x5xi8>
  %1 = "graph.DequantizeLinear"(%q, %s, %zp) : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xf32>
  %2 = "graph.QLinearConv"(%q, %s, %zp, %w, %s, %zp, %s, %zp, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x2x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, none) -> tensor<1x4x5x5xui8>
  %3 = "graph.QLinearMatMul"(%a, %s, %zp, %b, %s, %zp, %s, %zp) : (tensor<3x5xui8>, tensor<f32>, tensor<ui8>, tensor<5x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xui8>
  %4 = "graph.MatMulInteger"(%a, %b, %zp, %zp) : (tensor<3x5xui8>, tensor<5x4xui8>, tensor<ui8>, tensor<ui8>) -> tensor<3x4xi32>
  %5 = "graph.ConvInteger"(%q, %w, %none, %none) : (tensor<1x2x5x5xui8>, tensor<4x2x3x3xui8>, none, none) -> tensor<1x4x3x3xi32>
  %6:3 = "graph.DynamicQuantizeLinear"(%f) : (tensor<3x5xf32>) -> (tensor<3x5xui8>, tensor<f32>, tensor<ui8>)
  return
}

// Recurrent ops: STRINGS attributes are arrays of strings, FLOATS are array<f32: ...>.
// CHECK-LABEL: func.func @recurrent(%arg0: tensor<7x2x4xf32>, %arg1: tensor<1x12x4xf32>, %arg2: tensor<1x12x3xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %{{.*}}:3 = "graph.LSTM"(%arg0, %arg1, %arg2, %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]]) <{activation_alpha = array<f32: 1.000000e+00, 1.000000e+00, 1.000000e+00>, activations = ["Sigmoid", "Tanh", "Tanh"], hidden_size = 3 : i64}> : (tensor<7x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, none, none, none, none, none) -> (tensor<7x1x2x3xf32>, tensor<1x2x3xf32>, none)
// CHECK-NEXT: return
func.func @recurrent(%x: tensor<7x2x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>) {
  %none = "graph.none"() : () -> none
  %0:3 = "graph.LSTM"(%x, %w, %r, %none, %none, %none, %none, %none) <{activation_alpha = array<f32: 1.0, 1.0, 1.0>, activations = ["Sigmoid", "Tanh", "Tanh"], hidden_size = 3 : i64}> : (tensor<7x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, none, none, none, none, none) -> (tensor<7x1x2x3xf32>, tensor<1x2x3xf32>, none)
  return
}

// Subgraphs are regions ended by graph.yield, named after the ONNX attribute and in name
// order: If's else_branch comes before then_branch. Bodies use outer values directly.
// CHECK-LABEL: func.func @control_flow(%arg0: tensor<i1>, %arg1: tensor<2xf32>, %arg2: tensor<i64>, %arg3: tensor<5x2xf32>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %{{.*}} = "graph.If"(%arg0) ({
// CHECK-NEXT: %[[NEG:.*]] = "graph.Neg"(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: "graph.yield"(%[[NEG]]) : (tensor<2xf32>) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: "graph.yield"(%arg1) : (tensor<2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<2xf32>
// CHECK-NEXT: %{{.*}}:2 = "graph.Loop"(%arg2, %arg0, %arg1) ({
// CHECK-NEXT: ^bb0(%arg4: tensor<i64>, %arg5: tensor<i1>, %arg6: tensor<2xf32>):
// CHECK-NEXT: %[[NEXT:.*]] = "graph.Add"(%arg6, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: "graph.yield"(%arg5, %[[NEXT]], %[[NEXT]]) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
// CHECK-NEXT: %{{.*}} = "graph.Loop"(%arg2, %[[NONE]], %arg1) ({
// CHECK-NEXT: ^bb0(%arg4: tensor<i64>, %arg5: tensor<i1>, %arg6: tensor<2xf32>):
// CHECK-NEXT: "graph.yield"(%arg5, %arg6) : (tensor<i1>, tensor<2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i64>, none, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %{{.*}}:2 = "graph.Scan"(%arg1, %arg3) <{num_scan_inputs = 1 : i64}> ({
// CHECK-NEXT: ^bb0(%arg4: tensor<2xf32>, %arg5: tensor<2xf32>):
// CHECK-NEXT: %[[SUM:.*]] = "graph.Add"(%arg4, %arg5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: "graph.yield"(%[[SUM]], %[[SUM]]) : (tensor<2xf32>, tensor<2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<2xf32>, tensor<5x2xf32>) -> (tensor<2xf32>, tensor<5x2xf32>)
// CHECK-NEXT: return
func.func @control_flow(%cond: tensor<i1>, %x: tensor<2xf32>, %m: tensor<i64>, %xs: tensor<5x2xf32>) {
  %none = "graph.none"() : () -> none
  %0 = "graph.If"(%cond) ({
    %neg = "graph.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    "graph.yield"(%neg) : (tensor<2xf32>) -> ()
  }, {
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  %1:2 = "graph.Loop"(%m, %cond, %x) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    %next = "graph.Add"(%v, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "graph.yield"(%c, %next, %next) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
  %2 = "graph.Loop"(%m, %none, %x) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    "graph.yield"(%c, %v) : (tensor<i1>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, none, tensor<2xf32>) -> tensor<2xf32>
  %3:2 = "graph.Scan"(%x, %xs) <{num_scan_inputs = 1 : i64}> ({
  ^bb0(%acc: tensor<2xf32>, %row: tensor<2xf32>):
    %sum = "graph.Add"(%acc, %row) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "graph.yield"(%sum, %sum) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<2xf32>, tensor<5x2xf32>) -> (tensor<2xf32>, tensor<5x2xf32>)
  return
}

// Sequences are !graph.seq<...>, optionals !graph.opt<...>; Identity passes them through.
// CHECK-LABEL: func.func @sequences(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<i64>)
// CHECK-NEXT: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-NEXT: %[[SEQ:.*]] = "graph.SequenceConstruct"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> !graph.seq<tensor<2xf32>>
// CHECK-NEXT: %[[EMPTY:.*]] = "graph.SequenceEmpty"() <{dtype = 1 : i64}> : () -> !graph.seq<tensor<*xf32>>
// CHECK-NEXT: %[[INS:.*]] = "graph.SequenceInsert"(%[[EMPTY]], %arg1, %[[NONE]]) : (!graph.seq<tensor<*xf32>>, tensor<3xf32>, none) -> !graph.seq<tensor<*xf32>>
// CHECK-NEXT: %{{.*}} = "graph.SequenceAt"(%[[SEQ]], %arg2) : (!graph.seq<tensor<2xf32>>, tensor<i64>) -> tensor<2xf32>
// CHECK-NEXT: %{{.*}} = "graph.SequenceLength"(%[[INS]]) : (!graph.seq<tensor<*xf32>>) -> tensor<i64>
// CHECK-NEXT: %{{.*}} = "graph.SplitToSequence"(%arg1, %[[NONE]]) <{keepdims = 0 : i64}> : (tensor<3xf32>, none) -> !graph.seq<tensor<f32>>
// CHECK-NEXT: %{{.*}} = "graph.ConcatFromSequence"(%[[SEQ]]) <{axis = 0 : i64, new_axis = 1 : i64}> : (!graph.seq<tensor<2xf32>>) -> tensor<2x2xf32>
// CHECK-NEXT: %{{.*}} = "graph.Identity"(%[[SEQ]]) : (!graph.seq<tensor<2xf32>>) -> !graph.seq<tensor<2xf32>>
// CHECK-NEXT: %[[OPT:.*]] = "graph.Optional"(%arg0) : (tensor<2xf32>) -> !graph.opt<tensor<2xf32>>
// CHECK-NEXT: %[[ABSENT:.*]] = "graph.Optional"(%[[NONE]]) <{type = tensor<2xf32>}> : (none) -> !graph.opt<tensor<2xf32>>
// CHECK-NEXT: %{{.*}} = "graph.OptionalHasElement"(%[[ABSENT]]) : (!graph.opt<tensor<2xf32>>) -> tensor<i1>
// CHECK-NEXT: %{{.*}} = "graph.OptionalGetElement"(%[[OPT]]) : (!graph.opt<tensor<2xf32>>) -> tensor<2xf32>
// CHECK-NEXT: %{{.*}} = "graph.Optional"(%[[SEQ]]) : (!graph.seq<tensor<2xf32>>) -> !graph.opt<!graph.seq<tensor<2xf32>>>
// CHECK-NEXT: return
func.func @sequences(%a: tensor<2xf32>, %b: tensor<3xf32>, %pos: tensor<i64>) {
  %none = "graph.none"() : () -> none
  %seq = "graph.SequenceConstruct"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> !graph.seq<tensor<2xf32>>
  %empty = "graph.SequenceEmpty"() <{dtype = 1 : i64}> : () -> !graph.seq<tensor<*xf32>>
  %ins = "graph.SequenceInsert"(%empty, %b, %none) : (!graph.seq<tensor<*xf32>>, tensor<3xf32>, none) -> !graph.seq<tensor<*xf32>>
  %0 = "graph.SequenceAt"(%seq, %pos) : (!graph.seq<tensor<2xf32>>, tensor<i64>) -> tensor<2xf32>
  %1 = "graph.SequenceLength"(%ins) : (!graph.seq<tensor<*xf32>>) -> tensor<i64>
  %2 = "graph.SplitToSequence"(%b, %none) <{keepdims = 0 : i64}> : (tensor<3xf32>, none) -> !graph.seq<tensor<f32>>
  %3 = "graph.ConcatFromSequence"(%seq) <{axis = 0 : i64, new_axis = 1 : i64}> : (!graph.seq<tensor<2xf32>>) -> tensor<2x2xf32>
  %4 = "graph.Identity"(%seq) : (!graph.seq<tensor<2xf32>>) -> !graph.seq<tensor<2xf32>>
  %opt = "graph.Optional"(%a) : (tensor<2xf32>) -> !graph.opt<tensor<2xf32>>
  %absent = "graph.Optional"(%none) <{type = tensor<2xf32>}> : (none) -> !graph.opt<tensor<2xf32>>
  %5 = "graph.OptionalHasElement"(%absent) : (!graph.opt<tensor<2xf32>>) -> tensor<i1>
  %6 = "graph.OptionalGetElement"(%opt) : (!graph.opt<tensor<2xf32>>) -> tensor<2xf32>
  %7 = "graph.Optional"(%seq) : (!graph.seq<tensor<2xf32>>) -> !graph.opt<!graph.seq<tensor<2xf32>>>
  return
}

// ONNX strings are !graph.string elements.
// CHECK-LABEL: func.func @strings(%arg0: tensor<3x!graph.string>, %arg1: tensor<3xf32>)
// CHECK-NEXT: %{{.*}} = "graph.StringConcat"(%arg0, %arg0) : (tensor<3x!graph.string>, tensor<3x!graph.string>) -> tensor<3x!graph.string>
// CHECK-NEXT: %{{.*}} = "graph.RegexFullMatch"(%arg0) <{pattern = "a.*"}> : (tensor<3x!graph.string>) -> tensor<3xi1>
// CHECK-NEXT: %{{.*}} = "graph.StringNormalizer"(%arg0) <{case_change_action = "LOWER", stopwords = ["a", "the"]}> : (tensor<3x!graph.string>) -> tensor<3x!graph.string>
// CHECK-NEXT: %{{.*}}:2 = "graph.StringSplit"(%arg0) <{delimiter = " "}> : (tensor<3x!graph.string>) -> (tensor<3x?x!graph.string>, tensor<3xi64>)
// CHECK-NEXT: %{{.*}} = "graph.Cast"(%arg1) <{to = 8 : i64}> : (tensor<3xf32>) -> tensor<3x!graph.string>
// CHECK-NEXT: %{{.*}} = "graph.constant"() <{value = dense<["ab", "c"]> : tensor<2x!graph.string>}> : () -> tensor<2x!graph.string>
// CHECK-NEXT: return
func.func @strings(%s: tensor<3x!graph.string>, %x: tensor<3xf32>) {
  %0 = "graph.StringConcat"(%s, %s) : (tensor<3x!graph.string>, tensor<3x!graph.string>) -> tensor<3x!graph.string>
  %1 = "graph.RegexFullMatch"(%s) <{pattern = "a.*"}> : (tensor<3x!graph.string>) -> tensor<3xi1>
  %2 = "graph.StringNormalizer"(%s) <{case_change_action = "LOWER", stopwords = ["a", "the"]}> : (tensor<3x!graph.string>) -> tensor<3x!graph.string>
  %3:2 = "graph.StringSplit"(%s) <{delimiter = " "}> : (tensor<3x!graph.string>) -> (tensor<3x?x!graph.string>, tensor<3xi64>)
  %4 = "graph.Cast"(%x) <{to = 8 : i64}> : (tensor<3xf32>) -> tensor<3x!graph.string>
  %5 = "graph.constant"() <{value = dense<["ab", "c"]> : tensor<2x!graph.string>}> : () -> tensor<2x!graph.string>
  return
}

// graph.constant holds dense or dense_resource elements; graph.Constant (the ONNX op) and
// generators keep their ONNX attributes.
// CHECK-LABEL: func.func @constants()
// CHECK-NEXT: %[[MAT:.*]] = "graph.constant"() <{value = dense<{{\[\[}}1.500000e+00, 2.000000e+00], [-3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
// CHECK-NEXT: %{{.*}} = "graph.constant"() <{value = dense<0> : tensor<4x8xi8>}> : () -> tensor<4x8xi8>
// CHECK-NEXT: %{{.*}} = "graph.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
// CHECK-NEXT: %{{.*}} = "graph.constant"() <{value = dense<[1, 255]> : tensor<2xui8>}> : () -> tensor<2xui8>
// CHECK-NEXT: %{{.*}} = "graph.constant"() <{value = dense<> : tensor<0xf32>}> : () -> tensor<0xf32>
// CHECK-NEXT: %{{.*}} = "graph.constant"() <{value = dense_resource<blob> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT: %{{.*}} = "graph.Constant"() <{value_ints = array<i64: 1, 2>}> : () -> tensor<2xi64>
// CHECK-NEXT: %{{.*}} = "graph.Constant"() <{value_floats = array<f32: 1.500000e+00>}> : () -> tensor<1xf32>
// CHECK-NEXT: %{{.*}} = "graph.RandomNormal"() <{dtype = 1 : i64, shape = array<i64: 2, 3>}> : () -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.EyeLike"(%[[MAT]]) <{k = 1 : i64}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: return
func.func @constants() {
  %mat = "graph.constant"() <{value = dense<[[1.5, 2.0], [-3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %0 = "graph.constant"() <{value = dense<0> : tensor<4x8xi8>}> : () -> tensor<4x8xi8>
  %1 = "graph.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "graph.constant"() <{value = dense<[1, 255]> : tensor<2xui8>}> : () -> tensor<2xui8>
  %3 = "graph.constant"() <{value = dense<> : tensor<0xf32>}> : () -> tensor<0xf32>
  %4 = "graph.constant"() <{value = dense_resource<blob> : tensor<2xf32>}> : () -> tensor<2xf32>
  %5 = "graph.Constant"() <{value_ints = array<i64: 1, 2>}> : () -> tensor<2xi64>
  %6 = "graph.Constant"() <{value_floats = array<f32: 1.5>}> : () -> tensor<1xf32>
  %7 = "graph.RandomNormal"() <{dtype = 1 : i64, shape = array<i64: 2, 3>}> : () -> tensor<2x3xf32>
  %8 = "graph.EyeLike"(%mat) <{k = 1 : i64}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// CHECK: {-#
// CHECK-NEXT: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-NEXT: blob: "0x040000000000803F00000040"
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

