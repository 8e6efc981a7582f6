//! The transformer block on oneDNN: a decomposed GELU recognized as one `Gelu` (no `Erf` left
//! for the interpreter), the attention's transposes folded into its matmuls, residual `Add`s
//! fused into the matmul before them. Random shapes and values (seeded) against the
//! interpreter, and the op lists the segments compile into.

mod common;

use common::{assert_close, constant, interpret, on_onednn_with_program, onednn_here, ty, Rng};
use nart_onednn_rt::program::{OpKind, PostOp};

fn arr(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("array<i64: {}>", items.join(", "))
}

fn shape_const(name: &str, v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let t = format!("tensor<{}xi64>", v.len());
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<[{}]> : {t}}}> : () -> {t}\n",
        items.join(", ")
    )
}

#[test]
fn decomposed_gelu_runs_as_one_post_op() {
    if !onednn_here("decomposed_gelu_runs_as_one_post_op") {
        return;
    }
    let mut rng = Rng::new(21);
    for case in 0..12 {
        let (b, m, k, n) = (rng.int(1, 3), rng.int(1, 9), rng.int(1, 17), rng.int(1, 19));
        let (tx, t) = (ty(&[b, m, k]), ty(&[b, m, n]));
        let s = ty(&[]);
        let mut body = String::new();
        body.push_str(&constant("w", &rng.tensor(&[k, n], -1.0, 1.0)));
        body.push_str(&constant("bias", &rng.tensor(&[n], -1.0, 1.0)));
        let tanh = case % 3 == 2;
        let gelu = if tanh {
            // x·0.5·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
            for (name, v) in [
                ("three", 3.0),
                ("c", 0.044715),
                ("k", 0.797_884_6),
                ("one", 1.0),
                ("half", 0.5),
            ] {
                body.push_str(&constant(name, &nart_tensor::Tensor::scalar(v as f32)));
            }
            format!(
                "  %p3 = \"graph.Pow\"(%a, %three) : ({t}, {s}) -> {t}
  %cx = \"graph.Mul\"(%p3, %c) : ({t}, {s}) -> {t}
  %in = \"graph.Add\"(%a, %cx) : ({t}, {t}) -> {t}
  %sc = \"graph.Mul\"(%in, %k) : ({t}, {s}) -> {t}
  %th = \"graph.Tanh\"(%sc) : ({t}) -> {t}
  %op = \"graph.Add\"(%th, %one) : ({t}, {s}) -> {t}
  %xm = \"graph.Mul\"(%a, %op) : ({t}, {t}) -> {t}
  %y = \"graph.Mul\"(%xm, %half) : ({t}, {s}) -> {t}
"
            )
        } else {
            // x·0.5·(1 + erf(x/√2)), with the division as a product or a quotient and the
            // half first or last.
            let (scale_op, scale) = if case % 2 == 0 {
                ("Mul", std::f32::consts::FRAC_1_SQRT_2)
            } else {
                ("Div", std::f32::consts::SQRT_2)
            };
            for (name, v) in [("r2", scale), ("one", 1.0), ("half", 0.5)] {
                body.push_str(&constant(name, &nart_tensor::Tensor::scalar(v)));
            }
            let tail = if case % 4 < 2 {
                format!(
                    "  %xm = \"graph.Mul\"(%a, %op) : ({t}, {t}) -> {t}
  %y = \"graph.Mul\"(%xm, %half) : ({t}, {s}) -> {t}
"
                )
            } else {
                format!(
                    "  %h = \"graph.Mul\"(%a, %half) : ({t}, {s}) -> {t}
  %y = \"graph.Mul\"(%h, %op) : ({t}, {t}) -> {t}
"
                )
            };
            format!(
                "  %d = \"graph.{scale_op}\"(%a, %r2) : ({t}, {s}) -> {t}
  %e = \"graph.Erf\"(%d) : ({t}) -> {t}
  %op = \"graph.Add\"(%e, %one) : ({t}, {s}) -> {t}
{tail}"
            )
        };
        let text = format!(
            "func.func @main(%x: {tx}) -> {t} {{
{body}  %p = \"graph.MatMul\"(%x, %w) : ({tx}, {tw}) -> {t}
  %a = \"graph.Add\"(%p, %bias) : ({t}, {tb}) -> {t}
{gelu}  return %y : {t}
}}
",
            tw = ty(&[k, n]),
            tb = ty(&[n]),
        );
        let inputs = vec![rng.tensor(&[b, m, k], -3.0, 3.0)];
        let want = interpret(&text, &inputs);
        let (got, program) = on_onednn_with_program(&text, &inputs)
            .unwrap_or_else(|why| panic!("case {case}: not all on onednn: {why}\n{text}"));
        assert_close(&format!("case {case}\n{text}"), &got, &want, 1e-4, 1e-3);
        assert_eq!(program.ops.len(), 1, "case {case}: {:?}", program.ops);
        assert!(
            matches!(
                program.ops[0].post[..],
                [PostOp::Binary { .. }, PostOp::Eltwise { .. }]
            ),
            "case {case}: {:?}",
            program.ops[0].post
        );
    }
}

