// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-nms-to-loops))'

// max_output_boxes_per_class is one integer.
func.func @two_maxima(%b: tensor<1x4x4xf32>, %s: tensor<1x1x4xf32>, %m: tensor<2xi64>) -> tensor<?x3xi64> {
  %n = "graph.none"() : () -> none
  // expected-error @+1 {{cannot lower graph.NonMaxSuppression: max_output_boxes_per_class must hold one i64, not 2 of i64}}
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %n, %n) : (tensor<1x4x4xf32>, tensor<1x1x4xf32>, tensor<2xi64>, none, none) -> tensor<?x3xi64>
  return %y : tensor<?x3xi64>
}

// -----

// Only the function may return the result of run-time length; an op may not read it.
func.func @read_inside(%b: tensor<1x4x4xf32>, %s: tensor<1x1x4xf32>) -> tensor<?x3xi64> {
  %m = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "graph.none"() : () -> none
  // expected-error @+1 {{cannot lower graph.NonMaxSuppression: its result has a run-time number of rows, so only the function may return it; no op may read it}}
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %n, %n) : (tensor<1x4x4xf32>, tensor<1x1x4xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  %z = "graph.Identity"(%y) : (tensor<?x3xi64>) -> tensor<?x3xi64>
  return %z : tensor<?x3xi64>
}

// -----

func.func @dynamic_boxes(%b: tensor<1x?x4xf32>, %s: tensor<1x1x?xf32>) -> tensor<?x3xi64> {
  %m = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "graph.none"() : () -> none
  // expected-error @+1 {{cannot lower graph.NonMaxSuppression: boxes must be a tensor of static shape}}
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %n, %n) : (tensor<1x?x4xf32>, tensor<1x1x?xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  return %y : tensor<?x3xi64>
}
