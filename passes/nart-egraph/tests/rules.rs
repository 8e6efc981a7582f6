//! Every rule, checked by evaluation: a tiny function whose root the rule's left-hand side
//! matches, on random shapes and values; the pass's output and every alternative of the root's
//! e-class (the right-hand sides) run in the interpreter and must compute what the input
//! computes ([`common::check_rule`]).

mod common;

use common::{check_rule, constant, tensor, Rng};

/// Random trials per rule.
const TRIALS: u64 = 4;

/// A shape that broadcasts onto `s`: a suffix of it, some dims set to 1.
fn suffix(rng: &mut Rng, s: &[i64]) -> Vec<i64> {
    let k = rng.range(0, s.len() as i64) as usize;
    s[s.len() - k..]
        .iter()
        .map(|&d| if rng.range(0, 3) == 0 { 1 } else { d })
        .collect()
}

fn func(args: &[&[i64]], results: &[&[i64]], body: &str, ret: &[&str]) -> String {
    let params: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, s)| format!("%a{i}: {}", tensor(s)))
        .collect();
    let rtys: Vec<String> = results.iter().map(|s| tensor(s)).collect();
    format!(
        "func.func @f({}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        params.join(", "),
        rtys.join(", "),
        ret.join(", "),
        rtys.join(", ")
    )
}

fn binary(name: &str, a: &str, b: &str, sa: &[i64], sb: &[i64], out: &str, so: &[i64]) -> String {
    format!(
        "  %{out} = \"graph.{name}\"(%{a}, %{b}) : ({}, {}) -> {}\n",
        tensor(sa),
        tensor(sb),
        tensor(so)
    )
}

fn unary(name: &str, a: &str, s: &[i64], out: &str) -> String {
    format!(
        "  %{out} = \"graph.{name}\"(%{a}) : ({t}) -> {t}\n",
        t = tensor(s)
    )
}

fn neutral_case(rule: &str, op: &str, value: f32, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..TRIALS {
        let rank = rng.range(1, 3) as usize;
        let s = rng.shape(rank);
        let c = suffix(&mut rng, &s);
        let body =
            constant(&mut rng, "c", &c, Some(value)) + &binary(op, "a0", "c", &s, &c, "r", &s);
        let text = func(&[&s], &[&s], &body, &["%r"]);
        let (out, _) = check_rule(rule, &text, &mut rng);
        assert!(out.changed, "{rule}: the neutral op is removed\n{text}");
        assert_eq!(out.ops_after, 0);
    }
}

#[test]
fn add_zero() {
    neutral_case("add-zero", "Add", 0.0, 1);
}

#[test]
fn sub_zero() {
    neutral_case("sub-zero", "Sub", 0.0, 2);
}

#[test]
fn mul_one() {
    neutral_case("mul-one", "Mul", 1.0, 3);
}

#[test]
fn div_one() {
    neutral_case("div-one", "Div", 1.0, 4);
}

/// `x + 0` where the zero broadcasts `x` to a larger shape is not `x`: the rule must not fire
/// into a type change.
#[test]
fn add_zero_that_broadcasts_stays() {
    let mut rng = Rng(5);
    let body = constant(&mut rng, "c", &[2, 3], Some(0.0))
        + &binary("Add", "a0", "c", &[3], &[2, 3], "r", &[2, 3]);
    let text = func(&[&[3]], &[&[2, 3]], &body, &["%r"]);
    let (mut ctx, f) = common::parse(&text);
    let out =
        nart_egraph::optimize_function(&mut ctx, f, &nart_egraph::FlopsBytes, common::limits())
            .unwrap();
    assert!(!out.changed);
    assert!(!out.fired.iter().any(|(n, _)| *n == "add-zero"));
}

fn commute_case(rule: &str, op: &str, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(1, 3);
        let t = suffix(&mut rng, &s);
        let body = binary(op, "a0", "a1", &s, &t, "r", &s);
        let text = func(&[&s, &t], &[&s], &body, &["%r"]);
        let (_, written) = check_rule(rule, &text, &mut rng);
        assert!(written >= 2, "{rule}: both operand orders are written");
    }
}

#[test]
fn add_commute() {
    commute_case("add-commute", "Add", 6);
}

#[test]
fn mul_commute() {
    commute_case("mul-commute", "Mul", 7);
}

