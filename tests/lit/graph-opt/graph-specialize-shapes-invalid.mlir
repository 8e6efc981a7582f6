// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(graph-specialize-shapes{dims=N=1 shapes=x=2x3})'
// RUN: not nart-opt %s --split-input-file --pass-pipeline='builtin.module(graph-specialize-shapes{dims=N})' 2>&1 | filecheck %s --check-prefix=NOSIZE
// RUN: not nart-opt %s --split-input-file --pass-pipeline='builtin.module(graph-specialize-shapes{shapes=x=2xa})' 2>&1 | filecheck %s --check-prefix=BADDIM
// RUN: not nart-opt %s --split-input-file --pass-pipeline='builtin.module(graph-specialize-shapes{dims=N=1,N=2})' 2>&1 | filecheck %s --check-prefix=TWICE

// NOSIZE: error: 'func.func' op graph-specialize-shapes: 'N' in dims is not NAME=SIZE
// BADDIM: error: 'func.func' op graph-specialize-shapes: 'x=2xa' in shapes: 'a' is not a size or '?'
// TWICE: error: 'func.func' op graph-specialize-shapes: dims gives 'N' two sizes, 1 and 2

// A size that contradicts a static dim with that name.
// expected-error @+1 {{dims gives 'N' the size 1, but dimension #0 of input 'a' (argument #0) is 4}}
func.func @static_dim(%a: tensor<4x3xf32> {graph.dim_names = ["N", ""], onnx.name = "a"}, %x: tensor<2x3xf32> {onnx.name = "x"}) -> tensor<4x3xf32> {
  return %a : tensor<4x3xf32>
}

// -----

// A shape of the wrong rank.
// expected-error @+1 {{shape '2x3' has rank 2, but input 'x' (argument #0) has rank 1}}
func.func @rank(%x: tensor<?xf32> {onnx.name = "x"}, %n: tensor<?xf32> {graph.dim_names = ["N"]}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// `dims` made the first dim 1; the shape says 2.
// expected-error @+1 {{shape '2x3' gives dimension #0 of input 'x' (argument #0) the size 2, but it is 1}}
func.func @conflict(%x: tensor<?x3xf32> {graph.dim_names = ["N", ""], onnx.name = "x"}) -> tensor<?x3xf32> {
  return %x : tensor<?x3xf32>
}

// -----

// An op whose existing static type contradicts what inference now gives.
func.func @op_conflict(%x: tensor<?x3xf32> {onnx.name = "x"}, %n: tensor<?xf32> {graph.dim_names = ["N"]}) -> tensor<5x3xf32> {
  // expected-error @+1 {{'graph.Relu' op result #0 has type tensor<5x3xf32> but inference gives tensor<2x3xf32> after specializing the input shapes}}
  %r = "graph.Relu"(%x) : (tensor<?x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// -----

// Neither the dim name nor the input exists.
// expected-error @+2 {{no input has a dimension named 'N' (the named dimensions are M)}}
// expected-error @+1 {{no input is named 'x' or has that index}}
func.func @unknown(%a: tensor<?xf32> {graph.dim_names = ["M"], onnx.name = "a"}) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
