//! Property tests: every rewrite, on random shapes, constants and inputs, computes what the
//! decomposed form computes. Each case builds a function, runs it in the interpreter, runs the
//! pass, checks that the pattern fired (the op it makes is there), and runs it again on the
//! same inputs; the outputs must agree within float tolerance.

mod common;

use common::{count, ctx, eval, max_err, parse, run, ty, Rng};
use nart_tensor::Tensor;

/// One generated case: the module text, its inputs, the op the rewrite must produce, and the
/// ops that must be gone after it.
struct Case {
    text: String,
    inputs: Vec<Tensor>,
    want: &'static str,
    gone: &'static [&'static str],
}

const SEEDS: u64 = 12;

/// Runs `gen` for every seed through `pipeline` and compares both sides.
fn check(name: &str, pipeline: &str, gen: fn(&mut Rng) -> Case) {
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed * 7919 + name.len() as u64);
        let case = gen(&mut rng);
        let mut c = ctx();
        let m = parse(&mut c, &case.text);
        let before = eval(&c, m, &case.inputs);
        let report = run(&mut c, m, pipeline);
        assert!(
            count(&c, m, case.want) >= 1,
            "{name} seed {seed}: no {} after the pass\n{}",
            case.want,
            case.text
        );
        for g in case.gone {
            assert_eq!(
                count(&c, m, g),
                0,
                "{name} seed {seed}: {g} is still there\n{}\n{report}",
                case.text
            );
        }
        let after = eval(&c, m, &case.inputs);
        for (a, b) in after.iter().zip(&before) {
            let e = max_err(a, b, 1e-5, 1e-4);
            assert!(
                e <= 1.0,
                "{name} seed {seed}: outputs differ (error {e})\n{}",
                case.text
            );
        }
    }
}

const RECOGNIZE: &str = "builtin.module(func.func(graph-recognize))";
const FUSE: &str = "builtin.module(func.func(graph-fuse-activation))";

fn shape(rng: &mut Rng, min_rank: usize, max_rank: usize) -> Vec<usize> {
    let rank = rng.size(min_rank, max_rank);
    (0..rank).map(|_| rng.size(1, 5)).collect()
}

fn scalar(name: &str, v: f64) -> String {
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<{}> : tensor<f32>}}> : () -> tensor<f32>\n",
        common::lit(v)
    )
}

fn bin(out: &str, op: &str, a: &str, b: &str, ta: &str, tb: &str, t: &str) -> String {
    format!("  %{out} = \"graph.{op}\"(%{a}, %{b}) : ({ta}, {tb}) -> {t}\n")
}

fn un(out: &str, op: &str, a: &str, t: &str) -> String {
    format!("  %{out} = \"graph.{op}\"(%{a}) : ({t}) -> {t}\n")
}

fn func(args: &[(&str, String)], body: &str, ret: &str, t: &str) -> String {
    let a: Vec<String> = args.iter().map(|(n, t)| format!("%{n}: {t}")).collect();
    format!(
        "func.func @f({}) -> {t} {{\n{body}  return %{ret} : {t}\n}}\n",
        a.join(", ")
    )
}

