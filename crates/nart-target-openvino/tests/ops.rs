//! Each op family the openvino target takes, on random shapes and attributes (seeded),
//! against the interpreter: the op (or a short chain) alone in a function, partitioned onto
//! `openvino`, exported as ONNX, compiled by OpenVINO for the CPU, run twice. fp32, within a
//! tolerance (OpenVINO computes in f32: the precision hint is set at load).

mod common;

use common::{arr, check, constant, i64_constant, openvino_here, ty, Rng};
use nart_tensor::Tensor;

/// An operand of the op under test.
enum Arg {
    /// A function argument with this value.
    Input(Tensor),
    /// An f32 constant.
    Const(Tensor),
    /// An i64 vector constant (axes, shapes).
    Ints(Vec<i64>),
    /// An absent optional operand.
    Absent,
}

fn dims(t: &Tensor) -> Vec<i64> {
    t.shape().iter().map(|&d| d as i64).collect()
}

/// `@main` applying `op` once to `args`; its result #0 has dims `out` and `absent` more
/// results are `none`. Returns the text and the inputs.
fn single(
    op: &str,
    args: Vec<Arg>,
    attrs: &str,
    out: &[i64],
    absent: usize,
) -> (String, Vec<Tensor>) {
    let (mut params, mut body, mut names, mut types, mut inputs) =
        (vec![], String::new(), vec![], vec![], vec![]);
    for (i, a) in args.into_iter().enumerate() {
        match a {
            Arg::Input(t) => {
                params.push(format!("%x{i}: {}", ty(&dims(&t))));
                names.push(format!("%x{i}"));
                types.push(ty(&dims(&t)));
                inputs.push(t);
            }
            Arg::Const(t) => {
                body.push_str(&constant(&format!("k{i}"), &t));
                names.push(format!("%k{i}"));
                types.push(ty(&dims(&t)));
            }
            Arg::Ints(v) => {
                body.push_str(&i64_constant(&format!("k{i}"), &v));
                names.push(format!("%k{i}"));
                types.push(format!("tensor<{}xi64>", v.len()));
            }
            Arg::Absent => {
                body.push_str(&format!("  %k{i} = \"graph.none\"() : () -> none\n"));
                names.push(format!("%k{i}"));
                types.push("none".into());
            }
        }
    }
    let attrs = if attrs.is_empty() {
        String::new()
    } else {
        format!(" <{{{attrs}}}>")
    };
    let out_ty = ty(out);
    let (lhs, res, ret) = if absent == 0 {
        ("%y".to_string(), out_ty.clone(), "%y".to_string())
    } else {
        (
            format!("%y:{}", absent + 1),
            format!("({out_ty}{})", ", none".repeat(absent)),
            "%y#0".to_string(),
        )
    };
    let text = format!(
        "func.func @main({}) -> {out_ty} {{\n{body}  {lhs} = \"graph.{op}\"({}){attrs} : ({}) -> {res}\n  return {ret} : {out_ty}\n}}\n",
        params.join(", "),
        names.join(", "),
        types.join(", ")
    );
    (text, inputs)
}

fn run(case: &str, (text, inputs): (String, Vec<Tensor>), tol: f32) {
    check(case, &text, &inputs, tol, tol);
}