/// Multi-head attention with its projections, as exporters write it: `x·Wq + bq` reshaped to
/// heads and transposed, `K` transposed twice, `softmax(Q·Kᵀ·scale)·V`, the heads merged by a
/// transpose and a reshape, the output projection and the residual `Add`.
fn attention(rng: &mut Rng, b: i64, s: i64, h: i64, dh: i64, also_return_q: bool) -> String {
    let d = h * dh;
    let (tx, th, tt, tsc) = (
        ty(&[b, s, d]),
        ty(&[b, s, h, dh]),
        ty(&[b, h, s, dh]),
        ty(&[b, h, s, s]),
    );
    let tkt = ty(&[b, h, dh, s]);
    let (tw, tb) = (ty(&[d, d]), ty(&[d]));
    let mut body = String::new();
    for p in ["q", "k", "v", "o"] {
        body.push_str(&constant(&format!("w{p}"), &rng.tensor(&[d, d], -0.5, 0.5)));
        body.push_str(&constant(&format!("b{p}"), &rng.tensor(&[d], -0.5, 0.5)));
    }
    body.push_str(&constant(
        "scale",
        &nart_tensor::Tensor::scalar(1.0 / (dh as f32).sqrt()),
    ));
    body.push_str(&shape_const("heads", &[b, s, h, dh]));
    body.push_str(&shape_const("merged", &[b, s, d]));
    for p in ["q", "k", "v"] {
        body.push_str(&format!(
            "  %{p}m = \"graph.MatMul\"(%x, %w{p}) : ({tx}, {tw}) -> {tx}
  %{p}a = \"graph.Add\"(%{p}m, %b{p}) : ({tx}, {tb}) -> {tx}
  %{p}r = \"graph.Reshape\"(%{p}a, %heads) : ({tx}, tensor<4xi64>) -> {th}
  %{p}t = \"graph.Transpose\"(%{p}r) <{{perm = {perm}}}> : ({th}) -> {tt}
",
            perm = arr(&[0, 2, 1, 3])
        ));
    }
    // The harness returns a segment's results in the order they are defined.
    let (ret, rty) = if also_return_q {
        ("%qt, %y".to_string(), format!("{tt}, {tx}"))
    } else {
        ("%y".to_string(), tx.clone())
    };
    let s_ty = ty(&[]);
    format!(
        "func.func @main(%x: {tx}) -> ({rty}) {{
{body}  %kT = \"graph.Transpose\"(%kt) <{{perm = {pk}}}> : ({tt}) -> {tkt}
  %sc = \"graph.MatMul\"(%qt, %kT) : ({tt}, {tkt}) -> {tsc}
  %ss = \"graph.Mul\"(%sc, %scale) : ({tsc}, {s_ty}) -> {tsc}
  %sm = \"graph.Softmax\"(%ss) <{{axis = -1 : i64}}> : ({tsc}) -> {tsc}
  %cx = \"graph.MatMul\"(%sm, %vt) : ({tsc}, {tt}) -> {tt}
  %ct = \"graph.Transpose\"(%cx) <{{perm = {pm}}}> : ({tt}) -> {th}
  %cr = \"graph.Reshape\"(%ct, %merged) : ({th}, tensor<3xi64>) -> {tx}
  %om = \"graph.MatMul\"(%cr, %wo) : ({tx}, {tw}) -> {tx}
  %oa = \"graph.Add\"(%om, %bo) : ({tx}, {tb}) -> {tx}
  %y = \"graph.Add\"(%oa, %x) : ({tx}, {tx}) -> {tx}
  return {ret} : {rty}
}}
",
        pk = arr(&[0, 1, 3, 2]),
        pm = arr(&[0, 2, 1, 3]),
    )
}