fn assoc_case(rule: &str, op: &str, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(1, 3);
        let (c1, c2) = (suffix(&mut rng, &s), suffix(&mut rng, &s));
        let body = constant(&mut rng, "c1", &c1, None)
            + &constant(&mut rng, "c2", &c2, None)
            + &binary(op, "a0", "c1", &s, &c1, "t", &s)
            + &binary(op, "t", "c2", &s, &c2, "r", &s);
        let text = func(&[&s], &[&s], &body, &["%r"]);
        let (out, _) = check_rule(rule, &text, &mut rng);
        assert!(out.changed, "{rule}: two ops become one\n{text}");
        assert_eq!(out.ops_after, 1);
    }
}

#[test]
fn add_const_assoc() {
    assoc_case("add-const-assoc", "Add", 8);
}

#[test]
fn mul_const_assoc() {
    assoc_case("mul-const-assoc", "Mul", 9);
}

#[test]
fn mul_factor() {
    let mut rng = Rng(10);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(1, 3);
        let c = suffix(&mut rng, &s);
        let body = constant(&mut rng, "c", &c, None)
            + &binary("Mul", "a0", "c", &s, &c, "p", &s)
            + &binary("Mul", "a1", "c", &s, &c, "q", &s)
            + &binary("Add", "p", "q", &s, &s, "r", &s);
        let text = func(&[&s, &s], &[&s], &body, &["%r"]);
        let (out, _) = check_rule("mul-factor", &text, &mut rng);
        assert!(out.changed, "three ops become two\n{text}");
        assert_eq!(out.ops_after, 2);
    }
}

#[test]
fn mul_distribute() {
    let mut rng = Rng(11);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(1, 3);
        let c = suffix(&mut rng, &s);
        let body = constant(&mut rng, "c", &c, None)
            + &binary("Add", "a0", "a1", &s, &s, "t", &s)
            + &binary("Mul", "t", "c", &s, &c, "r", &s);
        let text = func(&[&s, &s], &[&s], &body, &["%r"]);
        let (out, written) = check_rule("mul-distribute", &text, &mut rng);
        assert!(!out.changed, "distributing costs more; the input stays");
        assert!(written >= 2, "the distributed form was written and checked");
    }
}

#[test]
fn neg_neg() {
    let mut rng = Rng(12);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(1, 4);
        let body = unary("Neg", "a0", &s, "t") + &unary("Neg", "t", &s, "r");
        let text = func(&[&s], &[&s], &body, &["%r"]);
        let (out, _) = check_rule("neg-neg", &text, &mut rng);
        assert!(out.changed);
        assert_eq!(out.ops_after, 0);
    }
}

#[test]
fn relu_relu() {
    let mut rng = Rng(13);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(1, 4);
        let body = unary("Relu", "a0", &s, "t") + &unary("Relu", "t", &s, "r");
        let text = func(&[&s], &[&s], &body, &["%r"]);
        let (out, _) = check_rule("relu-relu", &text, &mut rng);
        assert!(out.changed);
        assert_eq!(out.ops_after, 1);
    }
}

/// A random permutation of `0..n`.
fn perm(rng: &mut Rng, n: usize) -> Vec<i64> {
    let mut p: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        let j = rng.range(0, i as i64) as usize;
        p.swap(i, j);
    }
    p
}

fn permute(s: &[i64], p: &[i64]) -> Vec<i64> {
    p.iter().map(|&i| s[i as usize]).collect()
}

fn transpose(a: &str, s: &[i64], p: &[i64], out: &str) -> String {
    let list: Vec<String> = p.iter().map(|v| v.to_string()).collect();
    format!(
        "  %{out} = \"graph.Transpose\"(%{a}) <{{perm = array<i64: {}>}}> : ({}) -> {}\n",
        list.join(", "),
        tensor(s),
        tensor(&permute(s, p))
    )
}

#[test]
fn transpose_transpose() {
    let mut rng = Rng(14);
    for trial in 0..TRIALS {
        let rank = rng.range(2, 4) as usize;
        let s = rng.shape(rank);
        let p = perm(&mut rng, rank);
        let mid = permute(&s, &p);
        // Every other trial the second transpose undoes the first.
        let q = if trial % 2 == 0 {
            let mut inv = vec![0; rank];
            for (i, &v) in p.iter().enumerate() {
                inv[v as usize] = i as i64;
            }
            inv
        } else {
            perm(&mut rng, rank)
        };
        let out = permute(&mid, &q);
        let body = transpose("a0", &s, &p, "t") + &transpose("t", &mid, &q, "r");
        let text = func(&[&s], &[&out], &body, &["%r"]);
        let (o, _) = check_rule("transpose-transpose", &text, &mut rng);
        assert!(o.changed);
        assert!(o.ops_after <= 1);
    }
}

