// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-to-qdq)' --split-input-file | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-to-qdq,quant-from-qdq{lint=false})' --split-input-file | filecheck %s --check-prefix=BACK

// The QDQ form as ONNX: a u8 activation pair becomes QuantizeLinear/DequantizeLinear with scalar
// f32 scale and ui8 zero point (shared by the pair); a per-channel i8 weight an i8 initializer
// with 1-D parameters and axis 0; an i32 bias a DequantizeLinear without zero point; a narrowed
// range (i8<-127:127>) a Clip after the QuantizeLinear. Lifting back gives the input again.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[S_OUT:.*]] = "graph.constant"() <{value = dense<2.500000e-01> : tensor<f32>}>
// CHECK-DAG: %[[Z_OUT:.*]] = "graph.constant"() <{value = dense<0> : tensor<i8>}>
// CHECK-DAG: %[[S_B:.*]] = "graph.constant"() <{value = dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32>}>
// CHECK-DAG: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK-DAG: %[[S_W:.*]] = "graph.constant"() <{value = dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>}>
// CHECK-DAG: %[[Z_W:.*]] = "graph.constant"() <{value = dense<0> : tensor<2xi8>}>
// CHECK-DAG: %[[S_X:.*]] = "graph.constant"() <{value = dense<5.000000e-01> : tensor<f32>}>
// CHECK-DAG: %[[Z_X:.*]] = "graph.constant"() <{value = dense<3> : tensor<ui8>}>
// CHECK: %[[Q:.*]] = "graph.QuantizeLinear"(%arg0, %[[S_X]], %[[Z_X]]) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
// CHECK-NEXT: %[[X:.*]] = "graph.DequantizeLinear"(%[[Q]], %[[S_X]], %[[Z_X]]) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[WI:.*]] = "graph.constant"() <{value = dense<{{\[\[\[\[}}1]], {{\[\[}}-2]]], {{\[\[\[}}3]], {{\[\[}}-128]]]]> : tensor<2x2x1x1xi8>}>
// CHECK-NEXT: %[[W:.*]] = "graph.DequantizeLinear"(%[[WI]], %[[S_W]], %[[Z_W]]) <{axis = 0 : i64}> : (tensor<2x2x1x1xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x1x1xf32>
// CHECK-NEXT: %[[BI:.*]] = "graph.constant"() <{value = dense<[100, -7]> : tensor<2xi32>}>
// CHECK-NEXT: %[[B:.*]] = "graph.DequantizeLinear"(%[[BI]], %[[S_B]], %[[NONE]]) <{axis = 0 : i64}> : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.Conv"(%[[X]], %[[W]], %[[B]])
// CHECK-DAG: %[[LO:.*]] = "graph.constant"() <{value = dense<-127> : tensor<i8>}>
// CHECK-DAG: %[[HI:.*]] = "graph.constant"() <{value = dense<127> : tensor<i8>}>
// CHECK: %[[OQ:.*]] = "graph.QuantizeLinear"(%[[C]], %[[S_OUT]], %[[Z_OUT]])
// CHECK-NEXT: %[[OC:.*]] = "graph.Clip"(%[[OQ]], %[[LO]], %[[HI]]) : (tensor<1x2x4x4xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi8>
// CHECK-NEXT: %[[R:.*]] = "graph.DequantizeLinear"(%[[OC]], %[[S_OUT]], %[[Z_OUT]])
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: quant.

