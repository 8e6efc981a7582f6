// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply)' --split-input-file | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{overrides=fc2=float,fc1=bits:4})' --split-input-file | filecheck %s --check-prefix=OVR
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{scheme=tensorrt})' --split-input-file | filecheck %s --check-prefix=TRT
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{scheme=pow2})' --split-input-file | filecheck %s --check-prefix=POW2
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{scheme=fp16})' --split-input-file | filecheck %s --check-prefix=FP16

// Conv + Relu with calibrated ranges. onnx-qdq: the input gets a u8 QDQ pair (range [0, 1]:
// scale 1/255), the weight becomes i8 storage per output channel (symmetric: 0.5 and -2.0 are
// 127 * 0.5/127 and -127 * 2/127: both ends of a symmetric range are codes), the bias i32 at input scale times weight scale, and the
// Relu is fused: no QDQ between Conv and Relu, one after the Relu (range [0, 0.75]: 0.75/255).
// CHECK-LABEL: func.func @conv_relu
// CHECK-NEXT: %[[Q:.*]] = quant.qcast %arg0 : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<u8:f32, 3.92156862745098e-03>>
// CHECK-NEXT: %[[X:.*]] = quant.dcast %[[Q]] : tensor<1x1x2x2x!quant.uniform<u8:f32, 3.92156862745098e-03>> to tensor<1x1x2x2xf32>
// CHECK-NEXT: %[[WI:.*]] = "graph.constant"() <{value = dense<{{\[\[\[\[}}127]]], {{\[\[\[}}-127]]]]> : tensor<2x1x1x1xi8>}>
// CHECK-NEXT: %[[WQ:.*]] = quant.scast %[[WI]] : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!quant.uniform<i8:f32:0, {3.937007874015748e-03,1.5748031496062992e-02}>>
// CHECK-NEXT: %[[W:.*]] = quant.dcast %[[WQ]]
// CHECK-NEXT: %[[BI:.*]] = "graph.constant"() <{value = dense<[16192, -8096]> : tensor<2xi32>}>
// CHECK-NEXT: %[[BQ:.*]] = quant.scast %[[BI]] : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {1.543924656476764e-05,6.175698625907056e-05}>>
// CHECK-NEXT: %[[B:.*]] = quant.dcast %[[BQ]]
// CHECK-NEXT: %[[C:.*]] = "graph.Conv"(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT: %[[R:.*]] = "graph.Relu"(%[[C]])
// CHECK-NEXT: %[[RQ:.*]] = quant.qcast %[[R]] : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!quant.uniform<u8:f32, 2.9411764705882353e-03>>
// CHECK-NEXT: %[[RD:.*]] = quant.dcast %[[RQ]]
// CHECK-NEXT: return %[[RD]]

// TensorRT: s8 symmetric narrow range everywhere, the bias stays float.
// TRT-LABEL: func.func @conv_relu
// TRT: quant.qcast %arg0 : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<i8<-127:127>:f32, 7.874015748031496e-03>>
// TRT: %[[B:.*]] = "graph.constant"() <{value = dense<[2.500000e-01, -5.000000e-01]> : tensor<2xf32>}>
// TRT: "graph.constant"() <{value = dense<{{\[\[\[\[}}127]]], {{\[\[\[}}-127]]]]> : tensor<2x1x1x1xi8>}>
// TRT: quant.scast %{{.*}} : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!quant.uniform<i8<-127:127>:f32:0, {3.937007874015748e-03,1.5748031496062992e-02}>>
// TRT: "graph.Conv"(%{{.*}}, %{{.*}}, %[[B]])

// Power-of-two scales: 1/127 rounds up to 2^-6, 2/127 to 2^-5, and the bias scale is
// their product 2^-11.
// POW2-LABEL: func.func @conv_relu
// POW2: !quant.uniform<i8:f32, 1.562500e-02>
// POW2: !quant.uniform<i8:f32, 3.125000e-02>
// POW2: !quant.uniform<i32:f32, 4.8828125e-04>
// POW2: "graph.Relu"
// POW2-NEXT: quant.qcast %{{.*}} : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!quant.uniform<i8:f32, 7.812500e-03>>

