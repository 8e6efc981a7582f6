// RUN: nart-opt %S/Inputs/new_ops.onnx | filecheck %s

// Opset-28 models import as they are: operators newer than opset 21, int2 in Cast, and
// sequences through Identity. Inputs/gen_new_ops.py writes the model.
// CHECK: onnx.source_opset = 28 : i64
// CHECK: "graph.RMSNormalization"(%arg0, {{.*}}) <{axis = -1 : i64}> : (tensor<1x3x4xf32>, tensor<4xf32>) -> tensor<1x3x4xf32>
// CHECK: "graph.Attention"({{.*}}) <{kv_num_heads = 2 : i64, q_num_heads = 2 : i64}>
// CHECK: "graph.Cast"({{.*}}) <{to = 26 : i64}> : {{.*}} -> tensor<1x3x4xi2>
// CHECK: "graph.SequenceConstruct"(%arg0, %arg0) : {{.*}} -> !graph.seq<tensor<1x3x4xf32>>
// CHECK: "graph.Identity"({{.*}}) : (!graph.seq<tensor<1x3x4xf32>>) -> !graph.seq<tensor<1x3x4xf32>>
// CHECK: "graph.SequenceLength"({{.*}}) : (!graph.seq<tensor<1x3x4xf32>>) -> tensor<i64>