#[test]
fn attention_transposes_fold_into_matmuls() {
    if !onednn_here("attention_transposes_fold_into_matmuls") {
        return;
    }
    let mut rng = Rng::new(22);
    for case in 0..10 {
        let (b, s, h, dh) = (rng.int(1, 2), rng.int(1, 12), rng.int(1, 4), rng.int(1, 9));
        let text = attention(&mut rng, b, s, h, dh, false);
        let inputs = vec![rng.tensor(&[b, s, h * dh], -1.0, 1.0)];
        let want = interpret(&text, &inputs);
        let (got, program) = on_onednn_with_program(&text, &inputs)
            .unwrap_or_else(|why| panic!("case {case}: not all on onednn: {why}\n{text}"));
        assert_close(&format!("case {case}\n{text}"), &got, &want, 1e-4, 1e-4);
        let kinds: Vec<&str> = program
            .ops
            .iter()
            .filter(|o| o.kind != OpKind::View)
            .map(|o| o.kind.name())
            .collect();
        // Q, K, V projections, the scores (scale fused), softmax, the context (written
        // transposed), the output projection (bias and residual fused).
        assert_eq!(
            kinds,
            ["matmul", "matmul", "matmul", "matmul", "softmax", "matmul", "matmul"],
            "case {case}"
        );
        let out = program.ops.last().unwrap();
        assert!(
            matches!(out.post[..], [PostOp::Binary { .. }, PostOp::Binary { .. }]),
            "case {case}: {:?}",
            out.post
        );
    }
}

/// A transpose whose result is also a segment result stays a reorder; the rest still folds,
/// and both results are right.
#[test]
fn attention_with_a_transpose_returned() {
    if !onednn_here("attention_with_a_transpose_returned") {
        return;
    }
    let mut rng = Rng::new(23);
    for case in 0..6 {
        let (b, s, h, dh) = (rng.int(1, 2), rng.int(2, 9), rng.int(2, 3), rng.int(2, 5));
        let text = attention(&mut rng, b, s, h, dh, true);
        let inputs = vec![rng.tensor(&[b, s, h * dh], -1.0, 1.0)];
        let want = interpret(&text, &inputs);
        let (got, program) = on_onednn_with_program(&text, &inputs)
            .unwrap_or_else(|why| panic!("case {case}: not all on onednn: {why}\n{text}"));
        assert_close(&format!("case {case}\n{text}"), &got, &want, 1e-4, 1e-4);
        let reorders = program
            .ops
            .iter()
            .filter(|o| o.kind == OpKind::Reorder)
            .count();
        assert_eq!(reorders, 1, "case {case}: {:?}", program.ops);
    }
}

