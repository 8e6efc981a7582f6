// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{mode=dynamic})' --split-input-file | filecheck %s

// Dynamic mode needs no calibration: the weight becomes i8 per output column, the activation
// is quantized at run time, and the product is rescaled by input scale times weight scale
// (ONNX Runtime's quantize_dynamic: MatMulInteger + Cast + Mul).
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[WQ:.*]] = "graph.constant"() <{value = dense<{{\[\[}}127, -127], [64, 42]]> : tensor<2x2xi8>}>
// CHECK-DAG: %[[WZ:.*]] = "graph.constant"() <{value = dense<0> : tensor<2xi8>}>
// CHECK-DAG: %[[WS:.*]] = "graph.constant"() <{value = dense<[7.874016e-03, 2.3622047e-02]> : tensor<2xf32>}>
// CHECK: %[[Q:.*]]:3 = "graph.DynamicQuantizeLinear"(%arg0) : (tensor<3x2xf32>) -> (tensor<3x2xui8>, tensor<f32>, tensor<ui8>)
// CHECK-NEXT: %[[ACC:.*]] = "graph.MatMulInteger"(%[[Q]]#0, %[[WQ]], %[[Q]]#2, %[[WZ]]) : (tensor<3x2xui8>, tensor<2x2xi8>, tensor<ui8>, tensor<2xi8>) -> tensor<3x2xi32>
// CHECK-NEXT: %[[F:.*]] = "graph.Cast"(%[[ACC]]) <{to = 1 : i64}> : (tensor<3x2xi32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[S:.*]] = "graph.Mul"(%[[Q]]#1, %[[WS]]) : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[Y:.*]] = "graph.Mul"(%[[F]], %[[S]]) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = "graph.constant"() <{value = dense<[[1.0, -3.0], [0.5, 1.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %y = "graph.MatMul"(%x, %w) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Gemm with transB: the weight is transposed at compile time and the bias added after.
// CHECK-LABEL: func.func @gemm
// CHECK: "graph.MatMulInteger"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<2xi8>) -> tensor<1x2xi32>
// CHECK: "graph.Mul"(%{{.*}}, %{{.*}}) : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[Y:.*]] = "graph.Mul"
// CHECK-NEXT: %[[B:.*]] = "graph.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}>
// CHECK-NEXT: %[[Z:.*]] = "graph.Add"(%[[Y]], %[[B]])
// CHECK-NEXT: return %[[Z]]
func.func @gemm(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  %w = "graph.constant"() <{value = dense<[[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %b = "graph.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = "graph.Gemm"(%x, %w, %b) <{transB = 1 : i64}> : (tensor<1x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
