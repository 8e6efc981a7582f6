//! Runs the qnn ops and quant casts through the interpreter: the ops' properties and their
//! types' quantization reach the kernels of `nart_tensor::qnn`.

use nart_interp::Interpreter;
use nart_ir::Context;
use nart_tensor::{DType, Tensor};

/// Parses `text`, and runs its function `name` on `inputs`.
fn run(text: &str, name: &str, inputs: Vec<Tensor>) -> Vec<Tensor> {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    nart_interp::register(&mut ctx);
    let module = nart_ir::parser::parse_source(&mut ctx, "t.mlir", text)
        .unwrap_or_else(|d| panic!("{}", d[0].message));
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|d| panic!("{}", d[0].message));
    let interp = Interpreter::from_module(&ctx, module, Some(name)).unwrap();
    interp.run(inputs).unwrap()
}

fn ints(t: &Tensor) -> Vec<i64> {
    t.to_i128_vec()
        .unwrap()
        .into_iter()
        .map(|v| v as i64)
        .collect()
}

fn u8s(shape: &[usize], v: &[u8]) -> Tensor {
    Tensor::from_vec(shape.to_vec(), v.to_vec()).unwrap()
}

const CONV: &str = r#"
!x = tensor<1x1x3x3x!quant.uniform<u8:f32, 1.0:2>>
!w = tensor<1x1x2x2x!quant.uniform<i8:f32, 1.0:1>>
!b = tensor<1x!quant.uniform<i32:f32, 1.0>>
func.func @conv(%x: !x) -> (tensor<1x1x4x4x!quant.uniform<u8:f32, 2.0:5>>, tensor<1x1x4x4x!quant.uniform<u8:f32, 2.0:5>>, tensor<1x1x2x2x!quant.uniform<i8:f32, 1.0>>) {
  %c = "graph.constant"() <{value = dense<[[[[2, 1], [1, 2]]]]> : tensor<1x1x2x2xi8>}> : () -> tensor<1x1x2x2xi8>
  %w = quant.scast %c : tensor<1x1x2x2xi8> to !w
  %cb = "graph.constant"() <{value = dense<4> : tensor<1xi32>}> : () -> tensor<1xi32>
  %b = quant.scast %cb : tensor<1xi32> to !b
  %even = qnn.conv %x, %w pads [1, 1, 1, 1] : (!x, !w) -> tensor<1x1x4x4x!quant.uniform<u8:f32, 2.0:5>>
  %away = qnn.conv %x, %w pads [1, 1, 1, 1] round<half_away> : (!x, !w) -> tensor<1x1x4x4x!quant.uniform<u8:f32, 2.0:5>>
  %s = qnn.conv %x, %w, %b strides [2, 2] pads [1, 1, 1, 1] act<clip> bounds(0.0, 10.0) : (!x, !w, !b) -> tensor<1x1x2x2x!quant.uniform<i8:f32, 1.0>>
  return %even, %away, %s : tensor<1x1x4x4x!quant.uniform<u8:f32, 2.0:5>>, tensor<1x1x4x4x!quant.uniform<u8:f32, 2.0:5>>, tensor<1x1x2x2x!quant.uniform<i8:f32, 1.0>>
}
"#;

#[test]
fn conv_properties_and_rounding_reach_the_kernel() {
    // The hand-computed case of nart-tensor's tests: reals [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    // convolved with [[1, 0], [0, 1]], padded with real zeros.
    let x = u8s(&[1, 1, 3, 3], &[3, 4, 5, 6, 7, 8, 9, 10, 11]);
    let out = run(CONV, "conv", vec![x]);
    assert_eq!(out[0].dtype(), DType::U8);
    assert_eq!(
        ints(&out[0]),
        [5, 6, 7, 5, 7, 8, 9, 7, 9, 11, 12, 8, 5, 9, 9, 9]
    );
    assert_eq!(
        ints(&out[1]),
        [6, 6, 7, 5, 7, 8, 9, 7, 9, 11, 12, 8, 5, 9, 9, 10]
    );
    // Strided with a bias of 4 and clip(0, 10): reals [1, 3, 7, 14] + 4.
    assert_eq!(ints(&out[2]), [5, 7, 10, 10]);
}