/// A layer normalization written out (`ReduceMean`, `Sub`, `Pow`, `ReduceMean`, `Add`,
/// `Sqrt`, `Div`, then `γ` and `β`) runs as one oneDNN layer normalization.
#[test]
fn decomposed_layer_norm_runs_as_one_primitive() {
    if !onednn_here("decomposed_layer_norm_runs_as_one_primitive") {
        return;
    }
    let mut rng = Rng::new(24);
    for case in 0..8 {
        let (b, s, d) = (rng.int(1, 3), rng.int(1, 9), rng.int(2, 33));
        let (t, tm, sc) = (ty(&[b, s, d]), ty(&[b, s, 1]), ty(&[]));
        let tv = ty(&[d]);
        let mut body = shape_const("axes", &[-1]);
        body.push_str(&constant("two", &nart_tensor::Tensor::scalar(2.0f32)));
        body.push_str(&constant("eps", &nart_tensor::Tensor::scalar(1e-5f32)));
        body.push_str(&constant("g", &rng.tensor(&[d], 0.5, 1.5)));
        body.push_str(&constant("be", &rng.tensor(&[d], -1.0, 1.0)));
        let text = format!(
            "func.func @main(%x: {t}) -> {t} {{
{body}  %m = \"graph.ReduceMean\"(%x, %axes) : ({t}, tensor<1xi64>) -> {tm}
  %d = \"graph.Sub\"(%x, %m) : ({t}, {tm}) -> {t}
  %p = \"graph.Pow\"(%d, %two) : ({t}, {sc}) -> {t}
  %v = \"graph.ReduceMean\"(%p, %axes) : ({t}, tensor<1xi64>) -> {tm}
  %ve = \"graph.Add\"(%v, %eps) : ({tm}, {sc}) -> {tm}
  %s = \"graph.Sqrt\"(%ve) : ({tm}) -> {tm}
  %n = \"graph.Div\"(%d, %s) : ({t}, {tm}) -> {t}
  %y0 = \"graph.Mul\"(%n, %g) : ({t}, {tv}) -> {t}
  %y = \"graph.Add\"(%y0, %be) : ({t}, {tv}) -> {t}
  return %y : {t}
}}
"
        );
        let inputs = vec![rng.tensor(&[b, s, d], -2.0, 2.0)];
        let want = interpret(&text, &inputs);
        let (got, program) = on_onednn_with_program(&text, &inputs)
            .unwrap_or_else(|why| panic!("case {case}: not all on onednn: {why}\n{text}"));
        assert_close(&format!("case {case}\n{text}"), &got, &want, 1e-4, 1e-4);
        let kinds: Vec<&str> = program.ops.iter().map(|o| o.kind.name()).collect();
        assert_eq!(kinds, ["layer normalization"], "case {case}");
    }
}

/// Scores scaled by a scalar and masked by a `[1, 1, s, s]` mask: the scale fuses into the
/// matmul, the mask (a broadcast oneDNN's optimized matmul does not take as a post-op) stays a
/// binary op of its own.
#[test]
fn masked_scores_keep_the_mask_out_of_the_matmul() {
    if !onednn_here("masked_scores_keep_the_mask_out_of_the_matmul") {
        return;
    }
    let mut rng = Rng::new(25);
    for case in 0..8 {
        // Two heads or more, so that the mask broadcasts.
        let (b, h, s, d) = (rng.int(1, 2), rng.int(2, 3), rng.int(2, 9), rng.int(1, 9));
        let (tq, tk, ts, tm) = (
            ty(&[b, h, s, d]),
            ty(&[b, h, d, s]),
            ty(&[b, h, s, s]),
            ty(&[1, 1, s, s]),
        );
        let mut body = constant("scale", &nart_tensor::Tensor::scalar(0.25f32));
        body.push_str(&constant("mask", &rng.tensor(&[1, 1, s, s], -2.0, 0.0)));
        let text = format!(
            "func.func @main(%q: {tq}, %k: {tk}) -> {ts} {{
{body}  %sc = \"graph.MatMul\"(%q, %k) : ({tq}, {tk}) -> {ts}
  %ss = \"graph.Div\"(%sc, %scale) : ({ts}, {s_ty}) -> {ts}
  %y = \"graph.Add\"(%ss, %mask) : ({ts}, {tm}) -> {ts}
  return %y : {ts}
}}
",
            s_ty = ty(&[]),
        );
        let inputs = vec![
            rng.tensor(&[b, h, s, d], -1.0, 1.0),
            rng.tensor(&[b, h, d, s], -1.0, 1.0),
        ];
        let want = interpret(&text, &inputs);
        let (got, program) = on_onednn_with_program(&text, &inputs)
            .unwrap_or_else(|why| panic!("case {case}: not all on onednn: {why}\n{text}"));
        assert_close(&format!("case {case}\n{text}"), &got, &want, 1e-5, 1e-5);
        let kinds: Vec<&str> = program.ops.iter().map(|o| o.kind.name()).collect();
        assert_eq!(kinds, ["matmul", "binary"], "case {case}");
        assert!(
            matches!(program.ops[0].post[..], [PostOp::Binary { .. }]),
            "case {case}: {:?}",
            program.ops[0].post
        );
    }
}
