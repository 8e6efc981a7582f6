//! The quantized types print as upstream prints them and reject what upstream rejects; the
//! casts verify as upstream's.

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::Context;

fn ctx() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    crate::register(&mut ctx);
    ctx
}

/// Parses `func.func @f(%a: <ty>) { return }` and returns the printed argument type.
fn print_type(text: &str) -> Result<String, String> {
    let mut ctx = ctx();
    let src = format!("func.func @f(%a: {text}) {{\n  return\n}}\n");
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", &src)
        .map_err(|d| d[0].message.clone())?;
    nart_ir::verify::verify(&ctx, m).map_err(|d| d[0].message.clone())?;
    let out = print_op(&ctx, m, &PrintOptions::default());
    let start = out.find("%arg0: ").ok_or("no argument")? + 7;
    let end = out[start..].find(") {").ok_or("no body")? + start;
    Ok(out[start..end].to_string())
}

#[test]
fn types_print_as_upstream() {
    // The right-hand sides are what mlir-opt 22 prints for the left-hand sides.
    for (text, want) in [
        ("!quant.uniform<i8:f32, 0.0125:-3>", "!quant.uniform<i8:f32, 1.250000e-02:-3>"),
        ("!quant.uniform<u8:f32, 1.5>", "!quant.uniform<u8:f32, 1.500000e+00>"),
        ("!quant.uniform<u8<0:255>:f32, 0.1>", "!quant.uniform<u8:f32, 1.000000e-01>"),
        ("!quant.uniform<i8<-8:7>:f32, 0.1>", "!quant.uniform<i8<-8:7>:f32, 1.000000e-01>"),
        ("!quant.uniform<u4:f16, 0.5:2>", "!quant.uniform<u4:f16, 5.000000e-01:2>"),
        ("!quant.uniform<i2:f32, 1.0e-3>", "!quant.uniform<i2:f32, 1.000000e-03>"),
        ("!quant.uniform<i8:bf16, 3.0>", "!quant.uniform<i8:bf16, 3.000000e+00>"),
        (
            "tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.1:0, 0.2:0, 0.3}>>",
            "tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01}>>",
        ),
        (
            "tensor<2x4x!quant.uniform<i8:f32:1, {0.1:1, 0.2:-1, 0.3, 0.4}>>",
            "tensor<2x4x!quant.uniform<i8:f32:1, {1.000000e-01:1,2.000000e-01:-1,3.000000e-01,4.000000e-01}>>",
        ),
        (
            "tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.1, 0.2}, {0.3:1, 0.4}}>>",
            "tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{1.000000e-01, 2.000000e-01}, {3.000000e-01:1, 4.000000e-01}}>>",
        ),
        ("!quant.any<i8:f32>", "!quant.any<i8:f32>"),
        (
            "!quant.calibrated<f32<-1.0:1.0>>",
            "!quant.calibrated<f32<-1.000000e+00:1.000000e+00>>",
        ),
    ] {
        assert_eq!(print_type(text).as_deref(), Ok(want), "{text}");
        // The printed form reads back to itself.
        assert_eq!(print_type(want).as_deref(), Ok(want), "{want}");
    }
}

#[test]
fn types_reject_what_upstream_rejects() {
    for (text, want) in [
        (
            "!quant.uniform<i33:f32, 0.1>",
            "illegal storage type size: 33",
        ),
        (
            "!quant.uniform<i8<5:1>:f32, 0.1>",
            "illegal storage min and storage max: (5:1)",
        ),
        (
            "!quant.uniform<i8<-200:1>:f32, 0.1>",
            "illegal storage min and storage max: (-200:1)",
        ),
        (
            "!quant.uniform<i8:i32, 0.1>",
            "invalid kind of type specified",
        ),
        (
            "!quant.uniform<i8:f32, -0.1>",
            "scale -1.000000e-01 out of expressed type range [1.401298e-45, 3.402823e+38]",
        ),
        (
            "!quant.uniform<i8:f32, 1>",
            "unexpected decimal integer literal for a floating point value",
        ),
        (
            "!quant.uniform<i8:f32:0, {}>",
            "expected floating point literal",
        ),
        (
            "!quant.unknown<i8>",
            "unknown  type `unknown` in dialect `quant`",
        ),
    ] {
        let got = print_type(text).expect_err(text);
        assert!(got.contains(want), "{text}: {got}");
    }
}

