// RUN: nart-opt %s --split-input-file --verify-diagnostics

func.func @operand_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.segment' op body argument #0 has type tensor<4xi8> but operand #0 has type tensor<4xf32>}}
  %0 = target.segment "npu"(%x) : (tensor<4xf32>) -> tensor<4xi8> {
  ^bb0(%a: tensor<4xi8>):
    target.yield %a : tensor<4xi8>
  }
  return
}

// -----

func.func @argument_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.segment' op has 1 operands but its body takes 0 arguments}}
  target.segment "npu"(%x) : (tensor<4xf32>) -> () {
    target.yield
  }
  return
}

// -----

func.func @yield_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.segment' op yields 1 values but has 0 results}}
  target.segment "npu"(%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
    target.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.segment' op yielded value #0 has type tensor<4xf32> but result #0 has type tensor<8xf32>}}
  %0 = target.segment "npu"(%x) : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4xf32>):
    target.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @empty_target(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.segment' op requires a non-empty 'target'}}
  %0 = target.segment ""(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    target.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @captures(%x: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = target.segment "npu"() : () -> tensor<4xf32> {
    // expected-error @+1 {{'graph.Relu' op using value defined outside the region}}
    %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    target.yield %r : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.yield' op expects parent op 'target.segment'}}
  target.yield %x : tensor<4xf32>
}

// -----

func.func @compiled_format(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.compiled' op requires a non-empty 'format'}}
  %0 = target.compiled "npu"(%x) {artifact = "", format = "", sdk_version = "1"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compiled_artifact(%x: tensor<4xf32>) {
  // expected-error @+1 {{'target.compiled' op requires attribute 'artifact'}}
  %0 = target.compiled "npu"(%x) {format = "blob", sdk_version = "1"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
