// Broken models give diagnostics that name the node, its op type and the name concerned, and
// a non-zero exit status.

// RUN: not nart-opt %S/Inputs/missing_initializer.onnx 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: error: node 'add_bias' (Add): input 'bias' is not defined

// RUN: not nart-opt %S/Inputs/unknown_ops.onnx 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN-DAG: error: node 'fancy' (FancyOp): unknown operator 'FancyOp'
// UNKNOWN-DAG: error: node 'mystery' (Mystery, domain 'com.example'): unknown operator 'Mystery'

// RUN: not nart-opt %S/Inputs/truncated.onnx 2>&1 | filecheck %s --check-prefix=TRUNC
// TRUNC: error: cannot decode the ONNX model

// RUN: not nart-opt %S/Inputs/cycle.onnx 2>&1 | filecheck %s --check-prefix=CYCLE
// CYCLE: error: the graph has a cycle through node 'second' (Add)
