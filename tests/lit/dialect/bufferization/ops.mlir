// RUN: nart-opt %s | filecheck %s
// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// The casts between tensors and buffers print as upstream mlir-opt prints them (the upstream
// round-trip test feeds this file through mlir-opt 22 too).

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%arg0: memref<4xf32>, %arg1: tensor<2x3xf32>, %arg2: memref<*xf32>)
func.func @casts(%m: memref<4xf32>, %t: tensor<2x3xf32>, %u: memref<*xf32>) -> (tensor<4xf32>, memref<2x3xf32>, tensor<*xf32>) {
  // CHECK-NEXT: %0 = bufferization.to_tensor %arg0 restrict writable : memref<4xf32> to tensor<4xf32>
  %0 = bufferization.to_tensor %m restrict writable : memref<4xf32> to tensor<4xf32>
  // CHECK-NEXT: %1 = bufferization.to_buffer %arg1 read_only : tensor<2x3xf32> to memref<2x3xf32>
  %1 = bufferization.to_buffer %t read_only : tensor<2x3xf32> to memref<2x3xf32>
  // CHECK-NEXT: %2 = bufferization.to_tensor %arg2 : memref<*xf32> to tensor<*xf32>
  %2 = bufferization.to_tensor %u : memref<*xf32> to tensor<*xf32>
  return %0, %1, %2 : tensor<4xf32>, memref<2x3xf32>, tensor<*xf32>
}
