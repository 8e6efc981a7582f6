// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize{target=npu}))' 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize{node-limit=0}))' 2>&1 | filecheck %s --check-prefix=NODES
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize{time-limit-ms=-5}))' 2>&1 | filecheck %s --check-prefix=TIME
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize{iter-limit=x}))' 2>&1 | filecheck %s --check-prefix=SYNTAX

// Bad options are errors at the function, never panics.
// TARGET: errors.mlir:[[@LINE+4]]:1: error: 'func.func' op option 'target': {{.*}}npu
// NODES: errors.mlir:[[@LINE+3]]:1: error: 'func.func' op option 'node-limit' must be positive, got 0
// TIME: errors.mlir:[[@LINE+2]]:1: error: 'func.func' op option 'time-limit-ms' must be positive, got -5
// SYNTAX: iter-limit
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
