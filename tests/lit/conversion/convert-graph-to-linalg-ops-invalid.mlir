// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))'

// A constant Gather index outside [-n, n) is refused at compile time (run-time indices are
// clamped instead).
func.func @gather_out_of_range(%d: tensor<5x3xf32>) -> tensor<2x3xf32> {
  %i = "graph.constant"() <{value = dense<[1, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+2 {{failed to legalize operation 'graph.Gather'}}
  // expected-note @+1 {{index 5 is out of range for axis 0 of size 5}}
  %0 = "graph.Gather"(%d, %i) <{axis = 0 : i64}> : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_negative_out_of_range(%d: tensor<5x3xf32>) -> tensor<3xf32> {
  %i = "graph.constant"() <{value = dense<-6> : tensor<i64>}> : () -> tensor<i64>
  // expected-error @+2 {{failed to legalize operation 'graph.Gather'}}
  // expected-note @+1 {{index -6 is out of range for axis 0 of size 5}}
  %0 = "graph.Gather"(%d, %i) <{axis = 0 : i64}> : (tensor<5x3xf32>, tensor<i64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Axes known only at run time are read from the shapes with keepdims (pools_ops.rs); without
// keepdims they are not.
func.func @reduce_axes_at_run_time(%x: tensor<2x4xf32>, %a: tensor<1xi64>) -> tensor<2xf32> {
  // expected-error @+2 {{failed to legalize operation 'graph.ReduceSum'}}
  // expected-note @+1 {{the axes are not a constant}}
  %0 = "graph.ReduceSum"(%x, %a) <{keepdims = 0 : i64}> : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_starts_at_run_time(%x: tensor<8xf32>, %s: tensor<1xi64>) -> tensor<4xf32> {
  %e = "graph.constant"() <{value = dense<8> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.Slice'}}
  // expected-note @+1 {{the starts are not a constant}}
  %0 = "graph.Slice"(%x, %s, %e, %n, %n) : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Reflect, edge and wrap padding lower (keya_ops.rs) except on an empty axis, which has
// nothing to repeat.
func.func @pad_reflect_empty_axis(%x: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %p = "graph.constant"() <{value = dense<[1, 0, 1, 0]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.Pad'}}
  // expected-note @+1 {{cannot reflect pad the empty axis 0}}
  %0 = "graph.Pad"(%x, %p, %n, %n) <{mode = "reflect"}> : (tensor<0x3xf32>, tensor<4xi64>, none, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Pow of integers is lowered (pools_ops.rs), but not to an unsigned exponent.
func.func @pow_of_integers_to_unsigned(%x: tensor<4xi64>, %y: tensor<4xui32>) -> tensor<4xi64> {
  // expected-error @+2 {{failed to legalize operation 'graph.Pow'}}
  // expected-note @+1 {{the exponent of Pow is neither a float nor a signless integer of 2 to 64 bits}}
  %0 = "graph.Pow"(%x, %y) : (tensor<4xi64>, tensor<4xui32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @cast_to_float8(%x: tensor<2xf32>) -> tensor<2xf8E4M3FN> {
  // expected-error @+2 {{failed to legalize operation 'graph.Cast'}}
  // expected-note @+1 {{a cast from 'f32' to 'f8E4M3FN' is not lowered}}
  %0 = "graph.Cast"(%x) <{to = 17 : i64}> : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
  return %0 : tensor<2xf8E4M3FN>
}