// BACK-LABEL: func.func @conv
// BACK-NEXT: %0 = quant.qcast %arg0 : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>
// BACK-NEXT: %1 = quant.dcast %0 : tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>> to tensor<1x2x4x4xf32>
// BACK-NEXT: %2 = "graph.constant"() <{value = dense<{{\[\[\[\[}}1]], {{\[\[}}-2]]], {{\[\[\[}}3]], {{\[\[}}-128]]]]> : tensor<2x2x1x1xi8>}> : () -> tensor<2x2x1x1xi8>
// BACK-NEXT: %3 = quant.scast %2 : tensor<2x2x1x1xi8> to tensor<2x2x1x1x!quant.uniform<i8:f32:0, {2.500000e-01,1.250000e-01}>>
// BACK-NEXT: %4 = quant.dcast %3 : tensor<2x2x1x1x!quant.uniform<i8:f32:0, {2.500000e-01,1.250000e-01}>> to tensor<2x2x1x1xf32>
// BACK-NEXT: %5 = "graph.constant"() <{value = dense<[100, -7]> : tensor<2xi32>}> : () -> tensor<2xi32>
// BACK-NEXT: %6 = quant.scast %5 : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {1.250000e-01,6.250000e-02}>>
// BACK-NEXT: %7 = quant.dcast %6 : tensor<2x!quant.uniform<i32:f32:0, {1.250000e-01,6.250000e-02}>> to tensor<2xf32>
// BACK-NEXT: %8 = "graph.Conv"(%1, %4, %7) <{kernel_shape = array<i64: 1, 1>}>
// BACK-NEXT: %9 = quant.qcast %8 : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<i8<-127:127>:f32, 2.500000e-01>>
// BACK-NEXT: %10 = quant.dcast %9 : tensor<1x2x4x4x!quant.uniform<i8<-127:127>:f32, 2.500000e-01>> to tensor<1x2x4x4xf32>
// BACK-NEXT: return %10
func.func @conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %q = quant.qcast %x : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>
  %d = quant.dcast %q : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>> to tensor<1x2x4x4xf32>
  %wi = "graph.constant"() <{value = dense<[[[[1]], [[-2]]], [[[3]], [[-128]]]]> : tensor<2x2x1x1xi8>}> : () -> tensor<2x2x1x1xi8>
  %ws = quant.scast %wi : tensor<2x2x1x1xi8> to tensor<2x2x1x1x!quant.uniform<i8:f32:0, {0.25,0.125}>>
  %w = quant.dcast %ws : tensor<2x2x1x1x!quant.uniform<i8:f32:0, {0.25,0.125}>> to tensor<2x2x1x1xf32>
  %bi = "graph.constant"() <{value = dense<[100, -7]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %bs = quant.scast %bi : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {0.125,0.0625}>>
  %b = quant.dcast %bs : tensor<2x!quant.uniform<i32:f32:0, {0.125,0.0625}>> to tensor<2xf32>
  %c = "graph.Conv"(%d, %w, %b) <{kernel_shape = array<i64: 1, 1>}> : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %o = quant.qcast %c : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<i8<-127:127>:f32, 0.25>>
  %r = quant.dcast %o : tensor<1x2x4x4x!quant.uniform<i8<-127:127>:f32, 0.25>> to tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// Grouped 4-bit weights (u4, blocks of 2 along dimension 0): ui4 storage, scales and zero points
// of the weight's rank, axis 0 and block_size 2 (opset 21). The signless i4 constant holds the
// u4 bit patterns (-1 is 15), written as the ui4 values. (Zero points stay below 8: upstream
// mlir-opt prints a u4 sub-channel zero point of 8 or more as a negative number.)
// CHECK-LABEL: func.func @blocked
// CHECK-DAG: %[[S:.*]] = "graph.constant"() <{value = dense<{{\[\[}}5.000000e-01, 2.500000e-01], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>}>
// CHECK-DAG: %[[Z:.*]] = "graph.constant"() <{value = dense<{{\[\[}}7, 3], [7, 1]]> : tensor<2x2xui4>}>
// CHECK: %[[WI:.*]] = "graph.constant"() <{value = dense<{{\[\[}}1, 15], [0, 7], [8, 9], [2, 3]]> : tensor<4x2xui4>}>
// CHECK-NEXT: %[[W:.*]] = "graph.DequantizeLinear"(%[[WI]], %[[S]], %[[Z]]) <{axis = 0 : i64, block_size = 2 : i64}> : (tensor<4x2xui4>, tensor<2x2xf32>, tensor<2x2xui4>) -> tensor<4x2xf32>
// CHECK-NEXT: "graph.MatMul"(%arg0, %[[W]])

// BACK-LABEL: func.func @blocked
// BACK-NEXT: %0 = "graph.constant"() <{value = dense<{{\[\[}}1, -1], [0, 7], [-8, -7], [2, 3]]> : tensor<4x2xi4>}> : () -> tensor<4x2xi4>
// BACK-NEXT: %1 = quant.scast %0 : tensor<4x2xi4> to tensor<4x2x!quant.uniform<u4:f32:{0:2, 1:1}, {{\{\{}}5.000000e-01:7, 2.500000e-01:3}, {1.000000e+00:7, 2.000000e+00:1}}>>
// BACK-NEXT: %2 = quant.dcast %1
// BACK-NEXT: %3 = "graph.MatMul"(%arg0, %2)
func.func @blocked(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %wi = "graph.constant"() <{value = dense<[[1, -1], [0, 7], [-8, -7], [2, 3]]> : tensor<4x2xi4>}> : () -> tensor<4x2xi4>
  %ws = quant.scast %wi : tensor<4x2xi4> to tensor<4x2x!quant.uniform<u4:f32:{0:2,1:1}, {{0.5:7,0.25:3},{1.0:7,2.0:1}}>>
  %w = quant.dcast %ws : tensor<4x2x!quant.uniform<u4:f32:{0:2,1:1}, {{0.5:7,0.25:3},{1.0:7,2.0:1}}>> to tensor<4x2xf32>
  %m = "graph.MatMul"(%x, %w) : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}