const CHAIN: &str = r#"
func.func @chain(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x6xi8>, tensor<2x3xf32>) {
  %qx = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  %qy = quant.qcast %y : tensor<3xf32> to tensor<3x!quant.uniform<u8:f32, 0.25:128>>
  %sum = qnn.add %qx, %qy act<relu> : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>, tensor<3x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  %prod = qnn.mul %qx, %qy round<half_up> : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>, tensor<3x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.25>>
  %r = qnn.requantize %prod : tensor<2x3x!quant.uniform<i8:f32, 0.25>> to tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  %cat = qnn.concat %sum, %r {axis = 1 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>, tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x6x!quant.uniform<i8:f32, 0.5>>
  %raw = quant.scast %cat : tensor<2x6x!quant.uniform<i8:f32, 0.5>> to tensor<2x6xi8>
  %fs = quant.dcast %sum : tensor<2x3x!quant.uniform<i8:f32, 0.5>> to tensor<2x3xf32>
  %fp = quant.dcast %prod : tensor<2x3x!quant.uniform<i8:f32, 0.25>> to tensor<2x3xf32>
  %fx = quant.dcast %qx : tensor<2x3x!quant.uniform<i8:f32, 0.5>> to tensor<2x3xf32>
  return %fs, %fp, %raw, %fx : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x6xi8>, tensor<2x3xf32>
}
"#;

#[test]
fn casts_and_elementwise_ops_chain() {
    let x = Tensor::from_vec(vec![2, 3], vec![1.0f32, -1.0, 0.3, 2.0, -0.75, 100.0]).unwrap();
    let y = Tensor::vector(vec![0.5f32, 0.25, -1.0]);
    let out = run(CHAIN, "chain", vec![x, y]);
    // x quantized with scale 0.5 (ties to even, saturating): 1, -1, 0.5, 2, -1, 63.5.
    assert_eq!(out[3].as_f32().unwrap(), &[1.0, -1.0, 0.5, 2.0, -1.0, 63.5]);
    // relu(x + y) with y = 0.5, 0.25, -1: 1.5, -0.75 → 0, -0.5 → 0, 2.5, -0.5 → 0, 62.5.
    assert_eq!(out[0].as_f32().unwrap(), &[1.5, 0.0, 0.0, 2.5, 0.0, 62.5]);
    // x · y at scale 0.25, ties up: 0.5, -0.25, -0.5, 1, -0.25, -63.5 → saturates at -32.
    assert_eq!(
        out[1].as_f32().unwrap(),
        &[0.5, -0.25, -0.5, 1.0, -0.25, -32.0]
    );
    // The concatenation's stored values: the sums, then the products at scale 0.5 (ties to
    // even: 0.5 → 1, -0.25 → -0.5 → 0, -1, 2, -0.5 → 0, -32 → -64).
    assert_eq!(ints(&out[2]), [3, 0, 0, 1, 0, -1, 5, 0, 125, 2, 0, -64]);
}

const OTHERS: &str = r#"
func.func @others(%x: tensor<1x1x2x2x!quant.uniform<i8:f32, 0.0625>>, %a: tensor<2x3x!quant.uniform<u8:f32, 1.0:128>>) -> (tensor<1x1x1x1x!quant.uniform<i8:f32, 0.0625>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.0625>>, tensor<1x1x2x2x!quant.uniform<u8:f32, 3.90625e-03>>, tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>) {
  %avg = qnn.avg_pool %x kernel [2, 2] round<half_away> : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.0625>> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.0625>>
  %max = qnn.max_pool %x kernel [2, 2] : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.0625>> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.0625>>
  %sig = qnn.lut %x table [TABLE] : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.0625>> to tensor<1x1x2x2x!quant.uniform<u8:f32, 3.90625e-03>>
  %c = "graph.constant"() <{value = dense<[[1, 4], [0, 2], [2, 0]]> : tensor<3x2xi8>}> : () -> tensor<3x2xi8>
  %b = quant.scast %c : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32:1, {1.0, 0.5:2}>>
  %mm = qnn.matmul %a, %b : (tensor<2x3x!quant.uniform<u8:f32, 1.0:128>>, tensor<3x2x!quant.uniform<i8:f32:1, {1.0, 0.5:2}>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
  return %avg, %max, %sig, %mm : tensor<1x1x1x1x!quant.uniform<i8:f32, 0.0625>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.0625>>, tensor<1x1x2x2x!quant.uniform<u8:f32, 3.90625e-03>>, tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
}
"#;

#[test]
fn pooling_tables_and_matmul() {
    // The sigmoid table of nart-dialect-qnn's builder.
    let mut ctx = Context::new();
    nart_dialect_qnn::register(&mut ctx);
    let f32t = ctx.f32_type();
    let input = nart_dialect_quant::UniformQuantizedType::per_tensor(8, true, f32t, 0.0625, 0);
    let output =
        nart_dialect_quant::UniformQuantizedType::per_tensor(8, false, f32t, 1.0 / 256.0, 0);
    let table =
        nart_dialect_qnn::lut::table(&input, &output, nart_dialect_qnn::lut::functions::sigmoid)
            .unwrap();
    let text: Vec<String> = table.iter().map(i64::to_string).collect();
    let src = OTHERS.replace("TABLE", &text.join(", "));
    let x = Tensor::from_vec(vec![1, 1, 2, 2], vec![1i8, 2, 3, 4]).unwrap();
    let a = u8s(&[2, 3], &[129, 130, 131, 127, 128, 126]);
    let out = run(&src, "others", vec![x, a]);
    // The average 2.5 rounds away from zero; the max is 4.
    assert_eq!(ints(&out[0]), [3]);
    assert_eq!(ints(&out[1]), [4]);
    // Each stored input q looks up table[q + 128].
    assert_eq!(
        ints(&out[2]),
        [1i64, 2, 3, 4].map(|q| table[(q + 128) as usize])
    );
    // The hand-computed matmul of nart-tensor's tests.
    assert_eq!(ints(&out[3]), [15, -3, -9, 3]);
}
