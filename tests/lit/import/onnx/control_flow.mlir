// RUN: nart-opt %S/Inputs/control_flow.onnx | filecheck %s

// If and Loop bodies become regions ended by graph.yield; subgraphs use outer values directly.
// CHECK-LABEL: func.func @main_graph(%arg0: tensor<i1>
// CHECK: "graph.If"(%arg0) ({
// CHECK-NEXT: "graph.Sub"(%arg1, %{{.*}})
// CHECK-NEXT: "graph.yield"
// CHECK-NEXT: }, {
// CHECK-NEXT: "graph.Add"(%arg1, %{{.*}})
// CHECK-NEXT: "graph.yield"
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<2xf32>
// CHECK: "graph.Loop"({{.*}}) ({
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<2xf32>):
// CHECK: "graph.yield"
// CHECK: }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