fn i64_const(name: &str, v: &[i64]) -> String {
    let list: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<[{}]> : tensor<{}xi64>}}> : () -> tensor<{}xi64>\n",
        list.join(", "),
        v.len(),
        v.len()
    )
}

fn reshape(a: &str, s: &[i64], shape: &str, to: &[i64], out: &str) -> String {
    format!(
        "  %{out} = \"graph.Reshape\"(%{a}, %{shape}) : ({}, tensor<{}xi64>) -> {}\n",
        tensor(s),
        to.len(),
        tensor(to)
    )
}

#[test]
fn reshape_reshape() {
    let mut rng = Rng(15);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(2, 3);
        let n: i64 = s.iter().product();
        let mid = vec![n];
        let to: Vec<i64> = s.iter().rev().copied().collect();
        let body = i64_const("s1", &mid)
            + &i64_const("s2", &to)
            + &reshape("a0", &s, "s1", &mid, "t")
            + &reshape("t", &mid, "s2", &to, "r");
        let text = func(&[&s], &[&to], &body, &["%r"]);
        let (o, _) = check_rule("reshape-reshape", &text, &mut rng);
        assert!(o.changed);
        assert!(o.ops_after <= 1);
    }
}

#[test]
fn reshape_identity() {
    let mut rng = Rng(16);
    for _ in 0..TRIALS {
        let s = rng.shape_of_rank(1, 3);
        let body = i64_const("s", &s) + &reshape("a0", &s, "s", &s, "r");
        let text = func(&[&s], &[&s], &body, &["%r"]);
        let (o, _) = check_rule("reshape-identity", &text, &mut rng);
        assert!(o.changed);
        assert_eq!(o.ops_after, 0);
    }
}

const UNARY: &[&str] = &["Relu", "Neg", "Sigmoid", "Tanh", "Exp", "Abs"];

#[test]
fn transpose_unary() {
    let mut rng = Rng(17);
    for i in 0..TRIALS as usize {
        let rank = rng.range(2, 4) as usize;
        let s = rng.shape(rank);
        let p = perm(&mut rng, rank);
        let f = UNARY[i % UNARY.len()];
        let body = unary(f, "a0", &s, "t") + &transpose("t", &s, &p, "r");
        let text = func(&[&s], &[&permute(&s, &p)], &body, &["%r"]);
        let (_, written) = check_rule("transpose-unary", &text, &mut rng);
        assert!(written >= 2, "both orders were written and checked");
    }
}

#[test]
fn transpose_binary() {
    let mut rng = Rng(18);
    for i in 0..TRIALS as usize {
        let rank = rng.range(2, 4) as usize;
        let s = rng.shape(rank);
        let p = perm(&mut rng, rank);
        let f = ["Add", "Sub", "Mul", "Div"][i % 4];
        let body = binary(f, "a0", "a1", &s, &s, "t", &s) + &transpose("t", &s, &p, "r");
        let text = func(&[&s, &s], &[&permute(&s, &p)], &body, &["%r"]);
        let (_, written) = check_rule("transpose-binary", &text, &mut rng);
        assert!(written >= 2);
    }
}

fn sink_case(rule: &str, op: &str, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..TRIALS {
        let rank = rng.range(2, 4) as usize;
        let s = rng.shape(rank);
        let p = perm(&mut rng, rank);
        let o = permute(&s, &p);
        let body = transpose("a0", &s, &p, "t")
            + &transpose("a1", &s, &p, "u")
            + &binary(op, "t", "u", &o, &o, "r", &o);
        let text = func(&[&s, &s], &[&o], &body, &["%r"]);
        let (out, _) = check_rule(rule, &text, &mut rng);
        assert!(out.changed, "two transposes become one\n{text}");
        assert_eq!(out.ops_after, 2);
    }
}

#[test]
fn transpose_sink() {
    sink_case("transpose-sink", "Add", 19);
}

#[test]
fn transpose_sink_mul() {
    sink_case("transpose-sink-mul", "Mul", 20);
}

#[test]
fn merge_matmul() {
    let mut rng = Rng(21);
    for _ in 0..TRIALS {
        let (m, k) = (rng.range(1, 4), rng.range(1, 4));
        let (n1, n2) = (rng.range(1, 4), rng.range(1, 4));
        let x = [m, k];
        let body = constant(&mut rng, "w1", &[k, n1], None)
            + &constant(&mut rng, "w2", &[k, n2], None)
            + &binary("MatMul", "a0", "w1", &x, &[k, n1], "p", &[m, n1])
            + &binary("MatMul", "a0", "w2", &x, &[k, n2], "q", &[m, n2]);
        let text = func(&[&x], &[&[m, n1], &[m, n2]], &body, &["%p", "%q"]);
        let (_, written) = check_rule("merge-matmul", &text, &mut rng);
        assert!(written >= 2, "the merged form was written and checked");
    }
}

