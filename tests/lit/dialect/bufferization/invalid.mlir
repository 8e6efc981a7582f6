// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Each case gives the constraint's message that mlir-opt 22 gives; upstream reports a mismatch
// twice (first "shapes do not match" or "element types do not match"), nart once.

func.func @shape(%a: memref<4xf32>) {
  // expected-error @+1 {{failed to verify that specified tensor and buffer types match}}
  %0 = bufferization.to_tensor %a : memref<4xf32> to tensor<5xf32>
  return
}

// -----

func.func @element(%a: memref<4xf32>) {
  // expected-error @+1 {{failed to verify that specified tensor and buffer types match}}
  %0 = bufferization.to_tensor %a : memref<4xf32> to tensor<4xf16>
  return
}

// -----

func.func @ranked_to_unranked(%a: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that specified tensor and buffer types match}}
  %0 = bufferization.to_buffer %a : tensor<4xf32> to memref<*xf32>
  return
}
