// RUN: nart-opt %S/Inputs/mlp.onnx | filecheck %s

// An ONNX model imports as one func.func whose arguments are the graph inputs; the symbolic
// batch dimension is `?` with its name kept in `graph.dim_names`, and initializers are
// `graph.constant`s.
// CHECK: module attributes {{{.*}}onnx.producer_name = "nart-make-models"
// CHECK: func.func @main_graph(%arg0: tensor<?x4xf32> {{.*}}graph.dim_names = ["batch", ""], onnx.name = "x"}) -> (tensor<?x3xf32>
// CHECK: %[[W1:.*]] = "graph.constant"() <{value = dense<{{.*}}> : tensor<4x8xf32>}>
// CHECK: %[[B1:.*]] = "graph.constant"() <{value = dense<{{.*}}> : tensor<8xf32>}>
// CHECK: %[[H0:.*]] = "graph.MatMul"(%arg0, %[[W1]]) : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: %[[H1:.*]] = "graph.Add"(%[[H0]], %[[B1]]) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: %[[H2:.*]] = "graph.Relu"(%[[H1]]) : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: return %{{.*}} : tensor<?x3xf32>
