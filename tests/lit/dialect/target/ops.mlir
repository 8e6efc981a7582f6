// RUN: nart-opt %s | filecheck %s
// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// A segment holds the ops placed on one target; its region is isolated from above, so the
// values it reads are its operands and its block's arguments.
// CHECK-LABEL: func.func @segment
// CHECK-NEXT: %0:2 = target.segment "npu"(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%arg1: tensor<4xf32>):
// CHECK-NEXT: %2 = "graph.constant"() <{value = dense<1.000000e+00> : tensor<4xf32>}> : () -> tensor<4xf32>
// CHECK-NEXT: %3 = "graph.Relu"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %4 = "graph.Add"(%3, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: target.yield %3, %4 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %1 = target.segment "interp"(%0#1) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%arg1: tensor<4xf32>):
// CHECK-NEXT: %2 = "graph.Neg"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: target.yield %2 : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %0#0, %1 : tensor<4xf32>, tensor<4xf32>
func.func @segment(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = target.segment "npu"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %c = "graph.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
    %r = "graph.Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %s = "graph.Add"(%r, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    target.yield %r, %s : tensor<4xf32>, tensor<4xf32>
  }
  %1 = target.segment "interp"(%0#1) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = "graph.Neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    target.yield %n : tensor<4xf32>
  }
  return %0#0, %1 : tensor<4xf32>, tensor<4xf32>
}

// A segment may take quantized values, in the QDQ form an int8 target's compiler fuses.
// CHECK-LABEL: func.func @quantized
// CHECK-NEXT: %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 3.125000e-02>>
// CHECK-NEXT: %1 = target.segment "npu"(%0) : (tensor<4x!quant.uniform<i8:f32, 3.125000e-02>>) -> tensor<4x!quant.uniform<i8:f32, 3.125000e-02>> {
// CHECK-NEXT: ^bb0(%arg1: tensor<4x!quant.uniform<i8:f32, 3.125000e-02>>):
// CHECK-NEXT: %3 = quant.dcast %arg1 : tensor<4x!quant.uniform<i8:f32, 3.125000e-02>> to tensor<4xf32>
// CHECK-NEXT: %4 = "graph.Relu"(%3) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %5 = quant.qcast %4 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 3.125000e-02>>
// CHECK-NEXT: target.yield %5 : tensor<4x!quant.uniform<i8:f32, 3.125000e-02>>
// CHECK-NEXT: }
// CHECK-NEXT: %2 = quant.dcast %1 : tensor<4x!quant.uniform<i8:f32, 3.125000e-02>> to tensor<4xf32>
func.func @quantized(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.03125>>
  %0 = target.segment "npu"(%q) : (tensor<4x!quant.uniform<i8:f32, 0.03125>>) -> tensor<4x!quant.uniform<i8:f32, 0.03125>> {
  ^bb0(%a: tensor<4x!quant.uniform<i8:f32, 0.03125>>):
    %f = quant.dcast %a : tensor<4x!quant.uniform<i8:f32, 0.03125>> to tensor<4xf32>
    %r = "graph.Relu"(%f) : (tensor<4xf32>) -> tensor<4xf32>
    %o = quant.qcast %r : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.03125>>
    target.yield %o : tensor<4x!quant.uniform<i8:f32, 0.03125>>
  }
  %y = quant.dcast %0 : tensor<4x!quant.uniform<i8:f32, 0.03125>> to tensor<4xf32>
  return %y : tensor<4xf32>
}

// After compilation, a segment is an op holding the target's artifact.
// CHECK-LABEL: func.func @compiled
// CHECK-NEXT: %0 = target.compiled "interp"(%arg0) {artifact = "func.func @segment(%arg0: tensor<4xf32>) -> tensor<4xf32> {\0A  return %arg0 : tensor<4xf32>\0A}\0A", format = "mlir-text", sdk_version = "nart 0.1.0"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %1 = target.compiled "npu"() {artifact = "\00\01\FF", format = "blob", sdk_version = "npu-sdk 2.1"} : () -> tensor<4xf32>
func.func @compiled(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = target.compiled "interp"(%x) {artifact = "func.func @segment(%arg0: tensor<4xf32>) -> tensor<4xf32> {\0A  return %arg0 : tensor<4xf32>\0A}\0A", format = "mlir-text", sdk_version = "nart 0.1.0"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = target.compiled "npu"() {artifact = "\00\01\FF", format = "blob", sdk_version = "npu-sdk 2.1"} : () -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
