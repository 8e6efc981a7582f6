// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Each case gives the message mlir-opt 22 gives.

func.func @storage_too_wide(%a: tensor<4x!quant.uniform<i33:f32, 0.1>>) { return }
// expected-error @-1 {{illegal storage type size: 33}}

// -----

// expected-error @+1 {{illegal storage min and storage max: (5:1)}}
func.func @range(%a: tensor<4x!quant.uniform<i8<5:1>:f32, 0.1>>) { return }

// -----

// expected-error @+1 {{invalid kind of type specified}}
func.func @expressed_int(%a: tensor<4x!quant.uniform<i8:i32, 0.1>>) { return }

// -----

// expected-error @+1 {{scale -1.000000e-01 out of expressed type range [1.401298e-45, 3.402823e+38]}}
func.func @negative_scale(%a: tensor<4x!quant.uniform<i8:f32, -0.1>>) { return }

// -----

func.func @dcast_shape(%a: tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'quant.dcast' op failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.dcast %a : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<5xf32>
  return
}

// -----

func.func @dcast_expressed(%a: tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{expressed type in quantized type expected to match float type}}
  %0 = quant.dcast %a : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf16>
  return
}

// -----

func.func @scast_width(%a: tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{storage type in quantized type expected to match integer type}}
  %0 = quant.scast %a : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xi16>
  return
}

// -----

func.func @axis_rank(%b: tensor<4xf32>) {
  // expected-error @+1 {{quantized dimension must be less than tensor rank}}
  %0 = quant.qcast %b : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:1, {0.1,0.2}>>
  return
}

// -----

func.func @axis_size(%b: tensor<4xf32>) {
  // expected-error @+1 {{quantized dimension size does not match number of scales}}
  %0 = quant.qcast %b : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:0, {0.1,0.2}>>
  return
}
