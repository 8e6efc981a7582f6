// RUN: nart-opt %S/Inputs/cnn.onnx | filecheck %s

// Convolution and pooling output sizes are inferred from pads, strides and kernels.
// CHECK-LABEL: func.func @main_graph(%arg0: tensor<1x3x16x16xf32>
// CHECK: "graph.Conv"(%arg0, %{{.*}}, %{{.*}}) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK: "graph.BatchNormalization"({{.*}}) <{epsilon = {{.*}} : f32}> : {{.*}} -> (tensor<1x8x8x8xf32>, none, none)
// CHECK: "graph.MaxPool"({{.*}}) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x8x8x8xf32>) -> (tensor<1x8x4x4xf32>, none)
// CHECK: "graph.AveragePool"({{.*}}) -> tensor<1x8x4x4xf32>
// CHECK: "graph.GlobalAveragePool"({{.*}}) : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
// CHECK: "graph.Flatten"({{.*}}) : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
// CHECK: "graph.Gemm"({{.*}}) <{transB = 1 : i64}> : (tensor<1x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<1x10xf32>
// CHECK: "graph.Softmax"({{.*}}) <{axis = -1 : i64}> : (tensor<1x10xf32>) -> tensor<1x10xf32>
