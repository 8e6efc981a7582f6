//! `qnn.conv` and `qnn.matmul` on oneDNN, bit-identical to the interpreter: random shapes,
//! groups (depthwise included), strides, padding, dilations, zero points, per-tensor and
//! per-channel scales, biases, activations and roundings (seeded), each op alone in a
//! function, partitioned onto `onednn`, compiled twice (equal bytes), loaded and run twice.

mod common;

use common::int8::{interpret, on_onednn, qty};
use common::{onednn_here, Rng};
use nart_onednn_rt::program::{OpKind, Program};
use nart_tensor::Tensor;

/// A per-channel (`axis`) type, or a per-tensor one when `scales` has one entry.
fn qty_axis(dims: &[i64], storage: &str, axis: usize, scales: &[f64]) -> String {
    let d: String = dims.iter().map(|d| format!("{d}x")).collect();
    if scales.len() == 1 {
        return format!("tensor<{d}!quant.uniform<{storage}:f32, {:?}>>", scales[0]);
    }
    let s: Vec<String> = scales.iter().map(|s| format!("{s:?}")).collect();
    format!(
        "tensor<{d}!quant.uniform<{storage}:f32:{axis}, {{{}}}>>",
        s.join(",")
    )
}

/// An integer constant `%name` (hex bytes, little endian) cast to the quantized type `qt`.
fn int_constant(name: &str, dims: &[i64], storage: &str, bytes: &[u8], qt: &str) -> String {
    let d: String = dims.iter().map(|d| format!("{d}x")).collect();
    let t = format!("tensor<{d}{storage}>");
    let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
    format!(
        "  %{name}i = \"graph.constant\"() <{{value = dense<\"0x{hex}\"> : {t}}}> : () -> {t}\n  \
         %{name} = quant.scast %{name}i : {t} to {qt}\n"
    )
}

/// A random 8-bit tensor of `dims`: `u8` or `i8`.
fn int8_tensor(rng: &mut Rng, dims: &[i64], unsigned: bool) -> Tensor {
    let n: i64 = dims.iter().product();
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    if unsigned {
        let v: Vec<u8> = (0..n).map(|_| rng.int(0, 255) as u8).collect();
        Tensor::from_vec(shape, v).unwrap()
    } else {
        let v: Vec<i8> = (0..n).map(|_| rng.int(-128, 127) as i8).collect();
        Tensor::from_vec(shape, v).unwrap()
    }
}

/// The parts every case shares: the input's and result's types, weights, scales, bias,
/// activation and rounding.
struct Quant {
    x_storage: &'static str,
    x_scale: f64,
    x_zp: i64,
    y_storage: &'static str,
    y_scale: f64,
    y_zp: i64,
    w_scales: Vec<f64>,
    suffix: String,
}

fn random_quant(rng: &mut Rng, channels: usize, only_u8: bool) -> Quant {
    let x_unsigned = only_u8 || rng.int(0, 1) == 0;
    let y_unsigned = rng.int(0, 1) == 0;
    let (x_storage, x_zp) = if x_unsigned {
        ("u8", rng.int(0, 255))
    } else {
        ("i8", rng.int(-128, 127))
    };
    let (y_storage, y_zp) = if y_unsigned {
        ("u8", rng.int(0, 255))
    } else {
        ("i8", rng.int(-128, 127))
    };
    let per_channel = rng.int(0, 1) == 0;
    let n_scales = if per_channel { channels } else { 1 };
    let w_scales = (0..n_scales)
        .map(|_| f64::from(rng.float(0.001, 0.05)))
        .collect();
    let act = *rng.pick(&[
        "",
        " act<relu>",
        " act<relu6>",
        " act<clip> bounds(-0.5, 1.5)",
    ]);
    let round = *rng.pick(&["", " round<half_away>", " round<half_up>"]);
    Quant {
        x_storage,
        x_scale: f64::from(rng.float(0.005, 0.05)),
        x_zp,
        y_storage,
        y_scale: f64::from(rng.float(0.01, 0.3)),
        y_zp,
        w_scales,
        suffix: format!("{act}{round}"),
    }
}

