// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-apply)' --split-input-file --verify-diagnostics

// Static quantization needs a calibrated range for every activation it quantizes.
// expected-error @+1 {{value 'argument #0' has no calibrated range: run quant-calibrate first, or give its parameters in a qparams file}}
func.func @uncalibrated(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = "graph.Relu"(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
