// RUN: nart-opt %S/Inputs/quant.onnx | filecheck %s

// Quantized ops: uint8 is ui8, int8 is i8; absent optional inputs are graph.none values.
// CHECK: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK: "graph.QuantizeLinear"(%arg0, {{.*}}) : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xui8>
// CHECK: "graph.QLinearConv"({{.*}}, %[[NONE]]) <{pads = array<i64: 1, 1, 1, 1>}> : {{.*}} -> tensor<1x4x5x5xui8>
// CHECK: "graph.DequantizeLinear"({{.*}}) : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x5x5xf32>
// CHECK: "graph.DynamicQuantizeLinear"(%arg1) : (tensor<3x5xf32>) -> (tensor<3x5xui8>, tensor<f32>, tensor<ui8>)
// CHECK: "graph.MatMulInteger"({{.*}}) -> tensor<3x4xi32>
// CHECK: "graph.QLinearMatMul"({{.*}}) -> tensor<3x4xui8>
// CHECK: "graph.ConvInteger"({{.*}}) -> tensor<1x1x1x1xi32>
