// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply,quant-lower-qnn)' --split-input-file | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{scheme=pow2},quant-lower-qnn{scheme=pow2})' --split-input-file | filecheck %s --check-prefix=POW2
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply,quant-lower-qnn,func.func(quant-lint))' --split-input-file --verify-diagnostics
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{scheme=tensorrt},quant-lower-qnn{scheme=tensorrt})' --split-input-file | filecheck %s --check-prefix=TRT
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply{scheme=w4-group},quant-lower-qnn,func.func(quant-lint))' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=W4

// quant-apply writes the QDQ form from calibrated float IR; quant-lower-qnn turns each
// dcast -> float op -> qcast chain into one qnn op on the quantized values.

// Conv + Relu: qnn.conv with the i32 bias and the relu fused; the quantized input, weight and
// bias stay, the float Conv, Relu and the dcasts go.
// CHECK-LABEL: func.func @conv_relu
// CHECK-NEXT: %[[X:.*]] = quant.qcast %arg0
// CHECK-NEXT: %[[WI:.*]] = "graph.constant"() <{value = dense<{{\[\[\[\[}}127]]], {{\[\[\[}}-127]]]]> : tensor<2x1x1x1xi8>}>
// CHECK-NEXT: %[[W:.*]] = quant.scast %[[WI]]
// CHECK-NEXT: %[[BI:.*]] = "graph.constant"() <{value = dense<[16192, -8096]> : tensor<2xi32>}>
// CHECK-NEXT: %[[B:.*]] = quant.scast %[[BI]]
// CHECK-NEXT: %[[C:.*]] = qnn.conv %[[X]], %[[W]], %[[B]] act<relu> : (tensor<1x1x2x2x!quant.uniform<u8:f32, 3.92156862745098e-03>>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {3.937007874015748e-03,1.5748031496062992e-02}>>, tensor<2x!quant.uniform<i32:f32:0, {1.543924656476764e-05,6.175698625907056e-05}>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 2.9411764705882353e-03>>
// CHECK-NEXT: %[[D:.*]] = quant.dcast %[[C]]
// CHECK-NEXT: return %[[D]]
// The pow2 scheme rounds half up: the rounding comes from the scheme.
// TensorRT's scheme keeps the bias float in the QDQ form; the lowering stores it as i32 at input
// scale × weight scale (0.25 / 3.1000062000123996e-05 = 8064.500000000001 in f64: 8065;
// -0.5 / 1.2400025e-04 = -4032.25: -4032).
// TRT-LABEL: func.func @conv_relu
// TRT: %[[BI:.*]] = "graph.constant"() <{value = dense<[8065, -4032]> : tensor<2xi32>}>
// TRT-NEXT: %[[B:.*]] = quant.scast %[[BI]] : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {3.1000062000123996e-05,1.2400024800049599e-04}>>
// TRT-NEXT: qnn.conv %{{.*}}, %{{.*}}, %[[B]] act<relu> :
// POW2-LABEL: func.func @conv_relu
// POW2: qnn.conv %{{.*}}, %{{.*}}, %{{.*}} act<relu> round<half_up> :
// expected-remark @+1 {{quant-lint: 0 float compute ops read dequantized values (0 edges)}}
func.func @conv_relu(%x: tensor<1x1x2x2xf32> {onnx.name = "x", quant.calibrated = !quant.calibrated<f32<0.0:1.0>>}) -> tensor<1x2x2x2xf32> {
  %w = "graph.constant"() <{value = dense<[[[[0.5]]], [[[-2.0]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %b = "graph.constant"() <{value = dense<[0.25, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "graph.Conv"(%x, %w, %b) <{kernel_shape = array<i64: 1, 1>}> {quant.calibrated = [!quant.calibrated<f32<-2.5:0.75>>]} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = "graph.Relu"(%c) {quant.calibrated = [!quant.calibrated<f32<0.0:0.75>>]} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %r : tensor<1x2x2x2xf32>
}

// -----

// Gemm with transB: the [N, K] weight is transposed at compile time to [K, N] and its per-channel
// parameters move from axis 0 to axis 1; Clip(0, 6) fuses as relu6 (its bounds stay exact).
// CHECK-LABEL: func.func @gemm_relu6
// CHECK-NEXT: %[[X:.*]] = quant.qcast %arg0
// CHECK-NEXT: %[[BI:.*]] = "graph.constant"() <{value = dense<[8096, -4048]> : tensor<2xi32>}>
// CHECK-NEXT: %[[B:.*]] = quant.scast %[[BI]]
// CHECK-NEXT: %[[WI:.*]] = "graph.constant"() <{value = dense<{{\[\[}}127, 64], [-64, 127], [32, -127]]> : tensor<3x2xi8>}>
// CHECK-NEXT: %[[W:.*]] = quant.scast %[[WI]] : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32:1, {7.874015748031496e-03,7.874015748031496e-03}>>
// CHECK-NEXT: qnn.matmul %[[X]], %[[W]], %[[B]] act<relu6> :
// CHECK-NOT: graph.
// CHECK: return
// POW2-LABEL: func.func @gemm_relu6
// POW2: qnn.matmul {{.*}} act<relu6> round<half_up> :
// expected-remark @+1 {{quant-lint: 0 float compute ops read dequantized values (0 edges)}}
func.func @gemm_relu6(%x: tensor<1x3xf32> {quant.calibrated = !quant.calibrated<f32<-1.0:1.0>>}) -> tensor<1x2xf32> {
  %w = "graph.constant"() <{value = dense<[[1.0, -0.5, 0.25], [0.5, 1.0, -1.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %b = "graph.constant"() <{value = dense<[0.5, -0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %min = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %max = "graph.constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %g = "graph.Gemm"(%x, %w, %b) <{transB = 1 : i64}> {quant.calibrated = [!quant.calibrated<f32<-2.0:2.0>>]} : (tensor<1x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %r = "graph.Clip"(%g, %min, %max) {quant.calibrated = [!quant.calibrated<f32<0.0:2.0>>]} : (tensor<1x2xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}

// -----

// Add (+ Relu), Mul, Concat (negative axis made positive) and AveragePool.
// CHECK-LABEL: func.func @add_mul_concat_pool
// CHECK-NEXT: %[[Y:.*]] = quant.qcast %arg1
// CHECK-NEXT: %[[X:.*]] = quant.qcast %arg0
// CHECK-NEXT: %[[A:.*]] = qnn.add %[[X]], %[[Y]] act<relu> :
// CHECK-NEXT: %[[M:.*]] = qnn.mul %[[X]], %[[Y]] :
// CHECK-NEXT: %[[C:.*]] = qnn.concat %[[A]], %[[M]] {axis = 1 : i64} :
// CHECK-NEXT: %[[P:.*]] = qnn.avg_pool %[[C]] kernel [2, 2] strides [2, 2] :
// CHECK-NEXT: %[[D:.*]] = quant.dcast %[[P]]
// CHECK-NEXT: return %[[D]]
// POW2-LABEL: func.func @add_mul_concat_pool
// POW2: qnn.add {{.*}} act<relu> round<half_up> :
// POW2: qnn.mul {{.*}} round<half_up> :
// POW2: qnn.concat {{.*}} round<half_up> {axis = 1 : i64} :
// POW2: qnn.avg_pool {{.*}} round<half_up> :
// expected-remark @+1 {{quant-lint: 0 float compute ops read dequantized values (0 edges)}}
func.func @add_mul_concat_pool(%x: tensor<1x2x4x4xf32> {quant.calibrated = !quant.calibrated<f32<-1.0:1.0>>}, %y: tensor<1x2x4x4xf32> {quant.calibrated = !quant.calibrated<f32<-2.0:2.0>>}) -> tensor<1x4x2x2xf32> {
  %a = "graph.Add"(%x, %y) {quant.calibrated = [!quant.calibrated<f32<-3.0:3.0>>]} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = "graph.Relu"(%a) {quant.calibrated = [!quant.calibrated<f32<0.0:3.0>>]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m = "graph.Mul"(%x, %y) {quant.calibrated = [!quant.calibrated<f32<-2.0:2.0>>]} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = "graph.Concat"(%r, %m) <{axis = -3 : i64}> {quant.calibrated = [!quant.calibrated<f32<-2.0:3.0>>]} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = "graph.AveragePool"(%c) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {quant.calibrated = [!quant.calibrated<f32<-1.0:2.0>>]} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  return %p : tensor<1x4x2x2xf32>
}

// -----

// MaxPool keeps the Relu's parameters and lowers; a standalone Relu on a quantized input is a
// table; Flatten (data movement) stays between a dcast and a qcast; Softplus, which the scheme
// does not cover, stays float, and the lint says why.
// CHECK-LABEL: func.func @pool_and_float
// CHECK-NEXT: %[[X:.*]] = quant.qcast %arg0
// CHECK-NEXT: %[[R:.*]] = qnn.lut %[[X]] table [0, 0,
// CHECK-NEXT: %[[P:.*]] = qnn.max_pool %[[R]] kernel [2, 2] strides [2, 2] :
// CHECK-NEXT: %[[PD:.*]] = quant.dcast %[[P]]
// CHECK-NEXT: "graph.Flatten"(%[[PD]])
// CHECK: "graph.Softplus"
// expected-remark @+1 {{quant-lint: 1 float compute op reads dequantized values (1 edge)}}
func.func @pool_and_float(%x: tensor<1x2x4x4xf32> {quant.calibrated = !quant.calibrated<f32<-1.0:1.0>>}) -> tensor<1x8xf32> {
  %r = "graph.Relu"(%x) {quant.calibrated = [!quant.calibrated<f32<0.0:4.0>>]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p:2 = "graph.MaxPool"(%r) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {quant.calibrated = [!quant.calibrated<f32<0.0:3.0>>, unit]} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, none)
  %f = "graph.Flatten"(%p#0) <{axis = 1 : i64}> {quant.calibrated = [!quant.calibrated<f32<0.0:3.0>>]} : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  // expected-warning @+2 {{'graph.Softplus' computes in float on dequantized operand #0 ('result #0 of 'graph.Flatten'')}}
  // expected-remark @+1 {{'graph.Softplus' stays float: its result is not quantized (no quant.qcast reads it), so no qnn op can produce it}}
  %s = "graph.Softplus"(%f) {quant.calibrated = [!quant.calibrated<f32<0.0:3.1>>]} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %s : tensor<1x8xf32>
}

// -----

// A standalone LeakyRelu on a quantized input is a table; Clip(-0.5, 0.5) after an Add fuses as
// act<clip> with its bounds; GlobalAveragePool is an avg_pool over the whole plane; Gemm without
// transB keeps its [K, N] weight, quantized per column.
// CHECK-LABEL: func.func @clip_global_gemm
// CHECK-NEXT: %[[X:.*]] = quant.qcast %arg0
// CHECK-NEXT: %[[L:.*]] = qnn.lut %[[X]] table [0, 0, 1, 2, 2, 3,
// CHECK-NEXT: %[[A:.*]] = qnn.add %[[L]], %[[X]] act<clip> bounds(-5.000000e-01, 5.000000e-01) :
// CHECK-NEXT: %[[P:.*]] = qnn.avg_pool %[[A]] kernel [2, 2] :
// CHECK-NEXT: %[[PD:.*]] = quant.dcast %[[P]]
// CHECK-NEXT: %[[F:.*]] = "graph.Flatten"(%[[PD]])
// CHECK-NEXT: %[[FQ:.*]] = quant.qcast %[[F]]
// CHECK: %[[W:.*]] = quant.scast %{{.*}} : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8:f32:1, {7.874015748031496e-03,1.5748031496062992e-02}>>
// CHECK: qnn.matmul %[[FQ]], %[[W]], %{{.*}} :
// expected-remark @+1 {{quant-lint: 0 float compute ops read dequantized values (0 edges)}}
func.func @clip_global_gemm(%x: tensor<1x2x2x2xf32> {quant.calibrated = !quant.calibrated<f32<-1.0:1.0>>}) -> tensor<1x2xf32> {
  %lo = "graph.constant"() <{value = dense<-0.5> : tensor<f32>}> : () -> tensor<f32>
  %hi = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %l = "graph.LeakyRelu"(%x) <{alpha = 0.5 : f32}> {quant.calibrated = [!quant.calibrated<f32<-0.5:1.0>>]} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %a = "graph.Add"(%l, %x) {quant.calibrated = [!quant.calibrated<f32<-2.0:2.0>>]} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = "graph.Clip"(%a, %lo, %hi) {quant.calibrated = [!quant.calibrated<f32<-0.5:0.5>>]} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %g = "graph.GlobalAveragePool"(%c) {quant.calibrated = [!quant.calibrated<f32<-0.5:0.5>>]} : (tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32>
  %f = "graph.Flatten"(%g) <{axis = 1 : i64}> {quant.calibrated = [!quant.calibrated<f32<-0.5:0.5>>]} : (tensor<1x2x1x1xf32>) -> tensor<1x2xf32>
  %w = "graph.constant"() <{value = dense<[[1.0, -1.0], [0.5, 2.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %b = "graph.constant"() <{value = dense<[0.5, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %m = "graph.Gemm"(%f, %w, %b) {quant.calibrated = [!quant.calibrated<f32<-2.0:2.0>>]} : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %m : tensor<1x2xf32>
}

// -----

// What stays float: LeakyRelu after a Conv does not fuse; with w4-group the activations are float
// (weight-only).
// W4: remark: 'graph.Gemm' stays float: weight-only quantization: its activations are float, so it computes in float on the dequantized weights
// CHECK-LABEL: func.func @stays_float
// CHECK: "graph.Conv"
// CHECK: "graph.LeakyRelu"
// expected-remark @+1 {{quant-lint: 1 float compute op reads dequantized values (3 edges)}}
func.func @stays_float(%x: tensor<1x1x2x2xf32> {quant.calibrated = !quant.calibrated<f32<0.0:1.0>>}) -> tensor<1x2x2x2xf32> {
  %w = "graph.constant"() <{value = dense<[[[[0.5]]], [[[-2.0]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %b = "graph.constant"() <{value = dense<[0.25, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  // expected-warning @+2 {{'graph.Conv' computes in float on dequantized operands #0 ('argument #0'), #1 ('result #0 of 'graph.constant''), #2 ('result #0 of 'graph.constant'')}}
  // expected-remark @+1 {{'graph.Conv' stays float: 'graph.LeakyRelu' after 'graph.Conv' does not fuse into qnn ops (they fuse relu, relu6 and clip)}}
  %c = "graph.Conv"(%x, %w, %b) <{kernel_shape = array<i64: 1, 1>}> {quant.calibrated = [!quant.calibrated<f32<-2.5:0.75>>]} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = "graph.LeakyRelu"(%c) {quant.calibrated = [!quant.calibrated<f32<-0.1:0.75>>]} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %r : tensor<1x2x2x2xf32>
}