/// The weights (`[-bound, bound]`) and, maybe, the bias constants of a case; `weight_type`
/// and the bias operand text.
fn weights_and_bias(
    rng: &mut Rng,
    q: &Quant,
    (w_dims, bound): (&[i64], i64),
    axis: usize,
    channels: usize,
    body: &mut String,
) -> (String, Option<String>) {
    let n: i64 = w_dims.iter().product();
    let w: Vec<u8> = (0..n).map(|_| rng.int(-bound, bound) as i8 as u8).collect();
    let wt = qty_axis(w_dims, "i8", axis, &q.w_scales);
    body.push_str(&int_constant("w", w_dims, "i8", &w, &wt));
    if rng.int(0, 2) == 0 {
        return (wt, None);
    }
    let b: Vec<u8> = (0..channels)
        .flat_map(|_| (rng.int(-20000, 20000) as i32).to_le_bytes())
        .collect();
    let scales: Vec<f64> = (0..channels)
        .map(|c| q.x_scale * q.w_scales[if q.w_scales.len() == 1 { 0 } else { c }])
        .collect();
    let bt = qty_axis(&[channels as i64], "i32", 0, &scales);
    body.push_str(&int_constant("b", &[channels as i64], "i32", &b, &bt));
    (wt, Some(bt))
}

fn check_case(case: &str, text: &str, inputs: &[Tensor]) -> Program {
    let want = interpret(text, inputs);
    let (got, program) = on_onednn(text, inputs).unwrap_or_else(|e| panic!("{case}\n{text}\n{e}"));
    assert_eq!(got, want, "{case}: not bit-identical\n{text}");
    program
}

#[test]
fn random_convolutions_are_bit_identical() {
    if !onednn_here("random_convolutions_are_bit_identical") {
        return;
    }
    random_convolutions(17, 40, 127, false);
}

