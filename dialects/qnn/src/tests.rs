//! The ops parse, print and verify; the lookup-table builder computes what the formula says;
//! the generated docs are current.

use nart_dialect_quant::UniformQuantizedType;
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::Context;

use crate::attrs::Activation;
use crate::lut::{self, functions};

fn ctx() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    crate::register(&mut ctx);
    ctx
}

/// Parses and verifies `body` inside a function with the given arguments; returns the printed
/// module or the first message.
fn check(args: &str, body: &str) -> Result<String, String> {
    let mut ctx = ctx();
    let src = format!("func.func @f({args}) {{\n  {body}\n  return\n}}\n");
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", &src)
        .map_err(|d| d[0].message.clone())?;
    nart_ir::verify::verify(&ctx, m).map_err(|d| d[0].message.clone())?;
    Ok(print_op(&ctx, m, &PrintOptions::default()))
}

const X: &str = "tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:128>>";
const W: &str = "tensor<4x1x3x3x!quant.uniform<i8:f32:0, {0.25,0.5,0.25,0.5}>>";
const B: &str = "tensor<4x!quant.uniform<i32:f32:0, {0.125,0.25,0.125,0.25}>>";
const Y: &str = "tensor<1x4x4x4x!quant.uniform<u8:f32, 1.0:3>>";

#[test]
fn conv_round_trips_with_every_property() {
    let args = format!("%x: {X}, %w: {W}, %b: {B}");
    let body = format!(
        "%0 = qnn.conv %x, %w, %b pads [1, 1, 1, 1] act<clip> bounds(-1.0, 2.5) round<half_away> \
         {{group = 2 : i64}} : ({X}, {W}, {B}) -> {Y}"
    );
    let out = check(&args, &body).unwrap();
    assert!(
        out.contains("qnn.conv %arg0, %arg1, %arg2 pads [1, 1, 1, 1] act<clip> bounds(-1.000000e+00, 2.500000e+00) round<half_away> {group = 2 : i64} :"),
        "{out}"
    );
    // Defaults (no activation, ties to even, no bias) are left out.
    let body =
        format!("%0 = qnn.conv %x, %w pads [1, 1, 1, 1] {{group = 2 : i64}} : ({X}, {W}) -> {Y}");
    let out = check(&args, &body).unwrap();
    assert!(
        out.contains("qnn.conv %arg0, %arg1 pads [1, 1, 1, 1] {group = 2 : i64} :"),
        "{out}"
    );
}

#[test]
fn typed_accessors_read_the_properties() {
    let mut ctx = ctx();
    let src = format!(
        "func.func @f(%x: {X}, %w: {W}) {{\n  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] act<clip> \
         bounds(0.0, 6.0) {{group = 2 : i64}} : ({X}, {W}) -> {Y}\n  return\n}}\n"
    );
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", &src).unwrap();
    let conv = ctx
        .nested_ops(m)
        .into_iter()
        .find_map(|op| ctx.dyn_cast::<crate::ConvOp>(op))
        .expect("the function has a conv");
    assert_eq!(
        Activation::of(&ctx, conv.0),
        Activation::Clip { min: 0.0, max: 6.0 }
    );
    assert_eq!(conv.bias(&ctx), None);
    let pads = conv
        .pads(&ctx)
        .and_then(|a| crate::attrs::int_array(&ctx, a));
    assert_eq!(pads, Some(&[1i64, 1, 1, 1][..]));
}

#[test]
fn verifier_messages() {
    let args = format!("%x: {X}, %w: {W}, %b: {B}");
    for (body, want) in [
        (
            format!("%0 = qnn.conv %x, %w pads [1, 1, 1, 1] : ({X}, {W}) -> {Y}"),
            "input has 2 channels, but the weight has 1 per group × 1 groups",
        ),
        (
            format!("%0 = qnn.conv %x, %w {{group = 2 : i64}} : ({X}, {W}) -> {Y}"),
            "result spatial dimension 0 must be 2, got 4",
        ),
        (
            format!(
                "%0 = qnn.conv %x, %w pads [1, 1, 1, 1] act<relu> bounds(0.0, 1.0) \
                 {{group = 2 : i64}} : ({X}, {W}) -> {Y}"
            ),
            "clip_min and clip_max are only allowed with activation clip",
        ),
    ] {
        let got = check(&args, &body).expect_err(&body);
        assert!(got.contains(want), "{body}:\n{got}");
    }
}