#[test]
fn gelu_erf_equals_its_decomposition() {
    check("gelu_erf", RECOGNIZE, |rng| {
        let s = shape(rng, 1, 3);
        let t = ty(&s);
        let f = "tensor<f32>";
        let mut b = scalar("half", 0.5) + &scalar("one", 1.0);
        // PyTorch's `x / 1.4142...` or TF's `x * 0.7071...`.
        if rng.next() % 2 == 0 {
            b += &scalar("k", 1.4142135381698608);
            b += &bin("s", "Div", "x", "k", &t, f, &t);
        } else {
            b += &scalar("k", 0.7071067690849304);
            b += &bin("s", "Mul", "k", "x", f, &t, &t);
        }
        b += &un("e", "Erf", "s", &t);
        b += &bin("a", "Add", "one", "e", f, &t, &t);
        // `x * a * 0.5`, `0.5 * x * a` or `x * (a * 0.5)`.
        match rng.next() % 3 {
            0 => {
                b += &bin("m", "Mul", "x", "a", &t, &t, &t);
                b += &bin("y", "Mul", "m", "half", &t, f, &t);
            }
            1 => {
                b += &bin("m", "Mul", "half", "x", f, &t, &t);
                b += &bin("y", "Mul", "m", "a", &t, &t, &t);
            }
            _ => {
                b += &bin("m", "Mul", "a", "half", &t, f, &t);
                b += &bin("y", "Mul", "x", "m", &t, &t, &t);
            }
        }
        Case {
            text: func(&[("x", t.clone())], &b, "y", &t),
            inputs: vec![rng.tensor(&s, -4.0, 4.0)],
            want: "graph.Gelu",
            gone: &["graph.Erf", "graph.Tanh", "graph.Mul"],
        }
    });
}

#[test]
fn gelu_tanh_equals_its_decomposition() {
    check("gelu_tanh", RECOGNIZE, |rng| {
        let s = shape(rng, 1, 3);
        let t = ty(&s);
        let f = "tensor<f32>";
        let mut b = scalar("half", 0.5) + &scalar("one", 1.0);
        b += &(scalar("c", 0.044715) + &scalar("k", 0.7978845834732056));
        if rng.next() % 2 == 0 {
            b += &scalar("three", 3.0);
            b += &bin("p", "Pow", "x", "three", &t, f, &t);
        } else {
            b += &bin("sq", "Mul", "x", "x", &t, &t, &t);
            b += &bin("p", "Mul", "sq", "x", &t, &t, &t);
        }
        b += &bin("pc", "Mul", "c", "p", f, &t, &t);
        b += &bin("in", "Add", "x", "pc", &t, &t, &t);
        b += &bin("sc", "Mul", "in", "k", &t, f, &t);
        b += &un("th", "Tanh", "sc", &t);
        b += &bin("a", "Add", "th", "one", &t, f, &t);
        b += &bin("hx", "Mul", "x", "half", &t, f, &t);
        b += &bin("y", "Mul", "hx", "a", &t, &t, &t);
        Case {
            text: func(&[("x", t.clone())], &b, "y", &t),
            inputs: vec![rng.tensor(&s, -4.0, 4.0)],
            want: "graph.Gelu",
            gone: &["graph.Erf", "graph.Tanh", "graph.Mul"],
        }
    });
}

/// `ReduceMean(v)` over the last `k` axes, keeping dims, with the axes as an input.
fn reduce_mean(out: &str, v: &str, s: &[usize], k: usize) -> String {
    let rank = s.len();
    let axes: Vec<String> = (rank - k..rank).map(|a| a.to_string()).collect();
    let mut r = s.to_vec();
    for d in &mut r[rank - k..] {
        *d = 1;
    }
    format!(
        "  %{out}_axes = \"graph.constant\"() <{{value = dense<[{}]> : tensor<{k}xi64>}}> : () -> tensor<{k}xi64>\n  %{out} = \"graph.ReduceMean\"(%{v}, %{out}_axes) : ({}, tensor<{k}xi64>) -> {}\n",
        axes.join(", "),
        ty(s),
        ty(&r)
    )
}