/// `cases` random convolutions with weights in `[-bound, bound]` (and `u8` inputs only when
/// `only_u8`), each bit-identical to the interpreter.
fn random_convolutions(seed: u64, cases: usize, bound: i64, only_u8: bool) {
    let mut rng = Rng::new(seed);
    for case in 0..cases {
        let sp = rng.int(1, 2) as usize;
        let batch = rng.int(1, 2);
        let groups = rng.int(1, 3);
        let depthwise = rng.int(0, 3) == 0;
        let cg = if depthwise { 1 } else { rng.int(1, 4) };
        let c = cg * groups;
        let m = groups * if depthwise { 1 } else { rng.int(1, 4) };
        let kernel: Vec<i64> = (0..sp).map(|_| rng.int(1, 3)).collect();
        let strides: Vec<i64> = (0..sp).map(|_| rng.int(1, 2)).collect();
        let dilations: Vec<i64> = (0..sp).map(|_| rng.int(1, 2)).collect();
        let pads: Vec<i64> = (0..2 * sp).map(|_| rng.int(0, 1)).collect();
        let input: Vec<i64> = (0..sp).map(|_| rng.int(5, 9)).collect();
        let out: Vec<i64> = (0..sp)
            .map(|i| {
                let eff = dilations[i] * (kernel[i] - 1) + 1;
                (input[i] + pads[i] + pads[sp + i] - eff) / strides[i] + 1
            })
            .collect();
        let q = random_quant(&mut rng, m as usize, only_u8);
        let x_dims: Vec<i64> = [batch, c].into_iter().chain(input.clone()).collect();
        let y_dims: Vec<i64> = [batch, m].into_iter().chain(out).collect();
        let w_dims: Vec<i64> = [m, cg].into_iter().chain(kernel).collect();
        let mut body = String::new();
        let (wt, bt) = weights_and_bias(&mut rng, &q, (&w_dims, bound), 0, m as usize, &mut body);
        let xt = qty(&x_dims, q.x_storage, q.x_scale, q.x_zp);
        let yt = qty(&y_dims, q.y_storage, q.y_scale, q.y_zp);
        let list = |v: &[i64]| {
            let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            format!("[{}]", s.join(", "))
        };
        let (operands, types) = match &bt {
            Some(bt) => ("%x, %w, %b".to_string(), format!("{xt}, {wt}, {bt}")),
            None => ("%x, %w".to_string(), format!("{xt}, {wt}")),
        };
        let text = format!(
            "func.func @main(%x: {xt}) -> {yt} {{\n{body}  %y = qnn.conv {operands} strides {} \
             pads {} dilations {}{} {{group = {groups} : i64}} : ({types}) -> {yt}\n  \
             return %y : {yt}\n}}\n",
            list(&strides),
            list(&pads),
            list(&dilations),
            q.suffix,
        );
        let x = int8_tensor(&mut rng, &x_dims, q.x_storage == "u8");
        let program = check_case(&format!("conv case {case}"), &text, &[x]);
        assert!(
            matches!(program.ops[..], [ref op] if matches!(op.kind, OpKind::QConv { .. })),
            "conv case {case}: {:?}",
            program
                .ops
                .iter()
                .map(|o| o.kind.name())
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn random_matmuls_are_bit_identical() {
    if !onednn_here("random_matmuls_are_bit_identical") {
        return;
    }
    random_matmuls(29, 30, 127, false);
}

/// [`random_convolutions`] for matmuls.
fn random_matmuls(seed: u64, cases: usize, bound: i64, only_u8: bool) {
    let mut rng = Rng::new(seed);
    for case in 0..cases {
        let lead: Vec<i64> = (0..rng.int(0, 1)).map(|_| rng.int(1, 3)).collect();
        let (m, k, n) = (rng.int(1, 7), rng.int(1, 40), rng.int(1, 9));
        let q = random_quant(&mut rng, n as usize, only_u8);
        let x_dims: Vec<i64> = lead.iter().copied().chain([m, k]).collect();
        let y_dims: Vec<i64> = lead.iter().copied().chain([m, n]).collect();
        let mut body = String::new();
        let (wt, bt) = weights_and_bias(&mut rng, &q, (&[k, n], bound), 1, n as usize, &mut body);
        let xt = qty(&x_dims, q.x_storage, q.x_scale, q.x_zp);
        let yt = qty(&y_dims, q.y_storage, q.y_scale, q.y_zp);
        let (operands, types) = match &bt {
            Some(bt) => ("%x, %w, %b".to_string(), format!("{xt}, {wt}, {bt}")),
            None => ("%x, %w".to_string(), format!("{xt}, {wt}")),
        };
        let text = format!(
            "func.func @main(%x: {xt}) -> {yt} {{\n{body}  %y = qnn.matmul {operands}{} : \
             ({types}) -> {yt}\n  return %y : {yt}\n}}\n",
            q.suffix,
        );
        let x = int8_tensor(&mut rng, &x_dims, q.x_storage == "u8");
        let program = check_case(&format!("matmul case {case}"), &text, &[x]);
        assert!(
            matches!(program.ops[..], [ref op] if matches!(op.kind, OpKind::QMatMul { .. })),
            "matmul case {case}"
        );
    }
}

/// Two convolutions in a row stay in oneDNN's channels-last layout between them, and a
/// matmul after a reshape reads the second's result.
#[test]
fn a_chain_of_integer_ops_is_bit_identical() {
    if !onednn_here("a_chain_of_integer_ops_is_bit_identical") {
        return;
    }
    let mut rng = Rng::new(5);
    let xt = qty(&[2, 3, 6, 6], "u8", 0.02, 120);
    let ht = qty(&[2, 8, 6, 6], "u8", 0.05, 0);
    let yt = qty(&[2, 4, 3, 3], "i8", 0.1, -3);
    let mut body = String::new();
    let w1: Vec<u8> = (0..8 * 3 * 9)
        .map(|_| rng.int(-127, 127) as i8 as u8)
        .collect();
    let w1t = qty_axis(&[8, 3, 3, 3], "i8", 0, &[0.01]);
    body.push_str(&int_constant("w", &[8, 3, 3, 3], "i8", &w1, &w1t).replace("%w", "%w1"));
    let w2: Vec<u8> = (0..4 * 8 * 9)
        .map(|_| rng.int(-127, 127) as i8 as u8)
        .collect();
    let w2t = qty_axis(&[4, 8, 3, 3], "i8", 0, &[0.01, 0.02, 0.03, 0.015]);
    body.push_str(&int_constant("w", &[4, 8, 3, 3], "i8", &w2, &w2t).replace("%w", "%w2"));
    let text = format!(
        "func.func @main(%x: {xt}) -> {yt} {{\n{body}  %h = qnn.conv %x, %w1 pads [1, 1, 1, 1] \
         act<relu> : ({xt}, {w1t}) -> {ht}\n  %y = qnn.conv %h, %w2 strides [2, 2] \
         pads [1, 1, 1, 1] : ({ht}, {w2t}) -> {yt}\n  return %y : {yt}\n}}\n"
    );
    let x = int8_tensor(&mut rng, &[2, 3, 6, 6], true);
    let program = check_case("chain", &text, &[x]);
    assert_eq!(program.ops.len(), 2);
}

#[test]
fn what_onednn_cannot_sum_exactly_is_refused_with_the_reason() {
    if !onednn_here("what_onednn_cannot_sum_exactly_is_refused_with_the_reason") {
        return;
    }
    // 1 × 600 × 127 weights: 255 · 600 · 127 passes 2^24.
    let xt = qty(&[1, 600], "u8", 0.02, 0);
    let yt = qty(&[1, 1], "u8", 0.5, 0);
    let wt = qty_axis(&[600, 1], "i8", 1, &[0.01]);
    let body = int_constant("w", &[600, 1], "i8", &[127u8; 600], &wt);
    let text = format!(
        "func.func @main(%x: {xt}) -> {yt} {{\n{body}  %y = qnn.matmul %x, %w : ({xt}, {wt}) \
         -> {yt}\n  return %y : {yt}\n}}\n"
    );
    let err = on_onednn(&text, &[]).unwrap_err();
    assert!(err.contains("2^24"), "{err}");
    // Weights that are an argument, not a constant.
    let text = format!(
        "func.func @main(%x: {xt}, %w: {wt}) -> {yt} {{\n  %y = qnn.matmul %x, %w : ({xt}, \
         {wt}) -> {yt}\n  return %y : {yt}\n}}\n"
    );
    let err = on_onednn(&text, &[]).unwrap_err();
    assert!(err.contains("the weight is not a constant"), "{err}");
}

/// Without VNNI (oneDNN limited to AVX2 by `DNNL_MAX_CPU_ISA`, in a child process, since
/// oneDNN reads it once): `u8` inputs with weights in `[-64, 64]` are bit-identical, and
/// 8-bit weights or `i8` inputs are refused with the reason (16-bit saturation).
#[test]
fn without_vnni_7_bit_weights_are_exact_and_others_refused() {
    const CHILD: &str = "NART_INT8_AVX2_CHILD";
    const NAME: &str = "without_vnni_7_bit_weights_are_exact_and_others_refused";
    if !onednn_here(NAME) {
        return;
    }
    if std::env::var(CHILD).is_err() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([NAME, "--exact", "--nocapture"])
            .env("DNNL_MAX_CPU_ISA", "AVX2")
            .env(CHILD, "1")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{text}");
        assert!(text.contains("1 passed"), "{text}");
        return;
    }
    let api = nart_onednn_rt::ffi::api().unwrap();
    assert!(!api.has_vnni(), "DNNL_MAX_CPU_ISA=AVX2 leaves no VNNI");
    random_convolutions(31, 12, 64, true);
    random_matmuls(37, 12, 64, true);
    let xt = qty(&[2, 8], "u8", 0.02, 7);
    let yt = qty(&[2, 3], "u8", 0.5, 0);
    let wt = qty_axis(&[8, 3], "i8", 1, &[0.01]);
    let body = int_constant("w", &[8, 3], "i8", &[100u8; 24], &wt);
    let text = format!(
        "func.func @main(%x: {xt}) -> {yt} {{\n{body}  %y = qnn.matmul %x, %w : ({xt}, {wt}) \
         -> {yt}\n  return %y : {yt}\n}}\n"
    );
    let err = on_onednn(&text, &[]).unwrap_err();
    assert!(err.contains("without VNNI"), "{err}");
}
