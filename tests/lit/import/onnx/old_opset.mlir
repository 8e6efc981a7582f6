// RUN: nart-opt %S/Inputs/old_opset.onnx | filecheck %s

// Opset-9 nodes are upgraded to opset 28: attributes that became inputs turn into constants,
// Upsample becomes Resize with the old coordinate mapping.
// CHECK: onnx.source_opset = 9 : i64
// CHECK: %[[NONE:.*]] = "graph.none"() : () -> none
// CHECK: %[[STARTS:.*]] = "graph.constant"() <{value = dense<[0, 1]> : tensor<2xi64>}>
// CHECK: %[[ENDS:.*]] = "graph.constant"() <{value = dense<[2, 4]> : tensor<2xi64>}>
// CHECK: %[[AXES:.*]] = "graph.constant"() <{value = dense<[0, 1]> : tensor<2xi64>}>
// CHECK: "graph.Slice"(%arg0, %[[STARTS]], %[[ENDS]], %[[AXES]], %[[NONE]]) : {{.*}} -> tensor<2x3xf32>
// CHECK: "graph.Unsqueeze"({{.*}}) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<1x2x3xf32>
// CHECK: "graph.ReduceMean"({{.*}}) <{keepdims = 1 : i64}> : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
// CHECK: "graph.Clip"({{.*}}) : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: "graph.Pad"({{.*}}) : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<4x3xf32>
// CHECK: "graph.Split"({{.*}}) <{axis = 0 : i64}> : (tensor<4x3xf32>, tensor<2xi64>) -> (tensor<1x3xf32>, tensor<3x3xf32>)
// CHECK: "graph.Resize"({{.*}}) <{coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"}> : (tensor<1x3xf32>, none, tensor<2xf32>, none) -> tensor<1x6xf32>
// CHECK: "graph.TopK"({{.*}}) <{axis = 1 : i64}> : (tensor<3x3xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK-NOT: graph.Upsample