#[test]
fn layer_norm_equals_its_decomposition() {
    check("layer_norm", RECOGNIZE, |rng| {
        let s = shape(rng, 2, 4);
        let k = rng.size(1, 2.min(s.len() - 1));
        let t = ty(&s);
        let rank = s.len();
        let mut rs = s.clone();
        for d in &mut rs[rank - k..] {
            *d = 1;
        }
        let tr = ty(&rs);
        let norm = &s[rank - k..];
        let tn = ty(norm);
        let f = "tensor<f32>";
        let mut b = reduce_mean("mean", "x", &s, k);
        b += &bin("d", "Sub", "x", "mean", &t, &tr, &t);
        if rng.next() % 2 == 0 {
            b += &scalar("two", 2.0);
            b += &bin("sq", "Pow", "d", "two", &t, f, &t);
        } else {
            b += &bin("sq", "Mul", "d", "d", &t, &t, &t);
        }
        b += &reduce_mean("var", "sq", &s, k);
        b += &scalar("eps", rng.float(1e-6, 1e-3));
        b += &bin("ve", "Add", "var", "eps", &tr, f, &tr);
        b += &un("sd", "Sqrt", "ve", &tr);
        b += &bin("nrm", "Div", "d", "sd", &t, &tr, &t);
        let affine = rng.next() % 3;
        let ret = match affine {
            0 => "nrm",
            _ => {
                b += &format!(
                    "  %g = \"graph.constant\"() <{{value = dense<{}> : {tn}}}> : () -> {tn}\n",
                    rng.dense(norm, 0.5, 1.5)
                );
                b += &bin("sc", "Mul", "nrm", "g", &t, &tn, &t);
                if affine == 2 {
                    b += &format!(
                        "  %be = \"graph.constant\"() <{{value = dense<{}> : {tn}}}> : () -> {tn}\n",
                        rng.dense(norm, -0.5, 0.5)
                    );
                    b += &bin("y", "Add", "be", "sc", &tn, &t, &t);
                    "y"
                } else {
                    "sc"
                }
            }
        };
        Case {
            text: func(&[("x", t.clone())], &b, ret, &t),
            inputs: vec![rng.tensor(&s, -3.0, 3.0)],
            want: "graph.LayerNormalization",
            gone: &["graph.ReduceMean", "graph.Sqrt", "graph.Div"],
        }
    });
}

#[test]
fn rms_norm_equals_its_decomposition() {
    check("rms_norm", RECOGNIZE, |rng| {
        let s = shape(rng, 2, 4);
        let t = ty(&s);
        let rank = s.len();
        let mut rs = s.clone();
        rs[rank - 1] = 1;
        let tr = ty(&rs);
        let tn = ty(&s[rank - 1..]);
        let f = "tensor<f32>";
        let mut b = scalar("two", 2.0);
        b += &bin("sq", "Pow", "x", "two", &t, f, &t);
        b += &reduce_mean("ms", "sq", &s, 1);
        b += &scalar("eps", 1e-6);
        b += &bin("me", "Add", "eps", "ms", f, &tr, &tr);
        b += &un("rt", "Sqrt", "me", &tr);
        if rng.next() % 2 == 0 {
            b += &bin("nrm", "Div", "x", "rt", &t, &tr, &t);
        } else {
            b += &un("inv", "Reciprocal", "rt", &tr);
            b += &bin("nrm", "Mul", "inv", "x", &tr, &t, &t);
        }
        b += &format!(
            "  %g = \"graph.constant\"() <{{value = dense<{}> : {tn}}}> : () -> {tn}\n",
            rng.dense(&s[rank - 1..], 0.5, 1.5)
        );
        b += &bin("y", "Mul", "nrm", "g", &t, &tn, &t);
        Case {
            text: func(&[("x", t.clone())], &b, "y", &t),
            inputs: vec![rng.tensor(&s, -3.0, 3.0)],
            want: "graph.RMSNormalization",
            gone: &["graph.ReduceMean", "graph.Sqrt", "graph.Mul"],
        }
    });
}

#[test]
fn silu_equals_its_decomposition() {
    check("silu", RECOGNIZE, |rng| {
        let s = shape(rng, 1, 4);
        let t = ty(&s);
        let mut b = un("sg", "Sigmoid", "x", &t);
        b += &bin("y", "Mul", "sg", "x", &t, &t, &t);
        Case {
            text: func(&[("x", t.clone())], &b, "y", &t),
            inputs: vec![rng.tensor(&s, -6.0, 6.0)],
            want: "graph.Swish",
            gone: &["graph.Sigmoid", "graph.Mul"],
        }
    });
}

