// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(egraph-optimize))' --split-input-file | filecheck %s

// Quantized values pass through: the casts and an op on `!quant.uniform` tensors are opaque
// to the e-graph, so their values and types stay exactly as they were, while relu(relu(x)) on
// the float side folds.
// CHECK-LABEL: func.func @quantized
// CHECK-NEXT: %[[Q:.*]] = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK-NEXT: %[[O:.*]] = "test.qop"(%[[Q]], %[[Q]]) : (tensor<4x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<4x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK-NEXT: %[[D:.*]] = quant.dcast %[[O]] : tensor<4x!quant.uniform<i8:f32, 1.000000e-01>> to tensor<4xf32>
// CHECK-NEXT: %[[F:.*]] = "graph.Relu"(%[[D]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[F]], %[[Q]]
func.func @quantized(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  %0 = "test.qop"(%q, %q) : (tensor<4x!quant.uniform<i8:f32, 0.1>>, tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  %d = quant.dcast %0 : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf32>
  %2 = "graph.Relu"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.Relu"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %3, %q : tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 0.1>>
}

// -----

// An op with regions is an opaque leaf: its body is not rewritten, and the rewrites around it
// use its result in place (neg(neg(x)) before it, relu(relu(y)) after it).
// CHECK-LABEL: func.func @regions
// CHECK-NEXT: %[[IF:.*]] = "graph.If"(%arg0) ({
// CHECK-NEXT: %[[N1:.*]] = "graph.Neg"(%arg1)
// CHECK-NEXT: %[[N2:.*]] = "graph.Neg"(%[[N1]])
// CHECK-NEXT: "graph.yield"(%[[N2]])
// CHECK-NEXT: }, {
// CHECK-NEXT: "graph.yield"(%arg1)
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<2xf32>
// CHECK-NEXT: %[[R:.*]] = "graph.Relu"(%[[IF]])
// CHECK-NEXT: return %[[R]]
func.func @regions(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "graph.Neg"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "graph.If"(%c) ({
    %n = "graph.Neg"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    %m = "graph.Neg"(%n) : (tensor<2xf32>) -> tensor<2xf32>
    "graph.yield"(%m) : (tensor<2xf32>) -> ()
  }, {
    "graph.yield"(%1) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  %3 = "graph.Relu"(%2) : (tensor<2xf32>) -> tensor<2xf32>
  %4 = "graph.Relu"(%3) : (tensor<2xf32>) -> tensor<2xf32>
  return %4 : tensor<2xf32>
}

// -----

// An op with effects (here an unregistered one) stays where it is, with its operands
// computed before it; two of them are never merged into one.
// CHECK-LABEL: func.func @effects
// CHECK-NEXT: "test.print"(%arg0) : (tensor<2xf32>) -> ()
// CHECK-NEXT: "test.print"(%arg0) : (tensor<2xf32>) -> ()
// CHECK-NEXT: %[[R:.*]] = "test.read"() : () -> tensor<2xf32>
// CHECK-NEXT: %[[S:.*]] = "test.read"() : () -> tensor<2xf32>
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%[[R]], %[[S]])
// CHECK-NEXT: return %[[A]]
func.func @effects(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "graph.Neg"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  "test.print"(%1) : (tensor<2xf32>) -> ()
  "test.print"(%1) : (tensor<2xf32>) -> ()
  %r = "test.read"() : () -> tensor<2xf32>
  %s = "test.read"() : () -> tensor<2xf32>
  %z = "graph.constant"() <{value = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %a = "graph.Add"(%r, %s) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = "graph.Add"(%a, %z) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}

// -----

// Nothing to gain: the function is kept exactly as it was (same names, same order), although
// commutativity fired.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT: %[[C:.*]] = "graph.constant"
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%arg1, %arg0)
// CHECK-NEXT: %[[M:.*]] = "graph.Mul"(%[[A]], %[[C]])
// CHECK-NEXT: return %[[M]]
func.func @kept(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = "graph.Add"(%y, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "graph.Mul"(%0, %c) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// A function whose body has more than one block is left alone.
// CHECK-LABEL: func.func @blocks
// CHECK: "graph.Neg"
// CHECK: "graph.Neg"
func.func @blocks(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  cf.br ^bb1
^bb1:
  %1 = "graph.Neg"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
