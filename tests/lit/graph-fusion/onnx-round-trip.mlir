// The round trip: recognize in a model exported the way torch.onnx.export writes it (opset 13),
// write ONNX with -o, read it back. The written model needs opset 25 (Attention), which
// ONNX Runtime 1.32 runs (passes/nart-graph-fusion/tests/models.rs runs it there).
// RUN: nart-opt %S/../../models/decomposed_transformer/model.onnx --pass-pipeline='builtin.module(func.func(graph-recognize, graph-fuse-activation))' -o %t.onnx
// RUN: nart-opt %t.onnx | filecheck %s --implicit-check-not=graph.Erf --implicit-check-not=graph.Tanh --implicit-check-not=graph.Softmax --implicit-check-not=graph.ReduceMean --implicit-check-not=graph.Sqrt

// CHECK-LABEL: func.func @main_graph
// CHECK: "graph.LayerNormalization"
// CHECK: "graph.Attention"
// CHECK: "graph.LayerNormalization"
// CHECK: "graph.Gelu"
// CHECK-NOT: approximate
// CHECK: "graph.LayerNormalization"
// CHECK: "graph.Attention"
// CHECK: "graph.LayerNormalization"
// CHECK: "graph.Gelu"{{.*}}approximate = "tanh"
// CHECK: "graph.LayerNormalization"
// CHECK: return