#[test]
fn hard_swish_equals_its_decompositions() {
    check("hard_swish", RECOGNIZE, |rng| {
        let s = shape(rng, 1, 4);
        let t = ty(&s);
        let f = "tensor<f32>";
        let mut b = String::new();
        match rng.next() % 3 {
            0 => {
                b += &format!(
                    "  %h = \"graph.HardSigmoid\"(%x) <{{alpha = 1.66666672e-01 : f32, beta = 5.0e-01 : f32}}> : ({t}) -> {t}\n"
                );
                b += &bin("y", "Mul", "x", "h", &t, &t, &t);
            }
            form => {
                b += &(scalar("three", 3.0) + &scalar("zero", 0.0) + &scalar("six", 6.0));
                b += &bin("p", "Add", "x", "three", &t, f, &t);
                b += &format!("  %c = \"graph.Clip\"(%p, %zero, %six) : ({t}, {f}, {f}) -> {t}\n");
                if form == 1 {
                    b += &bin("m", "Mul", "x", "c", &t, &t, &t);
                    b += &bin("y", "Div", "m", "six", &t, f, &t);
                } else {
                    b += &bin("q", "Div", "c", "six", &t, f, &t);
                    b += &bin("y", "Mul", "q", "x", &t, &t, &t);
                }
            }
        }
        Case {
            text: func(&[("x", t.clone())], &b, "y", &t),
            inputs: vec![rng.tensor(&s, -6.0, 6.0)],
            want: "graph.HardSwish",
            gone: &["graph.Clip", "graph.HardSigmoid", "graph.Mul", "graph.Div"],
        }
    });
}

#[test]
fn attention_equals_its_decomposition() {
    check("attention", RECOGNIZE, |rng| {
        let four = rng.next() % 3 != 0;
        let (bsz, h, sq, skv, d, dv) = (
            rng.size(1, 2),
            rng.size(1, 3),
            rng.size(1, 5),
            rng.size(1, 5),
            rng.size(1, 6),
            rng.size(1, 6),
        );
        let lead: Vec<usize> = if four { vec![bsz, h] } else { vec![bsz] };
        let sh = |a: usize, b: usize| -> Vec<usize> {
            let mut v = lead.clone();
            v.extend([a, b]);
            v
        };
        let (qs, ks, vs) = (sh(sq, d), sh(skv, d), sh(skv, dv));
        let (kts, ss, ys) = (sh(d, skv), sh(sq, skv), sh(sq, dv));
        let (tq, tk, tv, tkt, ts, tyy) = (ty(&qs), ty(&ks), ty(&vs), ty(&kts), ty(&ss), ty(&ys));
        let f = "tensor<f32>";
        let perm = if four { "0, 1, 3, 2" } else { "0, 2, 1" };
        let mut b = format!(
            "  %kt = \"graph.Transpose\"(%k) <{{perm = array<i64: {perm}>}}> : ({tk}) -> {tkt}\n"
        );
        b += &bin("s", "MatMul", "q", "kt", &tq, &tkt, &ts);
        let scale = 1.0 / (d as f64).sqrt();
        if rng.next() % 2 == 0 {
            b += &scalar("c", 1.0 / scale);
            b += &bin("sc", "Div", "s", "c", &ts, f, &ts);
        } else {
            b += &scalar("c", scale);
            b += &bin("sc", "Mul", "c", "s", f, &ts, &ts);
        }
        let mut args = vec![("q", tq), ("k", tk), ("v", tv)];
        let mut inputs = vec![
            rng.tensor(&qs, -2.0, 2.0),
            rng.tensor(&ks, -2.0, 2.0),
            rng.tensor(&vs, -2.0, 2.0),
        ];
        let logits = if rng.next() % 2 == 0 {
            let ms = vec![sq, skv];
            args.push(("m", ty(&ms)));
            inputs.push(rng.tensor(&ms, -3.0, 0.0));
            b += &bin("ma", "Add", "sc", "m", &ts, &ty(&ms), &ts);
            "ma"
        } else {
            "sc"
        };
        b += &format!(
            "  %p = \"graph.Softmax\"(%{logits}) <{{axis = -1 : i64}}> : ({ts}) -> {ts}\n"
        );
        b += &bin("y", "MatMul", "p", "v", &ts, &ty(&vs), &tyy);
        Case {
            text: func(&args, &b, "y", &tyy),
            inputs,
            want: "graph.Attention",
            gone: &["graph.Softmax", "graph.MatMul", "graph.Transpose"],
        }
    });
}