#[test]
fn conv_and_conv_transpose() {
    if !openvino_here("conv_and_conv_transpose") {
        return;
    }
    let mut rng = Rng::new(11);
    let mut done = 0;
    while done < 16 {
        let g = rng.pick(&[1, 1, 2]);
        let (cin, cout) = (g * rng.int(1, 3), g * rng.int(1, 3));
        let n = rng.int(1, 2);
        let (mut x, mut w, mut y) = (vec![n, cin], vec![cout, cin / g], vec![n, cout]);
        let (mut k, mut s, mut d, mut pads_b, mut pads_e) =
            (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..2 {
            let len = rng.int(4, 10);
            let (kk, ss, dd) = (rng.int(1, 3), rng.int(1, 2), rng.int(1, 2));
            let (b, e) = (rng.int(0, kk - 1), rng.int(0, kk - 1));
            x.push(len);
            w.push(kk);
            k.push(kk);
            s.push(ss);
            d.push(dd);
            pads_b.push(b);
            pads_e.push(e);
            y.push((len + b + e - ((kk - 1) * dd + 1)).div_euclid(ss) + 1);
        }
        if y.iter().any(|&o| o < 1) {
            continue;
        }
        let pads = [pads_b, pads_e].concat();
        let bias = if rng.int(0, 1) == 1 {
            Arg::Const(rng.tensor(&[cout], -1.0, 1.0))
        } else {
            Arg::Absent
        };
        let attrs = format!(
            "group = {g} : i64, kernel_shape = {}, strides = {}, dilations = {}, pads = {}",
            arr(&k),
            arr(&s),
            arr(&d),
            arr(&pads)
        );
        let args = vec![
            Arg::Input(rng.tensor(&x, -1.0, 1.0)),
            Arg::Const(rng.tensor(&w, -1.0, 1.0)),
            bias,
        ];
        run(
            &format!("Conv {x:?} {w:?} {attrs}"),
            single("Conv", args, &attrs, &y, 0),
            1e-4,
        );
        done += 1;
    }
    for case in 0..6 {
        let (cin, cout, n) = (rng.int(1, 3), rng.int(1, 3), rng.int(1, 2));
        let (k, s) = (rng.int(1, 3), rng.int(1, 2));
        let (h, w) = (rng.int(2, 6), rng.int(2, 6));
        let out = [n, cout, (h - 1) * s + k, (w - 1) * s + k];
        let attrs = format!(
            "kernel_shape = {}, strides = {}",
            arr(&[k, k]),
            arr(&[s, s])
        );
        let args = vec![
            Arg::Input(rng.tensor(&[n, cin, h, w], -1.0, 1.0)),
            Arg::Const(rng.tensor(&[cin, cout, k, k], -1.0, 1.0)),
            Arg::Absent,
        ];
        run(
            &format!("ConvTranspose case {case}"),
            single("ConvTranspose", args, &attrs, &out, 0),
            1e-4,
        );
    }
}

#[test]
fn matmul_and_gemm() {
    if !openvino_here("matmul_and_gemm") {
        return;
    }
    let mut rng = Rng::new(12);
    for case in 0..12 {
        let (m, k, n) = (rng.int(1, 9), rng.int(1, 17), rng.int(1, 9));
        let batch: Vec<i64> = (0..rng.int(0, 2)).map(|_| rng.int(1, 3)).collect();
        let a = [batch.clone(), vec![m, k]].concat();
        let b_batch = if rng.int(0, 1) == 0 {
            vec![]
        } else {
            batch.clone()
        };
        let b = [b_batch, vec![k, n]].concat();
        let y = [batch, vec![m, n]].concat();
        let bt = rng.tensor(&b, -1.0, 1.0);
        let b = if case % 2 == 0 {
            Arg::Const(bt)
        } else {
            Arg::Input(bt)
        };
        run(
            &format!("MatMul {a:?}"),
            single(
                "MatMul",
                vec![Arg::Input(rng.tensor(&a, -1.0, 1.0)), b],
                "",
                &y,
                0,
            ),
            1e-4,
        );
    }
    for case in 0..8 {
        let (m, k, n) = (rng.int(1, 9), rng.int(1, 17), rng.int(1, 9));
        let (ta, tb) = (rng.int(0, 1), rng.int(0, 1));
        let a = if ta == 1 { vec![k, m] } else { vec![m, k] };
        let b = if tb == 1 { vec![n, k] } else { vec![k, n] };
        let c = match case % 3 {
            0 => Arg::Absent,
            1 => Arg::Const(rng.tensor(&[n], -1.0, 1.0)),
            _ => Arg::Const(rng.tensor(&[m, n], -1.0, 1.0)),
        };
        let attrs = format!("transA = {ta} : i64, transB = {tb} : i64, alpha = 7.5e-01 : f32");
        let args = vec![
            Arg::Input(rng.tensor(&a, -1.0, 1.0)),
            Arg::Const(rng.tensor(&b, -1.0, 1.0)),
            c,
        ];
        run(
            &format!("Gemm {a:?} {b:?}"),
            single("Gemm", args, &attrs, &[m, n], 0),
            1e-4,
        );
    }
}

#[test]
fn pooling() {
    if !openvino_here("pooling") {
        return;
    }
    let mut rng = Rng::new(13);
    for case in 0..16 {
        let op = rng.pick(&[
            "MaxPool",
            "AveragePool",
            "GlobalAveragePool",
            "GlobalMaxPool",
        ]);
        let x = vec![rng.int(1, 2), rng.int(1, 4), rng.int(3, 9), rng.int(3, 9)];
        let input = Arg::Input(rng.tensor(&x, -2.0, 2.0));
        if op.starts_with("Global") {
            run(
                op,
                single(op, vec![input], "", &[x[0], x[1], 1, 1], 0),
                1e-5,
            );
            continue;
        }
        let (k, s) = (rng.int(1, 3), rng.int(1, 2));
        let p = rng.int(0, k - 1);
        let out: Vec<i64> = x[2..]
            .iter()
            .map(|&l| (l + 2 * p - k).div_euclid(s) + 1)
            .collect();
        let attrs = format!(
            "kernel_shape = {}, strides = {}, pads = {}",
            arr(&[k, k]),
            arr(&[s, s]),
            arr(&[p, p, p, p])
        );
        let absent = usize::from(op == "MaxPool");
        run(
            &format!("{op} case {case} {attrs}"),
            single(
                op,
                vec![input],
                &attrs,
                &[x[0], x[1], out[0], out[1]],
                absent,
            ),
            1e-5,
        );
    }
}

#[test]
fn elementwise_unary() {
    if !openvino_here("elementwise_unary") {
        return;
    }
    let mut rng = Rng::new(14);
    let cases: &[(&str, &str, f32, f32)] = &[
        ("Relu", "", -3.0, 3.0),
        ("LeakyRelu", "alpha = 2.0e-01 : f32", -3.0, 3.0),
        ("Sigmoid", "", -6.0, 6.0),
        ("Tanh", "", -3.0, 3.0),
        ("Elu", "alpha = 7.0e-01 : f32", -3.0, 3.0),
        ("Exp", "", -4.0, 4.0),
        ("Log", "", 0.01, 10.0),
        ("Sqrt", "", 0.0, 10.0),
        ("Abs", "", -3.0, 3.0),
        ("Neg", "", -3.0, 3.0),
        ("Reciprocal", "", 0.5, 4.0),
        ("HardSwish", "", -5.0, 5.0),
        ("HardSigmoid", "", -5.0, 5.0),
        ("Erf", "", -3.0, 3.0),
        ("Gelu", "", -4.0, 4.0),
        ("Softplus", "", -4.0, 4.0),
        ("Floor", "", -4.0, 4.0),
        ("Sin", "", -3.0, 3.0),
        ("Identity", "", -1.0, 1.0),
    ];
    for &(op, attrs, lo, hi) in cases {
        for _ in 0..2 {
            let d = rng.dims(1, 4);
            run(
                &format!("{op} {d:?}"),
                single(op, vec![Arg::Input(rng.tensor(&d, lo, hi))], attrs, &d, 0),
                1e-5,
            );
        }
    }
    let d = rng.dims(1, 4);
    let lo = Tensor::from_vec(vec![], vec![-0.5f32]).unwrap();
    let hi = Tensor::from_vec(vec![], vec![0.75f32]).unwrap();
    let args = vec![
        Arg::Input(rng.tensor(&d, -3.0, 3.0)),
        Arg::Const(lo),
        Arg::Const(hi),
    ];
    run("Clip", single("Clip", args, "", &d, 0), 0.0);
}

#[test]
fn binary_with_broadcasting() {
    if !openvino_here("binary_with_broadcasting") {
        return;
    }
    let mut rng = Rng::new(15);
    for op in ["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "PRelu"] {
        for _ in 0..3 {
            let a = rng.dims(1, 4);
            // `b` is `a` with some dims set to 1 and perhaps leading dims dropped.
            let drop = rng.int(0, a.len() as i64 - 1) as usize;
            let b: Vec<i64> = a[drop..]
                .iter()
                .map(|&d| if rng.int(0, 2) == 0 { 1 } else { d })
                .collect();
            let (lo, hi) = if op == "Pow" { (0.1, 3.0) } else { (-3.0, 3.0) };
            let bt = if op == "Div" {
                rng.tensor(&b, 0.5, 3.0)
            } else {
                rng.tensor(&b, -2.0, 2.0)
            };
            let args = vec![
                Arg::Input(rng.tensor(&a, lo, hi)),
                if rng.int(0, 1) == 0 {
                    Arg::Input(bt)
                } else {
                    Arg::Const(bt)
                },
            ];
            run(
                &format!("{op} {a:?} {b:?}"),
                single(op, args, "", &a, 0),
                1e-4,
            );
        }
    }
}

#[test]
fn softmax_and_normalizations() {
    if !openvino_here("softmax_and_normalizations") {
        return;
    }
    let mut rng = Rng::new(16);
    for op in ["Softmax", "LogSoftmax"] {
        for _ in 0..4 {
            let d = rng.dims(1, 4);
            let axis = rng.int(-(d.len() as i64), d.len() as i64 - 1);
            let attrs = format!("axis = {axis} : i64");
            run(
                &format!("{op} {d:?} {axis}"),
                single(
                    op,
                    vec![Arg::Input(rng.tensor(&d, -4.0, 4.0))],
                    &attrs,
                    &d,
                    0,
                ),
                1e-5,
            );
        }
    }
    for _ in 0..4 {
        let d = vec![rng.int(1, 3), rng.int(1, 6), rng.int(1, 6), rng.int(1, 6)];
        let c = d[1];
        let args = vec![
            Arg::Input(rng.tensor(&d, -3.0, 3.0)),
            Arg::Const(rng.tensor(&[c], 0.5, 1.5)),
            Arg::Const(rng.tensor(&[c], -1.0, 1.0)),
            Arg::Const(rng.tensor(&[c], -1.0, 1.0)),
            Arg::Const(rng.tensor(&[c], 0.1, 2.0)),
        ];
        run(
            &format!("BatchNormalization {d:?}"),
            single("BatchNormalization", args, "epsilon = 1.0e-03 : f32", &d, 2),
            1e-4,
        );
        let args = vec![
            Arg::Input(rng.tensor(&d, -3.0, 3.0)),
            Arg::Const(rng.tensor(&[c], 0.5, 1.5)),
            Arg::Const(rng.tensor(&[c], -1.0, 1.0)),
        ];
        run(
            &format!("InstanceNormalization {d:?}"),
            single(
                "InstanceNormalization",
                args,
                "epsilon = 1.0e-05 : f32",
                &d,
                0,
            ),
            1e-4,
        );
    }
    for _ in 0..4 {
        let d = rng.dims(2, 4);
        let last = *d.last().unwrap();
        let args = vec![
            Arg::Input(rng.tensor(&d, -3.0, 3.0)),
            Arg::Const(rng.tensor(&[last], 0.5, 1.5)),
            Arg::Const(rng.tensor(&[last], -1.0, 1.0)),
        ];
        run(
            &format!("LayerNormalization {d:?}"),
            single("LayerNormalization", args, "epsilon = 1.0e-05 : f32", &d, 2),
            1e-4,
        );
    }
}

#[test]
fn reductions() {
    if !openvino_here("reductions") {
        return;
    }
    let mut rng = Rng::new(17);
    for op in ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"] {
        for _ in 0..3 {
            let d = rng.dims(1, 4);
            let axis = rng.int(0, d.len() as i64 - 1);
            let keep = rng.int(0, 1);
            let out: Vec<i64> = d
                .iter()
                .enumerate()
                .filter_map(|(i, &n)| {
                    if i as i64 == axis {
                        (keep == 1).then_some(1)
                    } else {
                        Some(n)
                    }
                })
                .collect();
            let args = vec![Arg::Input(rng.tensor(&d, -3.0, 3.0)), Arg::Ints(vec![axis])];
            run(
                &format!("{op} {d:?} axis {axis} keep {keep}"),
                single(op, args, &format!("keepdims = {keep} : i64"), &out, 0),
                1e-4,
            );
        }
    }
}

