// RUN: not nart-opt %s --pass-pipeline='builtin.module(partition{targets=npu})' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not nart-opt %s --pass-pipeline='builtin.module(partition{targets=test-f32,test-f32})' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not nart-opt %s --pass-pipeline='builtin.module(partition{place=relu1})' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not nart-opt %s --pass-pipeline='builtin.module(partition{place=relu1=gpu})' 2>&1 | filecheck %s --check-prefix=PLACE-UNKNOWN
// RUN: not nart-opt %s --pass-pipeline='builtin.module(partition{targets=test-int8 place=graph.Sigmoid=test-int8,sig2=test-f32})' 2>&1 | filecheck %s --check-prefix=REFUSED
// RUN: not nart-opt %s --pass-pipeline='builtin.module(partition{place=relu9=interp})' 2>&1 | filecheck %s --check-prefix=NO-MATCH

// UNKNOWN: error: 'builtin.module' op unknown target 'npu' (known targets: interp, test-int8, test-f32)
// TWICE: error: 'builtin.module' op target 'test-f32' is listed twice
// SYNTAX: error: 'builtin.module' op bad placement 'relu1': expected PATTERN=TARGET, such as 'conv1=interp' or 'graph.Conv=npu'
// PLACE-UNKNOWN: error: 'builtin.module' op unknown target 'gpu' (known targets: interp, test-int8, test-f32)
// NO-MATCH: error: 'builtin.module' op --place relu9=interp matches no op

// Every op an override puts where it cannot run is reported, each at the op, with the reason.
// REFUSED: partition-errors.mlir:[[# @LINE + 5]]:8: error: 'graph.Sigmoid' op cannot be placed on 'test-int8' as --place graph.Sigmoid=test-int8 asks: op not supported
// REFUSED: partition-errors.mlir:[[# @LINE + 5]]:9: error: 'graph.Sigmoid' op cannot be placed on 'test-f32' as --place sig2=test-f32 asks: op not supported
// REFUSED-NOT: error
func.func @net(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = "graph.Sigmoid"(%r) : (tensor<4xf32>) -> tensor<4xf32>
  %s2 = "graph.Sigmoid"(%s) : (tensor<4xf32>) -> tensor<4xf32> loc(fused["sig2", "partition-errors.mlir":21:9])
  return %s2 : tensor<4xf32>
}