/// An activation op on `a` of type `t` and the fused op's name for it.
fn activation(rng: &mut Rng, out: &str, a: &str, t: &str) -> String {
    let f = "tensor<f32>";
    match rng.next() % 6 {
        0 => un(out, "Relu", a, t),
        1 => format!("  %{out} = \"graph.LeakyRelu\"(%{a}) <{{alpha = 0.15 : f32}}> : ({t}) -> {t}\n"),
        2 => un(out, "Sigmoid", a, t),
        3 => un(out, "Tanh", a, t),
        4 => format!(
            "  %{out} = \"graph.HardSigmoid\"(%{a}) <{{alpha = 0.3 : f32, beta = 0.4 : f32}}> : ({t}) -> {t}\n"
        ),
        _ => {
            scalar(&format!("{out}_lo"), -0.5)
                + &scalar(&format!("{out}_hi"), 0.75)
                + &format!("  %{out} = \"graph.Clip\"(%{a}, %{out}_lo, %{out}_hi) : ({t}, {f}, {f}) -> {t}\n")
        }
    }
}

#[test]
fn conv_bias_activation_equals_fused_conv() {
    check("fused_conv", FUSE, |rng| {
        let (n, c, m, hw, k) = (
            rng.size(1, 2),
            rng.size(1, 3),
            rng.size(1, 4),
            rng.size(3, 6),
            rng.size(1, 3),
        );
        let xs = vec![n, c, hw, hw];
        let ws = vec![m, c, k, k];
        let ys = vec![n, m, hw - k + 1, hw - k + 1];
        let (tx, tw, tyy) = (ty(&xs), ty(&ws), ty(&ys));
        let mut b = format!(
            "  %w = \"graph.constant\"() <{{value = dense<{}> : {tw}}}> : () -> {tw}\n  %none = \"graph.none\"() : () -> none\n  %cv = \"graph.Conv\"(%x, %w, %none) : ({tx}, {tw}, none) -> {tyy}\n",
            rng.dense(&ws, -1.0, 1.0)
        );
        let bs = [m, 1, 1];
        b += &format!(
            "  %bias = \"graph.constant\"() <{{value = dense<{}> : {}}}> : () -> {}\n",
            rng.dense(&bs, -0.5, 0.5),
            ty(&bs),
            ty(&bs)
        );
        b += &bin("ab", "Add", "cv", "bias", &tyy, &ty(&bs), &tyy);
        b += &activation(rng, "y", "ab", &tyy);
        Case {
            text: func(&[("x", tx)], &b, "y", &tyy),
            inputs: vec![rng.tensor(&xs, -1.0, 1.0)],
            want: "graph.fused_conv",
            gone: &["graph.Conv", "graph.Add"],
        }
    });
}