#[test]
fn shape_ops() {
    if !openvino_here("shape_ops") {
        return;
    }
    let mut rng = Rng::new(18);
    for _ in 0..4 {
        let d = rng.dims(2, 4);
        let n: i64 = d.iter().product();
        let to = vec![d[0], n / d[0]];
        let args = vec![Arg::Input(rng.tensor(&d, -1.0, 1.0)), Arg::Ints(to.clone())];
        run(
            &format!("Reshape {d:?}"),
            single("Reshape", args, "", &to, 0),
            0.0,
        );
        let mut perm: Vec<i64> = (0..d.len() as i64).collect();
        perm.reverse();
        let out: Vec<i64> = perm.iter().map(|&p| d[p as usize]).collect();
        let attrs = format!("perm = {}", arr(&perm));
        run(
            &format!("Transpose {d:?}"),
            single(
                "Transpose",
                vec![Arg::Input(rng.tensor(&d, -1.0, 1.0))],
                &attrs,
                &out,
                0,
            ),
            0.0,
        );
        let axis = rng.int(0, d.len() as i64);
        let out = vec![
            d[..axis as usize].iter().product(),
            d[axis as usize..].iter().product(),
        ];
        run(
            &format!("Flatten {d:?} {axis}"),
            single(
                "Flatten",
                vec![Arg::Input(rng.tensor(&d, -1.0, 1.0))],
                &format!("axis = {axis} : i64"),
                &out,
                0,
            ),
            0.0,
        );
        let axis = rng.int(0, d.len() as i64 - 1);
        let mut b = d.clone();
        b[axis as usize] = rng.int(1, 4);
        let mut out = d.clone();
        out[axis as usize] += b[axis as usize];
        let args = vec![
            Arg::Input(rng.tensor(&d, -1.0, 1.0)),
            Arg::Const(rng.tensor(&b, -1.0, 1.0)),
        ];
        run(
            &format!("Concat {d:?} {b:?}"),
            single("Concat", args, &format!("axis = {axis} : i64"), &out, 0),
            0.0,
        );
        let mut out = d.clone();
        out.insert(0, 1);
        run(
            "Unsqueeze",
            single(
                "Unsqueeze",
                vec![Arg::Input(rng.tensor(&d, -1.0, 1.0)), Arg::Ints(vec![0])],
                "",
                &out,
                0,
            ),
            0.0,
        );
        let end = rng.int(1, d[0]);
        let mut out = d.clone();
        out[0] = end;
        let args = vec![
            Arg::Input(rng.tensor(&d, -1.0, 1.0)),
            Arg::Ints(vec![0]),
            Arg::Ints(vec![end]),
            Arg::Ints(vec![0]),
            Arg::Absent,
        ];
        run("Slice", single("Slice", args, "", &out, 0), 0.0);
    }
}

