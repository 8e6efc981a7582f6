func.func @main_graph(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