fn conv(a: &str, w: &str, b: Option<&str>, c: i64, o: i64, hw: i64, out: &str) -> String {
    let (ops, tys) = match b {
        Some(b) => (format!("%{a}, %{w}, %{b}"), format!(", tensor<{o}xf32>")),
        None => (format!("%{a}, %{w}, %none"), ", none".to_string()),
    };
    format!(
        "  %{out} = \"graph.Conv\"({ops}) <{{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}}> : (tensor<1x{c}x{hw}x{hw}xf32>, tensor<{o}x{c}x3x3xf32>{tys}) -> tensor<1x{o}x{hw}x{hw}xf32>\n"
    )
}

fn conv_case(rule: &str, bias: bool, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..TRIALS {
        let (c, hw) = (rng.range(1, 3), rng.range(2, 4));
        let (o1, o2) = (rng.range(1, 3), rng.range(1, 3));
        let mut body = constant(&mut rng, "w1", &[o1, c, 3, 3], None)
            + &constant(&mut rng, "w2", &[o2, c, 3, 3], None);
        body += "  %none = \"graph.none\"() : () -> none\n";
        if bias {
            body += &constant(&mut rng, "b1", &[o1], None);
            body += &constant(&mut rng, "b2", &[o2], None);
        }
        body += &conv("a0", "w1", bias.then_some("b1"), c, o1, hw, "p");
        body += &conv("a0", "w2", bias.then_some("b2"), c, o2, hw, "q");
        let x = [1, c, hw, hw];
        let text = func(
            &[&x],
            &[&[1, o1, hw, hw], &[1, o2, hw, hw]],
            &body,
            &["%p", "%q"],
        );
        let (_, written) = check_rule(rule, &text, &mut rng);
        assert!(written >= 2, "the merged form was written and checked");
    }
}

#[test]
fn merge_conv() {
    conv_case("merge-conv", false, 22);
}

#[test]
fn merge_conv_bias() {
    conv_case("merge-conv-bias", true, 23);
}

#[test]
fn merge_gemm() {
    let mut rng = Rng(24);
    for trial in 0..TRIALS {
        let (m, k) = (rng.range(1, 4), rng.range(1, 4));
        let (n1, n2) = (rng.range(1, 4), rng.range(1, 4));
        let trans_b = trial % 2 == 1;
        let with_c = trial / 2 == 0;
        let wshape = |n: i64| if trans_b { vec![n, k] } else { vec![k, n] };
        let mut body = constant(&mut rng, "w1", &wshape(n1), None)
            + &constant(&mut rng, "w2", &wshape(n2), None)
            + "  %none = \"graph.none\"() : () -> none\n";
        if with_c {
            body += &constant(&mut rng, "c1", &[n1], None);
            body += &constant(&mut rng, "c2", &[n2], None);
        }
        let props = if trans_b {
            " <{alpha = 5.000000e-01 : f32, transB = 1 : i64}>"
        } else {
            " <{alpha = 5.000000e-01 : f32}>"
        };
        for (out, w, c, n) in [("p", "w1", "c1", n1), ("q", "w2", "c2", n2)] {
            let (cv, cty) = if with_c {
                (format!("%{c}"), format!("tensor<{n}xf32>"))
            } else {
                ("%none".to_string(), "none".to_string())
            };
            body += &format!(
                "  %{out} = \"graph.Gemm\"(%a0, %{w}, {cv}){props} : ({}, {}, {cty}) -> {}\n",
                tensor(&[m, k]),
                tensor(&wshape(n)),
                tensor(&[m, n])
            );
        }
        let text = func(&[&[m, k]], &[&[m, n1], &[m, n2]], &body, &["%p", "%q"]);
        let (_, written) = check_rule("merge-gemm", &text, &mut rng);
        assert!(written >= 2, "the merged form was written and checked");
    }
}

/// Every rule's searcher parses, and every rule has a test above (by name).
#[test]
fn every_rule_is_tested() {
    let src = include_str!("rules.rs");
    for r in nart_egraph::rules::RULES {
        assert!(
            nart_egraph::rules::check_searcher(r),
            "{}: searcher",
            r.name
        );
        assert!(
            src.contains(&format!("\"{}\"", r.name)),
            "rule {} has no test in tests/rules.rs",
            r.name
        );
    }
}
