// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))'

// Refusals of the lowerings of keyb_ops.rs: each op stays, reported with the reason.

func.func @gather_elements_out_of_range(%d: tensor<5x3xf32>) -> tensor<1x3xf32> {
  %i = "graph.constant"() <{value = dense<[[0, 5, 1]]> : tensor<1x3xi64>}> : () -> tensor<1x3xi64>
  // expected-error @+2 {{failed to legalize operation 'graph.GatherElements'}}
  // expected-note @+1 {{index 5 is out of range for axis 0 of size 5}}
  %0 = "graph.GatherElements"(%d, %i) <{axis = 0 : i64}> : (tensor<5x3xf32>, tensor<1x3xi64>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @shape_of_dynamic(%x: tensor<?x3xf32>) -> tensor<2xi64> {
  // expected-error @+2 {{failed to legalize operation 'graph.Shape'}}
  // expected-note @+1 {{expected a tensor of static shape, got 'tensor<?x3xf32>'}}
  %0 = "graph.Shape"(%x) : (tensor<?x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @constant_of_shape_dynamic(%s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+2 {{failed to legalize operation 'graph.ConstantOfShape'}}
  // expected-note @+1 {{the shape operand must be a constant}}
  %0 = "graph.ConstantOfShape"(%s) : (tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @range_dynamic(%a: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>) -> tensor<?xi64> {
  // expected-error @+2 {{failed to legalize operation 'graph.Range'}}
  // expected-note @+1 {{the length is known only when start, limit and delta are constants}}
  %0 = "graph.Range"(%a, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @range_i16(%a: tensor<i16>, %l: tensor<i16>, %d: tensor<i16>) -> tensor<3xi16> {
  // expected-error @+2 {{failed to legalize operation 'graph.Range'}}
  // expected-note @+1 {{only f32, f64, i32 and i64 ranges are lowered}}
  %0 = "graph.Range"(%a, %l, %d) : (tensor<i16>, tensor<i16>, tensor<i16>) -> tensor<3xi16>
  return %0 : tensor<3xi16>
}

// -----

// A K computed at run time: the static result type is only the model's promise, and a K that
// broke it would give silently wrong results, so TopK stays with another target.
func.func @top_k_run_time_k(%x: tensor<6xf32>, %k: tensor<1xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  // expected-error @+2 {{failed to legalize operation 'graph.TopK'}}
  // expected-note @+1 {{K is computed at run time}}
  %v, %i = "graph.TopK"(%x, %k) : (tensor<6xf32>, tensor<1xi64>) -> (tensor<4xf32>, tensor<4xi64>)
  return %v, %i : tensor<4xf32>, tensor<4xi64>
}

// -----

// The same for a Range whose operands are computed at run time.
func.func @range_run_time(%a: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>) -> tensor<5xi64> {
  // expected-error @+2 {{failed to legalize operation 'graph.Range'}}
  // expected-note @+1 {{start, limit or delta is computed at run time, so the length is not known}}
  %0 = "graph.Range"(%a, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}