fn verify_body(body: &str) -> Result<(), String> {
    let mut ctx = ctx();
    let src = format!(
        "func.func @f(%a: tensor<4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4xf32>, %c: tensor<4xi8>) {{\n  {body}\n  return\n}}\n"
    );
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", &src)
        .map_err(|d| d[0].message.clone())?;
    nart_ir::verify::verify(&ctx, m).map_err(|d| d[0].message.clone())
}

#[test]
fn casts_verify_as_upstream() {
    let q = "tensor<4x!quant.uniform<i8:f32, 0.1>>";
    assert_eq!(
        verify_body(&format!("%0 = quant.dcast %a : {q} to tensor<4xf32>")),
        Ok(())
    );
    assert_eq!(
        verify_body(&format!("%0 = quant.qcast %b : tensor<4xf32> to {q}")),
        Ok(())
    );
    assert_eq!(
        verify_body(&format!("%0 = quant.scast %a : {q} to tensor<4xi8>")),
        Ok(())
    );
    assert_eq!(
        verify_body(&format!("%0 = quant.scast %c : tensor<4xi8> to {q}")),
        Ok(())
    );
    // The messages mlir-opt 22 gives for the same bodies.
    for (body, want) in [
        (
            format!("%0 = quant.dcast %a : {q} to tensor<4xf16>"),
            "expressed type in quantized type expected to match float type",
        ),
        (
            format!("%0 = quant.dcast %a : {q} to tensor<5xf32>"),
            "'quant.dcast' op failed to verify that input and result are both scalars or both tensors with matching shape",
        ),
        (
            format!("%0 = quant.scast %a : {q} to tensor<4xi16>"),
            "storage type in quantized type expected to match integer type",
        ),
        (
            "%0 = quant.dcast %b : tensor<4xf32> to tensor<4xf32>".to_string(),
            "'quant.dcast' op operand #0 must be scalar or tensor of quantized type, but got 'tensor<4xf32>'",
        ),
        (
            format!("%0 = quant.qcast %a : {q} to {q}"),
            "'quant.qcast' op operand #0 must be scalar or tensor of floating-point, but got 'tensor<4x!quant.uniform<i8:f32, 1.000000e-01>>'",
        ),
        (
            format!("%0 = quant.scast %a : {q} to {q}"),
            "'quant.scast' op failed to verify that input must be integer and result must be quantized, or vice versa",
        ),
        (
            "%0 = quant.qcast %b : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:1, {0.1,0.2}>>".to_string(),
            "quantized dimension must be less than tensor rank",
        ),
        (
            "%0 = quant.qcast %b : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:0, {0.1,0.2}>>".to_string(),
            "quantized dimension size does not match number of scales",
        ),
    ] {
        let got = verify_body(&body).expect_err(&body);
        assert!(got.contains(want), "{body}: {got}");
    }
}

#[test]
fn typed_storage_comes_back() {
    let mut ctx = ctx();
    let f32t = ctx.f32_type();
    let q = crate::UniformQuantizedType::per_axis(8, true, f32t, 0, &[0.5, 0.25], &[0, 1]);
    let t = ctx.dialect_type(q.clone());
    assert_eq!(ctx.type_as::<crate::UniformQuantizedType>(t), Some(&q));
    assert_eq!(q.scales(), vec![0.5, 0.25]);
    assert_eq!(q.check_shape(&[2, 3]), Ok(()));
    assert!(q.check_shape(&[3]).is_err());
    assert_eq!(
        nart_ir::printer::type_to_string(&ctx, t),
        "!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01:1}>"
    );
}

/// `docs/dialects/quant.md` is generated; `NART_BLESS=1` rewrites it.
#[test]
fn docs_are_up_to_date() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/quant.md");
    if let Err(e) =
        nart_ir::docs::check_generated_file(&path, &crate::render_docs(), "nart-dialect-quant")
    {
        panic!("{e}");
    }
}
