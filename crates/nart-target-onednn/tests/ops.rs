//! Every op the onednn target supports, on random shapes and attributes (seeded), against the
//! interpreter: the op alone in a function, partitioned onto `onednn`, compiled, loaded and
//! run twice. fp32, within a tolerance.

mod common;

use common::{
    assert_close, constant, interpret, on_onednn, on_onednn_with_program, onednn_here, ty, Rng,
};
use nart_onednn_rt::program::{OpKind, PostOp};
use nart_tensor::Tensor;

/// An operand of the op under test.
enum Arg {
    /// A function argument with this value.
    In(Tensor),
    /// A constant.
    Const(Tensor),
    /// An `i64` constant (a shape).
    Shape(Vec<i64>),
    /// An absent optional operand.
    None,
}

fn dims_of(t: &Tensor) -> Vec<i64> {
    t.shape().iter().map(|&d| d as i64).collect()
}

/// The function `main` running `op` once, and its inputs.
fn single_op(op: &str, args: Vec<Arg>, attrs: &str, out: &[i64]) -> (String, Vec<Tensor>) {
    let mut params = Vec::new();
    let mut body = String::new();
    let mut operands = Vec::new();
    let mut types = Vec::new();
    let mut inputs = Vec::new();
    for (i, a) in args.into_iter().enumerate() {
        match a {
            Arg::In(t) => {
                params.push(format!("%a{i}: {}", ty(&dims_of(&t))));
                operands.push(format!("%a{i}"));
                types.push(ty(&dims_of(&t)));
                inputs.push(t);
            }
            Arg::Const(t) => {
                body.push_str(&constant(&format!("c{i}"), &t));
                operands.push(format!("%c{i}"));
                types.push(ty(&dims_of(&t)));
            }
            Arg::Shape(v) => {
                let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                let t = format!("tensor<{}xi64>", v.len());
                body.push_str(&format!(
                    "  %s{i} = \"graph.constant\"() <{{value = dense<[{}]> : {t}}}> : () -> {t}\n",
                    items.join(", ")
                ));
                operands.push(format!("%s{i}"));
                types.push(t);
            }
            Arg::None => {
                body.push_str(&format!("  %n{i} = \"graph.none\"() : () -> none\n"));
                operands.push(format!("%n{i}"));
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
    // Optional results the op does not produce here are `none`.
    let absent = match op {
        "MaxPool" | "Dropout" => 1,
        "BatchNormalization" | "LayerNormalization" => 2,
        _ => 0,
    };
    let (lhs, results, ret) = if absent == 0 {
        ("%y".to_string(), out_ty.clone(), "%y".to_string())
    } else {
        (
            format!("%y:{}", absent + 1),
            format!("({out_ty}{})", ", none".repeat(absent)),
            "%y#0".to_string(),
        )
    };
    let text = format!(
        "func.func @main({}) -> {out_ty} {{\n{body}  {lhs} = \"graph.{op}\"({}){attrs} : ({}) -> {results}\n  return {ret} : {out_ty}\n}}\n",
        params.join(", "),
        operands.join(", "),
        types.join(", ")
    );
    (text, inputs)
}

fn check(case: &str, (text, inputs): (String, Vec<Tensor>), atol: f32, rtol: f32) {
    let want = interpret(&text, &inputs);
    let got = on_onednn(&text, &inputs)
        .unwrap_or_else(|why| panic!("{case}: not run on onednn: {why}\n{text}"));
    assert_close(&format!("{case}\n{text}"), &got, &want, atol, rtol);
}

fn arr(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("array<i64: {}>", items.join(", "))
}

#[test]
fn conv_random() {
    if !onednn_here("conv_random") {
        return;
    }
    let mut rng = Rng::new(1);
    let mut done = 0;
    while done < 40 {
        let sp = *rng.pick(&[1usize, 2, 2, 2, 3]);
        let n = rng.int(1, 2);
        let g = *rng.pick(&[1, 1, 2, 3]);
        let depthwise = rng.int(0, 3) == 0;
        let (cin, cout, g) = if depthwise {
            let c = rng.int(2, 6);
            (c, c, c)
        } else {
            (g * rng.int(1, 3), g * rng.int(1, 3), g)
        };
        let mut x = vec![n, cin];
        let mut w = vec![cout, cin / g];
        let (mut k, mut s, mut d, mut pb, mut pe, mut y) =
            (vec![], vec![], vec![], vec![], vec![], vec![n, cout]);
        for _ in 0..sp {
            let len = rng.int(if sp == 3 { 3 } else { 4 }, if sp == 3 { 6 } else { 11 });
            let kk = rng.int(1, 3);
            let ss = rng.int(1, 2);
            let dd = rng.int(1, 2);
            let (b, e) = (rng.int(0, kk - 1), rng.int(0, kk - 1));
            let o = (len + b + e - ((kk - 1) * dd + 1)).div_euclid(ss) + 1;
            x.push(len);
            w.push(kk);
            k.push(kk);
            s.push(ss);
            d.push(dd);
            pb.push(b);
            pe.push(e);
            y.push(o);
        }
        if y.iter().any(|&o| o < 1) {
            continue;
        }
        let mut pads = pb.clone();
        pads.extend(&pe);
        let bias = rng.int(0, 1) == 1;
        let xt = rng.tensor(&x, -1.0, 1.0);
        let wt = rng.tensor(&w, -1.0, 1.0);
        let wa = if rng.int(0, 4) == 0 {
            Arg::In(wt)
        } else {
            Arg::Const(wt)
        };
        let mut args = vec![Arg::In(xt), wa];
        args.push(if bias {
            Arg::Const(rng.tensor(&[cout], -1.0, 1.0))
        } else {
            Arg::None
        });
        let attrs = format!(
            "group = {g} : i64, kernel_shape = {}, strides = {}, dilations = {}, pads = {}",
            arr(&k),
            arr(&s),
            arr(&d),
            arr(&pads)
        );
        check(
            &format!("conv case {done}"),
            single_op("Conv", args, &attrs, &y),
            1e-4,
            1e-4,
        );
        done += 1;
    }
}

#[test]
fn matmul_and_gemm_random() {
    if !onednn_here("matmul_and_gemm_random") {
        return;
    }
    let mut rng = Rng::new(2);
    for case in 0..30 {
        let (m, k, n) = (rng.int(1, 9), rng.int(1, 17), rng.int(1, 9));
        let ra = rng.int(1, 4) as usize;
        let rb = rng.int(1, 4) as usize;
        let batch: Vec<i64> = (0..4).map(|_| rng.int(1, 3)).collect();
        let mut a: Vec<i64> = (0..ra.saturating_sub(2))
            .map(|i| {
                if rng.int(0, 2) == 0 {
                    1
                } else {
                    batch[i + 4 - ra]
                }
            })
            .collect();
        let mut b: Vec<i64> = (0..rb.saturating_sub(2))
            .map(|i| {
                if rng.int(0, 2) == 0 {
                    1
                } else {
                    batch[i + 4 - rb]
                }
            })
            .collect();
        let r = ra.max(rb).max(2);
        let pa = [vec![1; r - 2 - a.len().min(r - 2)], a.clone()].concat();
        let pb = [vec![1; r - 2 - b.len().min(r - 2)], b.clone()].concat();
        let mut y: Vec<i64> = pa.iter().zip(&pb).map(|(p, q)| *p.max(q)).collect();
        if ra == 1 {
            a = vec![k];
        } else {
            a.extend([m, k]);
            y.push(m);
        }
        if rb == 1 {
            b = vec![k];
        } else {
            b.extend([k, n]);
            y.push(n);
        }
        let at = rng.tensor(&a, -1.0, 1.0);
        let bt = rng.tensor(&b, -1.0, 1.0);
        let bb = if case % 2 == 0 {
            Arg::Const(bt)
        } else {
            Arg::In(bt)
        };
        check(
            &format!("matmul {a:?} x {b:?}"),
            single_op("MatMul", vec![Arg::In(at), bb], "", &y),
            1e-4,
            1e-4,
        );
    }
    for case in 0..20 {
        let (m, k, n) = (rng.int(1, 9), rng.int(1, 17), rng.int(1, 9));
        let (ta, tb) = (rng.int(0, 1), rng.int(0, 1));
        let a = if ta == 1 { vec![k, m] } else { vec![m, k] };
        let b = if tb == 1 { vec![n, k] } else { vec![k, n] };
        let c = match case % 4 {
            0 => None,
            1 => Some(vec![n]),
            2 => Some(vec![m, n]),
            _ => Some(vec![1, n]),
        };
        let mut args = vec![
            Arg::In(rng.tensor(&a, -1.0, 1.0)),
            Arg::Const(rng.tensor(&b, -1.0, 1.0)),
        ];
        args.push(match &c {
            Some(c) => Arg::Const(rng.tensor(c, -1.0, 1.0)),
            None => Arg::None,
        });
        let attrs = format!("transA = {ta} : i64, transB = {tb} : i64");
        check(
            &format!("gemm {a:?} {b:?} {c:?}"),
            single_op("Gemm", args, &attrs, &[m, n]),
            1e-4,
            1e-4,
        );
    }
}

#[test]
fn pooling_random() {
    if !onednn_here("pooling_random") {
        return;
    }
    let mut rng = Rng::new(3);
    let mut done = 0;
    while done < 40 {
        let op = *rng.pick(&[
            "MaxPool",
            "AveragePool",
            "GlobalAveragePool",
            "GlobalMaxPool",
        ]);
        let sp = *rng.pick(&[1usize, 2, 2, 3]);
        let mut x = vec![rng.int(1, 2), rng.int(1, 5)];
        for _ in 0..sp {
            x.push(rng.int(3, if sp == 3 { 6 } else { 10 }));
        }
        if op.starts_with("Global") {
            let mut y = x[..2].to_vec();
            y.extend(vec![1; sp]);
            check(
                op,
                single_op(op, vec![Arg::In(rng.tensor(&x, -2.0, 2.0))], "", &y),
                1e-5,
                1e-5,
            );
            done += 1;
            continue;
        }
        let ceil = rng.int(0, 1);
        let include = if op == "AveragePool" && ceil == 0 {
            rng.int(0, 1)
        } else {
            0
        };
        let (mut k, mut s, mut pb, mut pe, mut y) =
            (vec![], vec![], vec![], vec![], x[..2].to_vec());
        for i in 0..sp {
            let kk = rng.int(1, 3);
            let ss = rng.int(1, 2);
            let (b, e) = (rng.int(0, kk - 1), rng.int(0, kk - 1));
            let span = x[2 + i] + b + e - kk;
            let mut o = span.div_euclid(ss) + 1;
            if ceil == 1 && span.rem_euclid(ss) != 0 {
                o += 1;
                // ONNX drops a last window that starts in the end padding.
                if (o - 1) * ss >= x[2 + i] + b {
                    o -= 1;
                }
            }
            k.push(kk);
            s.push(ss);
            pb.push(b);
            pe.push(e);
            y.push(o);
        }
        let mut pads = pb.clone();
        pads.extend(&pe);
        let mut attrs = format!(
            "kernel_shape = {}, strides = {}, pads = {}, ceil_mode = {ceil} : i64",
            arr(&k),
            arr(&s),
            arr(&pads)
        );
        if op == "AveragePool" {
            attrs.push_str(&format!(", count_include_pad = {include} : i64"));
        }
        check(
            &format!("{op} {x:?} k{k:?} s{s:?} p{pads:?} ceil {ceil} include {include}"),
            single_op(op, vec![Arg::In(rng.tensor(&x, -2.0, 2.0))], &attrs, &y),
            1e-5,
            1e-5,
        );
        done += 1;
    }
}

fn random_dims(rng: &mut Rng) -> Vec<i64> {
    let r = rng.int(1, 4);
    (0..r).map(|_| rng.int(1, 6)).collect()
}

#[test]
fn eltwise_random() {
    if !onednn_here("eltwise_random") {
        return;
    }
    let mut rng = Rng::new(4);
    let cases: [(&str, &str, f32, f32); 16] = [
        ("Relu", "", -3.0, 3.0),
        ("LeakyRelu", "alpha = 0.2 : f32", -3.0, 3.0),
        ("LeakyRelu", "", -3.0, 3.0),
        ("Sigmoid", "", -6.0, 6.0),
        ("Tanh", "", -3.0, 3.0),
        ("Elu", "alpha = 0.7 : f32", -3.0, 3.0),
        ("Exp", "", -4.0, 4.0),
        ("Log", "", 0.01, 10.0),
        ("Sqrt", "", 0.0, 10.0),
        ("Abs", "", -3.0, 3.0),
        ("Neg", "", -3.0, 3.0),
        ("HardSwish", "", -5.0, 5.0),
        ("Mish", "", -5.0, 5.0),
        ("Gelu", "", -4.0, 4.0),
        ("Gelu", "approximate = \"tanh\"", -4.0, 4.0),
        ("Identity", "", -1.0, 1.0),
    ];
    for (op, attrs, lo, hi) in cases {
        for _ in 0..3 {
            let d = random_dims(&mut rng);
            check(
                &format!("{op} {attrs} {d:?}"),
                single_op(op, vec![Arg::In(rng.tensor(&d, lo, hi))], attrs, &d),
                1e-5,
                1e-5,
            );
        }
    }
    for case in 0..6 {
        let d = random_dims(&mut rng);
        let lo = Tensor::from_vec(vec![], vec![rng.float(-2.0, 0.0)]).unwrap();
        let hi = Tensor::from_vec(vec![], vec![rng.float(0.0, 2.0)]).unwrap();
        let args = match case % 3 {
            0 => vec![
                Arg::In(rng.tensor(&d, -3.0, 3.0)),
                Arg::Const(lo),
                Arg::Const(hi),
            ],
            1 => vec![
                Arg::In(rng.tensor(&d, -3.0, 3.0)),
                Arg::None,
                Arg::Const(hi),
            ],
            _ => vec![
                Arg::In(rng.tensor(&d, -3.0, 3.0)),
                Arg::Const(lo),
                Arg::None,
            ],
        };
        check(
            &format!("Clip {d:?}"),
            single_op("Clip", args, "", &d),
            1e-6,
            0.0,
        );
    }
}

#[test]
fn softmax_and_norms_random() {
    if !onednn_here("softmax_and_norms_random") {
        return;
    }
    let mut rng = Rng::new(5);
    for op in ["Softmax", "LogSoftmax"] {
        for _ in 0..5 {
            let d = random_dims(&mut rng);
            let attrs = if rng.int(0, 1) == 0 {
                String::new()
            } else {
                format!("axis = {} : i64", d.len() - 1)
            };
            check(
                &format!("{op} {d:?}"),
                single_op(op, vec![Arg::In(rng.tensor(&d, -4.0, 4.0))], &attrs, &d),
                1e-5,
                1e-4,
            );
        }
    }
    for _ in 0..8 {
        let mut d = vec![rng.int(1, 3), rng.int(1, 6)];
        for _ in 0..rng.int(0, 2) {
            d.push(rng.int(1, 6));
        }
        let c = d[1];
        let args = vec![
            Arg::In(rng.tensor(&d, -3.0, 3.0)),
            Arg::Const(rng.tensor(&[c], 0.5, 1.5)),
            Arg::Const(rng.tensor(&[c], -1.0, 1.0)),
            Arg::Const(rng.tensor(&[c], -1.0, 1.0)),
            Arg::Const(rng.tensor(&[c], 0.1, 2.0)),
        ];
        let eps = rng.float(1e-5, 1e-2);
        check(
            &format!("BatchNormalization {d:?}"),
            single_op(
                "BatchNormalization",
                args,
                &format!("epsilon = {eps:e} : f32"),
                &d,
            ),
            1e-5,
            1e-4,
        );
    }
    for case in 0..8 {
        let mut d = random_dims(&mut rng);
        if d.len() < 2 {
            d.insert(0, 2);
        }
        let c = *d.last().unwrap();
        let mut args = vec![
            Arg::In(rng.tensor(&d, -3.0, 3.0)),
            Arg::Const(rng.tensor(&[c], 0.5, 1.5)),
        ];
        args.push(if case % 2 == 0 {
            Arg::Const(rng.tensor(&[c], -1.0, 1.0))
        } else {
            Arg::None
        });
        check(
            &format!("LayerNormalization {d:?}"),
            single_op("LayerNormalization", args, "epsilon = 1.0e-05 : f32", &d),
            1e-4,
            1e-4,
        );
    }
}

#[test]
fn binary_broadcast_random() {
    if !onednn_here("binary_broadcast_random") {
        return;
    }
    let mut rng = Rng::new(6);
    for op in ["Add", "Sub", "Mul", "Div", "Max", "Min"] {
        for case in 0..6 {
            let y = random_dims(&mut rng);
            // The second operand broadcasts (dims dropped from the front or set to 1); for the
            // commutative ops, sometimes the first does.
            let r = rng.int(0, y.len() as i64) as usize;
            let small: Vec<i64> = y[y.len() - r..]
                .iter()
                .map(|&d| if rng.int(0, 1) == 0 { 1 } else { d })
                .collect();
            let commutes = matches!(op, "Add" | "Mul" | "Max" | "Min");
            let (a, b) = if commutes && case % 2 == 1 {
                (small, y.clone())
            } else {
                (y.clone(), small)
            };
            let (lo, hi) = if op == "Div" { (0.5, 2.0) } else { (-2.0, 2.0) };
            let bt = rng.tensor(&b, lo, hi);
            let barg = if case % 3 == 0 {
                Arg::Const(bt)
            } else {
                Arg::In(bt)
            };
            check(
                &format!("{op} {a:?} {b:?}"),
                single_op(op, vec![Arg::In(rng.tensor(&a, lo, hi)), barg], "", &y),
                1e-6,
                1e-6,
            );
        }
    }
}

#[test]
fn transpose_and_views_random() {
    if !onednn_here("transpose_and_views_random") {
        return;
    }
    let mut rng = Rng::new(7);
    for _ in 0..10 {
        let d = random_dims(&mut rng);
        let mut perm: Vec<i64> = (0..d.len() as i64).collect();
        for i in (1..perm.len()).rev() {
            let j = rng.int(0, i as i64) as usize;
            perm.swap(i, j);
        }
        let y: Vec<i64> = perm.iter().map(|&p| d[p as usize]).collect();
        check(
            &format!("Transpose {d:?} {perm:?}"),
            single_op(
                "Transpose",
                vec![Arg::In(rng.tensor(&d, -1.0, 1.0))],
                &format!("perm = {}", arr(&perm)),
                &y,
            ),
            0.0,
            0.0,
        );
    }
    for _ in 0..5 {
        let d = random_dims(&mut rng);
        let n: i64 = d.iter().product();
        check(
            &format!("Reshape {d:?}"),
            single_op(
                "Reshape",
                vec![Arg::In(rng.tensor(&d, -1.0, 1.0)), Arg::Shape(vec![1, -1])],
                "",
                &[1, n],
            ),
            0.0,
            0.0,
        );
        check(
            &format!("Flatten {d:?}"),
            single_op(
                "Flatten",
                vec![Arg::In(rng.tensor(&d, -1.0, 1.0))],
                "axis = 1 : i64",
                &[d[0], n / d[0]],
            ),
            0.0,
            0.0,
        );
    }
}

/// Conv → BatchNormalization → Add(residual) → Relu compiles into a convolution (the
/// normalization folded into its weights) and an Add with the Relu fused, MatMul → Add(bias) →
/// Gelu into one matmul with two post-ops; both compute what the interpreter computes.
#[test]
fn fused_chains_random() {
    if !onednn_here("fused_chains_random") {
        return;
    }
    let mut rng = Rng::new(8);
    for case in 0..8 {
        let (n, ci, co, h) = (rng.int(1, 2), rng.int(1, 6), rng.int(1, 20), rng.int(4, 9));
        let x = [n, ci, h, h];
        let y = [n, co, h, h];
        let mut body = String::new();
        body.push_str(&constant("w", &rng.tensor(&[co, ci, 3, 3], -1.0, 1.0)));
        body.push_str(&constant("b", &rng.tensor(&[co], -1.0, 1.0)));
        for (name, lo, hi) in [
            ("s", 0.5, 1.5),
            ("sh", -1.0, 1.0),
            ("m", -1.0, 1.0),
            ("v", 0.1, 2.0),
        ] {
            body.push_str(&constant(name, &rng.tensor(&[co], lo, hi)));
        }
        let c = ty(&[co]);
        let text = format!(
            "func.func @main(%x: {tx}, %r: {ty}) -> {ty} {{
{body}  %c = \"graph.Conv\"(%x, %w, %b) <{{pads = array<i64: 1, 1, 1, 1>}}> : ({tx}, {tw}, {c}) -> {ty}
  %n:3 = \"graph.BatchNormalization\"(%c, %s, %sh, %m, %v) <{{epsilon = 1.0e-03 : f32}}> : ({ty}, {c}, {c}, {c}, {c}) -> ({ty}, none, none)
  %a = \"graph.Add\"(%n#0, %r) : ({ty}, {ty}) -> {ty}
  %y = \"graph.Relu\"(%a) : ({ty}) -> {ty}
  return %y : {ty}
}}
",
            tx = ty(&x),
            ty = ty(&y),
            tw = ty(&[co, ci, 3, 3]),
        );
        let inputs = vec![rng.tensor(&x, -1.0, 1.0), rng.tensor(&y, -1.0, 1.0)];
        let want = interpret(&text, &inputs);
        let (got, program) = on_onednn_with_program(&text, &inputs).unwrap();
        assert_close(&format!("case {case}\n{text}"), &got, &want, 1e-4, 1e-4);
        // The normalization folds into the convolution; the residual Add (full-size) stays a
        // binary op, which the Relu fuses into.
        assert_eq!(program.ops.len(), 2, "{:?}", program.ops);
        assert!(matches!(program.ops[0].kind, OpKind::Conv { .. }));
        assert!(program.ops[0].post.is_empty());
        assert!(matches!(program.ops[1].kind, OpKind::Binary { .. }));
        assert!(matches!(program.ops[1].post[..], [PostOp::Eltwise { .. }]));
    }
    for case in 0..8 {
        let (b, m, k, n) = (rng.int(1, 3), rng.int(1, 9), rng.int(1, 17), rng.int(1, 9));
        let (tx, ty_) = (ty(&[b, m, k]), ty(&[b, m, n]));
        let mut body = String::new();
        body.push_str(&constant("w", &rng.tensor(&[k, n], -1.0, 1.0)));
        body.push_str(&constant("bias", &rng.tensor(&[n], -1.0, 1.0)));
        let text = format!(
            "func.func @main(%x: {tx}) -> {ty_} {{
{body}  %p = \"graph.MatMul\"(%x, %w) : ({tx}, {tw}) -> {ty_}
  %a = \"graph.Add\"(%p, %bias) : ({ty_}, {tb}) -> {ty_}
  %y = \"graph.Gelu\"(%a) : ({ty_}) -> {ty_}
  return %y : {ty_}
}}
",
            tw = ty(&[k, n]),
            tb = ty(&[n]),
        );
        let inputs = vec![rng.tensor(&[b, m, k], -1.0, 1.0)];
        let want = interpret(&text, &inputs);
        let (got, program) = on_onednn_with_program(&text, &inputs).unwrap();
        assert_close(&format!("case {case}\n{text}"), &got, &want, 1e-4, 1e-4);
        assert_eq!(program.ops.len(), 1, "{:?}", program.ops);
        assert_eq!(program.ops[0].post.len(), 2);
    }
}
