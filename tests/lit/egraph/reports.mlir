// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize))' --mlir-pass-statistics -o /dev/null 2>&1 | filecheck %s --check-prefix=STATS
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize))' --mlir-timing -o /dev/null 2>&1 | filecheck %s --check-prefix=TIMING
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize{target=interp}))' --mlir-pass-statistics 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize{node-limit=20 iter-limit=1}))' --mlir-pass-statistics -o /dev/null 2>&1 | filecheck %s --check-prefix=LIMITS
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize))' > %t.1
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(egraph-optimize))' > %t.2
// RUN: cmp %t.1 %t.2

// Statistics: the e-graph's size, the cost and op count before and after, and each rule's
// fire count, as unions made (here x·W1 and x·W2 share x: the merge fires, but under FLOPs plus bytes the
// Split it needs costs more than the second read of x, so the MatMuls stay; the Neg pair goes).
// STATS: EgraphOptimize
// STATS-NEXT: (S) {{ *}}1 num-functions
// STATS-NEXT: (S) {{ *}}0 num-kept
// STATS-NEXT: (S) {{ *[0-9]+}} num-enodes
// STATS-NEXT: (S) {{ *[0-9]+}} num-eclasses
// STATS-NEXT: (S) {{ *[0-9]+}} num-iterations
// STATS-NEXT: (S) {{ *}}4 num-ops-before
// STATS-NEXT: (S) {{ *}}2 num-ops-after
// STATS-NEXT: (S) {{ *}}2628 cost-before
// STATS-NEXT: (S) {{ *}}2050 cost-after
// STATS: (S) {{ *}}1 neg-neg
// STATS: (S) {{ *}}2 merge-matmul

// Timing: saturation and extraction are phases nested under the pass.
// TIMING: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)    EgraphOptimize$}}
// TIMING-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)      saturation$}}
// TIMING-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)      extraction$}}

// target=NAME prices with that target's model (nanoseconds here).
// TARGET: func.func @f
// TARGET: EgraphOptimize
// TARGET: (S) {{ *}}2 num-ops-after
// TARGET: (S) {{ *[0-9]+}} cost-before

// The limits bound saturation.
// LIMITS: (S) {{ *}}1 num-iterations

func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w1 = "graph.constant"() <{value = dense<0.5> : tensor<8x8xf32>}> : () -> tensor<8x8xf32>
  %w2 = "graph.constant"() <{value = dense<0.25> : tensor<8x8xf32>}> : () -> tensor<8x8xf32>
  %0 = "graph.MatMul"(%x, %w1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = "graph.MatMul"(%x, %w2) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %2 = "graph.Neg"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "graph.Neg"(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %3 : tensor<4x8xf32>, tensor<4x8xf32>
}
