//! Products: `MatMul` (2-D, and 3-D with equal batches), `Gemm` with every transposition,
//! `alpha`, `beta` and bias shape, and their fused forms with each activation.

use nart_target_cpu::testing::{cases, f32_literal, seed, ty, Batch, Gen, Tol};

use crate::{activation, dim, input};

#[test]
fn matmul_and_fused_matmul() {
    let seed = seed("matmul_and_fused_matmul");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("matmul_and_fused_matmul", seed);
    for _ in 0..cases(20) {
        let (m, kk, n) = (dim(&mut g, 9), dim(&mut g, 17), dim(&mut g, 9));
        let batched = g.chance(1, 3);
        let lead: Vec<usize> = if batched { vec![g.size(1, 3)] } else { vec![] };
        let shape = |a: usize, b: usize| [lead.as_slice(), &[a, b]].concat();
        let (sa, sb, so) = (shape(m, kk), shape(kk, n), shape(m, n));
        let fused = g.chance(1, 2);
        let ta = g.tensor_f32(&sa, -1.0, 1.0);
        let tb = g.tensor_f32(&sb, -1.0, 1.0);
        if !fused {
            let k = batch.case(format!("MatMul {sa:?} x {sb:?}"));
            let a = input(k, &mut g, ta);
            let b = input(k, &mut g, tb);
            let y = k.op1("graph.MatMul", &[a, b], "", &ty(&so, "f32"));
            k.output(y, Tol::Float { terms: kk });
            continue;
        }
        // The bias: absent, a scalar or one value per column.
        let bias_shape = g.pick(&[None, Some(vec![]), Some(vec![n])]);
        let (props, act) = activation(&mut g);
        let k = batch.case(format!(
            "fused_matmul {sa:?} x {sb:?} bias={bias_shape:?} activation={act}"
        ));
        let a = input(k, &mut g, ta);
        let b = input(k, &mut g, tb);
        let bias = match &bias_shape {
            None => k.none(),
            Some(s) => {
                let t = g.tensor_f32(s, -1.0, 1.0);
                input(k, &mut g, t)
            }
        };
        let y = k.op1("graph.fused_matmul", &[a, b, bias], &props, &ty(&so, "f32"));
        k.output(y, Tol::Float { terms: kk + 1 });
    }
    batch.check();
}

#[test]
fn gemm_and_fused_gemm() {
    let seed = seed("gemm_and_fused_gemm");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("gemm_and_fused_gemm", seed);
    for _ in 0..cases(20) {
        let (m, kk, n) = (dim(&mut g, 9), dim(&mut g, 17), dim(&mut g, 9));
        let (trans_a, trans_b) = (g.chance(1, 2), g.chance(1, 2));
        let sa = if trans_a { vec![kk, m] } else { vec![m, kk] };
        let sb = if trans_b { vec![n, kk] } else { vec![kk, n] };
        // C: absent (left off or `none`), or any shape that broadcasts to [M, N].
        let c_shape = g.pick(&[
            None,
            Some(vec![]),
            Some(vec![1]),
            Some(vec![n]),
            Some(vec![1, n]),
            Some(vec![m, 1]),
            Some(vec![m, n]),
        ]);
        let alpha = if g.chance(1, 2) {
            1.0
        } else {
            g.f32(-2.0, 2.0)
        };
        let other = g.f32(-2.0, 2.0);
        let beta = g.pick(&[1.0, 0.0, other]);
        let fused = g.chance(1, 3);
        let (act_props, act) = if fused {
            activation(&mut g)
        } else {
            (String::new(), "-".into())
        };
        let op = if fused { "fused_gemm" } else { "Gemm" };
        let k = batch.case(format!(
            "{op} A={sa:?} B={sb:?} C={c_shape:?} transA={trans_a} transB={trans_b} \
             alpha={alpha} beta={beta} activation={act}"
        ));
        let a = g.tensor_f32(&sa, -1.0, 1.0);
        let a = input(k, &mut g, a);
        let b = g.tensor_f32(&sb, -1.0, 1.0);
        let b = input(k, &mut g, b);
        let mut operands = vec![a, b];
        match &c_shape {
            Some(s) => {
                let c = g.tensor_f32(s, -1.0, 1.0);
                operands.push(input(k, &mut g, c));
            }
            None if fused || g.chance(1, 2) => operands.push(k.none()),
            None => {}
        }
        let mut props = vec![act_props];
        if alpha != 1.0 {
            props.push(format!("alpha = {} : f32", f32_literal(alpha)));
        }
        if beta != 1.0 {
            props.push(format!("beta = {} : f32", f32_literal(beta)));
        }
        if trans_a {
            props.push("transA = 1 : i64".into());
        }
        if trans_b {
            props.push("transB = 1 : i64".into());
        }
        props.retain(|p| !p.is_empty());
        let y = k.op1(
            &format!("graph.{op}"),
            &operands,
            &props.join(", "),
            &ty(&[m, n], "f32"),
        );
        k.output(y, Tol::Float { terms: kk + 2 });
    }
    batch.check();
}
