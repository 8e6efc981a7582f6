//! Elementwise ops: binary ops with ONNX multidirectional broadcasting (f32 and integers),
//! and the unary ops and activations.

use nart_target_cpu::testing::{cases, f32_literal, seed, ty, Batch, Gen, Tol};
use nart_tensor::{DType, Tensor};

use crate::input;

/// NumPy broadcasting of two shapes that are compatible.
fn broadcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|i| {
            let da = (i + a.len()).checked_sub(rank).map_or(1, |j| a[j]);
            let db = (i + b.len()).checked_sub(rank).map_or(1, |j| b[j]);
            da.max(db)
        })
        .collect()
}

/// Two operand shapes that broadcast together: suffixes of one shape of rank 0 to 4, some
/// dimensions replaced by 1. Returns them and the result's shape.
fn broadcast_pair(g: &mut Gen) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let rank = g.size(0, 4);
    let mut full = g.shape(rank, 1, 4);
    if let Some(last) = full.last_mut() {
        *last = crate::dim(g, 4);
    }
    let operand = |g: &mut Gen| -> Vec<usize> {
        let r = g.size(0, rank);
        full[rank - r..]
            .iter()
            .map(|&d| if g.chance(1, 3) { 1 } else { d })
            .collect()
    };
    let (a, b) = (operand(g), operand(g));
    let out = broadcast(&a, &b);
    (a, b, out)
}

/// A tensor with no element near zero: magnitudes in `0.5..2`, either sign.
fn away_from_zero(g: &mut Gen, shape: &[usize]) -> Tensor {
    let n = shape.iter().product();
    let v: Vec<f32> = (0..n)
        .map(|_| {
            let m = g.f32(0.5, 2.0);
            if g.chance(1, 2) {
                m
            } else {
                -m
            }
        })
        .collect();
    Tensor::from_vec(shape.to_vec(), v).unwrap()
}

#[test]
fn binary_f32_ops_broadcast() {
    let seed = seed("binary_f32_ops_broadcast");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("binary_f32_ops_broadcast", seed);
    for _ in 0..cases(24) {
        let op = g.pick(&["Add", "Sub", "Mul", "Div"]);
        let (sa, sb, out) = broadcast_pair(&mut g);
        // One time in eight, the same value on both sides (`x * x`): an operand that is
        // read twice, never written in place.
        let same = g.chance(1, 8);
        let (sb, out) = if same {
            (sa.clone(), sa.clone())
        } else {
            (sb, out)
        };
        let ta = if op == "Div" {
            away_from_zero(&mut g, &sa)
        } else {
            g.tensor_f32(&sa, -2.0, 2.0)
        };
        let tb = if op == "Div" {
            away_from_zero(&mut g, &sb)
        } else {
            g.tensor_f32(&sb, -2.0, 2.0)
        };
        let k = batch.case(format!(
            "{op} {sa:?} x {sb:?} -> {out:?}{}",
            if same {
                " (the same operand twice)"
            } else {
                ""
            }
        ));
        let a = input(k, &mut g, ta);
        let b = if same { a } else { input(k, &mut g, tb) };
        let y = k.op1(&format!("graph.{op}"), &[a, b], "", &ty(&out, "f32"));
        // One correctly rounded operation: the same bits.
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn binary_integer_ops_wrap_and_truncate() {
    let seed = seed("binary_integer_ops_wrap_and_truncate");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("binary_integer_ops_wrap_and_truncate", seed);
    for _ in 0..cases(24) {
        let op = g.pick(&["Add", "Sub", "Mul", "Div"]);
        let (dtype, lim) = g.pick(&[
            (DType::I8, 127i64),
            (DType::I32, i64::from(i32::MAX)),
            (DType::I64, 1 << 40),
        ]);
        let (sa, sb, out) = broadcast_pair(&mut g);
        // Sums and products wrap; division truncates toward zero (never by zero, never
        // MIN / -1, whose result does not fit).
        let ta = g.tensor_int(dtype, &sa, -lim, lim);
        let tb = if op == "Div" {
            let n: usize = sb.iter().product();
            let v: Vec<i128> = (0..n)
                .map(|_| {
                    let d = i128::from(g.int(1, 9));
                    if g.chance(1, 2) {
                        d
                    } else {
                        -d
                    }
                })
                .collect();
            Tensor::from_i128(dtype, sb.clone(), v).unwrap()
        } else {
            g.tensor_int(dtype, &sb, -lim, lim)
        };
        let k = batch.case(format!("{op} {} {sa:?} x {sb:?} -> {out:?}", dtype.name()));
        let a = input(k, &mut g, ta);
        let b = input(k, &mut g, tb);
        let y = k.op1(&format!("graph.{op}"), &[a, b], "", &ty(&out, dtype.name()));
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn unary_ops_and_activations() {
    let seed = seed("unary_ops_and_activations");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("unary_ops_and_activations", seed);
    for _ in 0..cases(24) {
        let rank = g.size(0, 4);
        let mut shape = g.shape(rank, 1, 5);
        if let Some(last) = shape.last_mut() {
            *last = crate::dim(&mut g, 5);
        }
        let t = ty(&shape, "f32");
        let op = g.pick(&["Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "Exp", "Erf"]);
        let x = g.tensor_f32(&shape, -4.0, 4.0);
        match op {
            "LeakyRelu" => {
                let other = g.f32(-1.0, 2.0);
                let alpha = g.pick(&[0.01, other]);
                let k = batch.case(format!("LeakyRelu {shape:?} alpha={alpha}"));
                let x = k.arg(x);
                let props = format!("alpha = {} : f32", f32_literal(alpha));
                let y = k.op1("graph.LeakyRelu", &[x], &props, &t);
                k.output(y, Tol::Exact);
            }
            "Clip" => {
                // Each bound absent (`none`, or left off at the end), a constant or an
                // argument; the bounds may cross (ONNX: the result is then `max`).
                let lo = g.f32(-3.0, 1.0);
                let hi = if g.chance(1, 8) {
                    lo - 0.5
                } else {
                    lo + g.f32(0.0, 4.0)
                };
                let forms = [g.size(0, 2), g.size(0, 2)];
                let left_off = forms[1] == 0 && g.chance(1, 2);
                let k = batch.case(format!(
                    "Clip {shape:?} min={} max={}",
                    ["none", "const", "arg"][forms[0]].to_owned() + &format!("({lo})"),
                    if left_off {
                        "left off".to_owned()
                    } else {
                        ["none", "const", "arg"][forms[1]].to_owned() + &format!("({hi})")
                    }
                ));
                let x = k.arg(x);
                let mut operands = vec![x];
                for (i, (&form, bound)) in forms.iter().zip([lo, hi]).enumerate() {
                    if i == 1 && left_off {
                        break;
                    }
                    let b = Tensor::from_vec(vec![], vec![bound]).unwrap();
                    operands.push(match form {
                        0 => k.none(),
                        1 => k.constant(&b),
                        _ => k.arg(b),
                    });
                }
                let y = k.op1("graph.Clip", &operands, "", &t);
                k.output(y, Tol::Exact);
            }
            _ => {
                let k = batch.case(format!("{op} {shape:?}"));
                let x = k.arg(x);
                let y = k.op1(&format!("graph.{op}"), &[x], "", &t);
                let tol = if op == "Relu" {
                    Tol::Exact
                } else {
                    // libm against the interpreter's own functions: a few ulps.
                    Tol::Float { terms: 1 }
                };
                k.output(y, tol);
            }
        }
    }
    batch.check();
}