#[test]
fn gemm_and_matmul_activation_equal_fused_ops() {
    check("fused_gemm", FUSE, |rng| {
        let (m, k, n) = (rng.size(1, 4), rng.size(1, 5), rng.size(1, 4));
        let (ta, tb, tyy) = (ty(&[m, k]), ty(&[n, k]), ty(&[m, n]));
        let mut b = format!(
            "  %w = \"graph.constant\"() <{{value = dense<{}> : {tb}}}> : () -> {tb}\n  %c = \"graph.constant\"() <{{value = dense<{}> : tensor<{n}xf32>}}> : () -> tensor<{n}xf32>\n  %g = \"graph.Gemm\"(%a, %w, %c) <{{transB = 1 : i64, alpha = 0.5 : f32}}> : ({ta}, {tb}, tensor<{n}xf32>) -> {tyy}\n",
            rng.dense(&[n, k], -1.0, 1.0),
            rng.dense(&[n], -1.0, 1.0)
        );
        b += &activation(rng, "y", "g", &tyy);
        Case {
            text: func(&[("a", ta)], &b, "y", &tyy),
            inputs: vec![rng.tensor(&[m, k], -1.0, 1.0)],
            want: "graph.fused_gemm",
            gone: &["graph.Gemm"],
        }
    });
    check("fused_matmul", FUSE, |rng| {
        let (bsz, m, k, n) = (
            rng.size(1, 3),
            rng.size(1, 4),
            rng.size(1, 5),
            rng.size(1, 4),
        );
        let (ta, tb, tyy) = (ty(&[bsz, m, k]), ty(&[k, n]), ty(&[bsz, m, n]));
        let mut b = format!(
            "  %w = \"graph.constant\"() <{{value = dense<{}> : {tb}}}> : () -> {tb}\n  %mm = \"graph.MatMul\"(%a, %w) : ({ta}, {tb}) -> {tyy}\n",
            rng.dense(&[k, n], -1.0, 1.0)
        );
        let src = if rng.next() % 2 == 0 {
            b += &format!(
                "  %c = \"graph.constant\"() <{{value = dense<{}> : tensor<{n}xf32>}}> : () -> tensor<{n}xf32>\n",
                rng.dense(&[n], -1.0, 1.0)
            );
            b += &bin(
                "ab",
                "Add",
                "c",
                "mm",
                &format!("tensor<{n}xf32>"),
                &tyy,
                &tyy,
            );
            "ab"
        } else {
            "mm"
        };
        b += &activation(rng, "y", src, &tyy);
        Case {
            text: func(&[("a", ta)], &b, "y", &tyy),
            inputs: vec![rng.tensor(&[bsz, m, k], -1.0, 1.0)],
            want: "graph.fused_matmul",
            gone: &["graph.MatMul", "graph.Add"],
        }
    });
}

#[test]
fn unfuse_restores_what_fusion_computed() {
    // Fuse, then unfuse: the standard ops again, and the same outputs as the original.
    check(
        "unfuse",
        "builtin.module(func.func(graph-fuse-activation, graph-unfuse))",
        |rng| {
            let (m, k, n) = (rng.size(1, 4), rng.size(1, 5), rng.size(1, 4));
            let (ta, tb, tyy) = (ty(&[m, k]), ty(&[k, n]), ty(&[m, n]));
            let mut b = format!(
                "  %w = \"graph.constant\"() <{{value = dense<{}> : {tb}}}> : () -> {tb}\n  %c = \"graph.constant\"() <{{value = dense<{}> : tensor<{n}xf32>}}> : () -> tensor<{n}xf32>\n  %mm = \"graph.MatMul\"(%a, %w) : ({ta}, {tb}) -> {tyy}\n",
                rng.dense(&[k, n], -1.0, 1.0),
                rng.dense(&[n], -1.0, 1.0)
            );
            b += &bin(
                "ab",
                "Add",
                "mm",
                "c",
                &tyy,
                &format!("tensor<{n}xf32>"),
                &tyy,
            );
            b += &activation(rng, "y", "ab", &tyy);
            Case {
                text: func(&[("a", ta)], &b, "y", &tyy),
                inputs: vec![rng.tensor(&[m, k], -1.0, 1.0)],
                want: "graph.MatMul",
                gone: &["graph.fused_matmul"],
            }
        },
    );
}