// fp16: weights stored as f16 and cast back, the Conv's input and output cast through f16.
// FP16-LABEL: func.func @conv_relu
// FP16-NEXT: %[[D:.*]] = "graph.Cast"(%arg0) <{to = 10 : i64}> : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf16>
// FP16-NEXT: %[[U:.*]] = "graph.Cast"(%[[D]]) <{to = 1 : i64}>
// FP16-NEXT: "graph.constant"() <{value = dense<{{.*}}> : tensor<2x1x1x1xf16>}>
// FP16-NEXT: "graph.Cast"
// FP16-NEXT: "graph.constant"() <{value = dense<[2.500000e-01, -5.000000e-01]> : tensor<2xf16>}>
// FP16-NEXT: "graph.Cast"
// FP16-NEXT: %[[C:.*]] = "graph.Conv"(%[[U]],
// FP16-NEXT: "graph.Cast"(%[[C]]) <{to = 10 : i64}>
func.func @conv_relu(%x: tensor<1x1x2x2xf32> {onnx.name = "x", quant.calibrated = !quant.calibrated<f32<0.0:1.0>>}) -> tensor<1x2x2x2xf32> {
  %w = "graph.constant"() <{value = dense<[[[[0.5]]], [[[-2.0]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %b = "graph.constant"() <{value = dense<[0.25, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "graph.Conv"(%x, %w, %b) <{kernel_shape = array<i64: 1, 1>}> {quant.calibrated = [!quant.calibrated<f32<-2.5:0.75>>]} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = "graph.Relu"(%c) {quant.calibrated = [!quant.calibrated<f32<0.0:0.75>>]} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %r : tensor<1x2x2x2xf32>
}

// -----

// Data movement keeps its input's parameters: MaxPool and Flatten reuse the Relu's scale.
// An op the scheme does not cover (Softplus) is left alone; it reads the dequantized value.
// CHECK-LABEL: func.func @pass_through
// CHECK: %[[R:.*]] = "graph.Relu"
// CHECK-NEXT: %[[RQ:.*]] = quant.qcast %[[R]] : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<u8:f32, 1.568627450980392e-02>>
// CHECK-NEXT: %[[RD:.*]] = quant.dcast %[[RQ]]
// CHECK-NEXT: %[[P:.*]]:2 = "graph.MaxPool"(%[[RD]])
// CHECK-NEXT: %[[PQ:.*]] = quant.qcast %[[P]]#0 : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!quant.uniform<u8:f32, 1.568627450980392e-02>>
// CHECK-NEXT: %[[PD:.*]] = quant.dcast %[[PQ]]
// CHECK-NEXT: %[[F:.*]] = "graph.Flatten"(%[[PD]])
// CHECK-NEXT: %[[FQ:.*]] = quant.qcast %[[F]] : tensor<1x8xf32> to tensor<1x8x!quant.uniform<u8:f32, 1.568627450980392e-02>>
// CHECK-NEXT: %[[FD:.*]] = quant.dcast %[[FQ]]
// CHECK-NEXT: "graph.Softplus"(%[[FD]])
func.func @pass_through(%x: tensor<1x2x4x4xf32> {quant.calibrated = !quant.calibrated<f32<-1.0:1.0>>}) -> tensor<1x8xf32> {
  %r = "graph.Relu"(%x) {quant.calibrated = [!quant.calibrated<f32<0.0:4.0>>]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p:2 = "graph.MaxPool"(%r) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {quant.calibrated = [!quant.calibrated<f32<0.0:3.0>>, unit]} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, none)
  %f = "graph.Flatten"(%p#0) <{axis = 1 : i64}> {quant.calibrated = [!quant.calibrated<f32<0.0:3.0>>]} : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %s = "graph.Softplus"(%f) {quant.calibrated = [!quant.calibrated<f32<0.0:3.1>>]} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %s : tensor<1x8xf32>
}

// -----

// Per-layer overrides by op name: 'fc2' stays float (it then reads a dequantized value, which
// quant-lint reports), 'fc1' gets 4-bit weights and activations.
// OVR-LABEL: func.func @overrides
// OVR: quant.scast %{{.*}} : tensor<4x2xi4> to tensor<4x2x!quant.uniform<i4:f32:1, {1.4285714285714285e-01,4.2857142857142855e-01}>>
// OVR: %[[A:.*]] = "graph.MatMul"
// OVR-NEXT: %[[AQ:.*]] = quant.qcast %[[A]] : tensor<1x2xf32> to tensor<1x2x!quant.uniform<u4:f32, 1.3333333333333333e-01>>
// OVR-NEXT: %[[AD:.*]] = quant.dcast %[[AQ]]
// OVR-NEXT: "graph.MatMul"(%[[AD]], %{{.*}}) {{.*}} : (tensor<1x2xf32>, tensor<2x2xf32>)
// OVR-NOT: quant.
// OVR: return
func.func @overrides(%x: tensor<1x4xf32> {quant.calibrated = !quant.calibrated<f32<0.0:1.0>>}) -> tensor<1x2xf32> {
  %w1 = "graph.constant"() <{value = dense<[[1.0, -3.0], [0.5, 0.5], [0.25, 1.0], [-1.0, 2.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %w2 = "graph.constant"() <{value = dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %a = "graph.MatMul"(%x, %w1) {quant.calibrated = [!quant.calibrated<f32<0.0:2.0>>]} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32> loc("fc1")
  %b = "graph.MatMul"(%a, %w2) {quant.calibrated = [!quant.calibrated<f32<0.0:2.0>>]} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> loc("fc2")
  return %b : tensor<1x2xf32>
}