/// A chain (conv, batch norm, relu, pool, flatten, gemm, softmax) whose batch dim is
/// dynamic: OpenVINO compiles the dynamic model once and runs it at batch 1 and 3.
#[test]
fn a_chain_with_a_dynamic_batch() {
    if !openvino_here("a_chain_with_a_dynamic_batch") {
        return;
    }
    let mut rng = Rng::new(19);
    let mut body = String::new();
    body.push_str(&constant("w", &rng.tensor(&[4, 2, 3, 3], -0.5, 0.5)));
    body.push_str(&constant("b", &rng.tensor(&[4], -0.5, 0.5)));
    body.push_str(&constant("fc", &rng.tensor(&[16, 5], -0.5, 0.5)));
    let text = format!(
        r#"func.func @main(%x: tensor<?x2x8x8xf32>) -> tensor<?x5xf32> {{
{body}  %c = "graph.Conv"(%x, %w, %b) <{{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}}> : (tensor<?x2x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  %r = "graph.Relu"(%c) : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %p:2 = "graph.MaxPool"(%r) <{{kernel_shape = array<i64: 4, 4>, strides = array<i64: 4, 4>}}> : (tensor<?x4x8x8xf32>) -> (tensor<?x4x2x2xf32>, none)
  %f = "graph.Flatten"(%p#0) <{{axis = 1 : i64}}> : (tensor<?x4x2x2xf32>) -> tensor<?x16xf32>
  %m = "graph.MatMul"(%f, %fc) : (tensor<?x16xf32>, tensor<16x5xf32>) -> tensor<?x5xf32>
  %s = "graph.Softmax"(%m) <{{axis = 1 : i64}}> : (tensor<?x5xf32>) -> tensor<?x5xf32>
  return %s : tensor<?x5xf32>
}}
"#
    );
    for n in [1, 3] {
        let x = rng.tensor(&[n, 2, 8, 8], -1.0, 1.0);
        check(&format!("chain at batch {n}"), &text, &[x], 1e-5, 1e-4);
    }
}

/// Rank-0 tensors in and out of a segment (the C API has no rank-0 shape of its own).
#[test]
fn scalars_cross_the_boundary() {
    if !openvino_here("scalars_cross_the_boundary") {
        return;
    }
    let mut rng = Rng::new(20);
    let text = r#"func.func @main(%x: tensor<3x4xf32>, %s: tensor<f32>) -> (tensor<3x4xf32>, tensor<f32>) {
  %m = "graph.Mul"(%x, %s) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %none = "graph.none"() : () -> none
  %r = "graph.ReduceSum"(%m, %none) <{keepdims = 0 : i64}> : (tensor<3x4xf32>, none) -> tensor<f32>
  return %m, %r : tensor<3x4xf32>, tensor<f32>
}
"#;
    let s = Tensor::from_vec(vec![], vec![rng.float(-2.0, 2.0)]).unwrap();
    check(
        "scalars",
        text,
        &[rng.tensor(&[3, 4], -1.0, 1.0), s],
        1e-5,
        1e-5,
    );
}