fn q(text: &str) -> UniformQuantizedType {
    let mut ctx = ctx();
    let src = format!("func.func @f(%a: {text}) {{\n  return\n}}\n");
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", &src).unwrap();
    ctx.nested_ops(m)
        .into_iter()
        .find_map(|op| {
            let block = *ctx.region_blocks(*ctx.regions(op).first()?).first()?;
            let arg = *ctx.block_args(block).first()?;
            ctx.type_as::<UniformQuantizedType>(ctx.value_type(arg))
                .cloned()
        })
        .expect("the argument has a quantized type")
}

#[test]
fn lookup_tables_follow_the_formula() {
    // u2 input with scale 1 and zero point 1: stored 0..3 stand for -1, 0, 1, 2.
    let input = q("!quant.uniform<u2:f32, 1.0:1>");
    let output = q("!quant.uniform<u8:f32, 0.5>");
    // f(x) = x² / 2 → 0.5, 0, 0.5, 2 → /0.5 → 1, 0, 1, 4.
    assert_eq!(
        lut::table(&input, &output, |x| x * x / 2.0),
        Ok(vec![1, 0, 1, 4])
    );
    // Ties round to even: f(x) = x / 4 → -0.25, 0, 0.25, 0.5 → /0.5 → -0.5, 0, 0.5, 1
    // → 0 (clamped from -0), 0, 0, 1.
    assert_eq!(
        lut::table(&input, &output, |x| x / 4.0),
        Ok(vec![0, 0, 0, 1])
    );
    // i8 sigmoid into u8 with scale 1/256: the table is monotone, saturates at 255 and is
    // 128 at input 0 (index 128).
    let input = q("!quant.uniform<i8:f32, 0.0625>");
    let output = q("!quant.uniform<u8:f32, 0.00390625>");
    let t = lut::table(&input, &output, functions::sigmoid).unwrap();
    assert_eq!(t.len(), 256);
    assert_eq!(t[128], 128);
    assert_eq!(t[255], 255);
    assert_eq!(t[0], 0);
    assert!(t.windows(2).all(|w| w[0] <= w[1]));
    // Signed output with a zero point: tanh(0) lands on the zero point.
    let output = q("!quant.uniform<i8:f32, 0.0078125:-2>");
    let t = lut::table(&input, &output, functions::tanh).unwrap();
    assert_eq!(t[128], -2);
    // tanh(127 · 0.0625) ≈ 0.99999975 → 127.99997 → 128, plus the zero point.
    assert_eq!(t[255], 126);
    assert_eq!(t[0], -128);
    // Wider inputs have no table.
    let wide = q("!quant.uniform<i16:f32, 0.1>");
    assert!(lut::table(&wide, &output, functions::tanh).is_err());
}

#[test]
fn float_functions() {
    // erf against values from tables (Abramowitz and Stegun 7.1).
    for (x, want) in [
        (0.0, 0.0),
        (0.5, 0.520_499_877_813_046_5),
        (1.0, 0.842_700_792_949_714_9),
        (2.0, 0.995_322_265_018_952_7),
        (3.0, 0.999_977_909_503_001_4),
        (-1.5, -0.966_105_146_475_310_7),
    ] {
        assert!(
            (functions::erf(x) - want).abs() < 1e-14,
            "erf({x}) = {}",
            functions::erf(x)
        );
    }
    assert!((functions::gelu(1.0) - 0.841_344_746_068_542_9).abs() < 1e-14);
    assert_eq!(functions::hardswish(-3.5), 0.0);
    assert_eq!(functions::hardswish(1.0), 1.0 * 4.0 / 6.0);
    assert_eq!(functions::hardswish(4.0), 4.0);
    assert_eq!(functions::sigmoid(0.0), 0.5);
}

/// `docs/dialects/qnn.md` is generated; `NART_BLESS=1` rewrites it.
#[test]
fn docs_are_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/qnn.md");
    if let Err(e) =
        nart_ir::docs::check_generated_file(&path, &crate::render_docs(), "nart-dialect-qnn")
    {
        panic!("{e}");
    }
}
