//! Property tests (the `testing` harness) of the lowerings of `GatherElements`, `Shape`,
//! `ConstantOfShape`, `Range`, `Einsum` and `TopK`: seeded random shapes, attributes,
//! equations and values, compiled by the cpu target and compared with the interpreter.

use nart_target_cpu::testing::{cases, f32_literal, seed, ty, Batch, Gen, Tol};
use nart_tensor::{DType, Tensor};

fn ints(v: &[i64]) -> Tensor {
    Tensor::from_vec(vec![v.len()], v.to_vec()).expect("a 1-D tensor")
}

/// A tensor of `dtype` with few distinct values (so that ties occur), in `lo..=hi`.
fn few_values(g: &mut Gen, dtype: DType, shape: &[usize], lo: i64, hi: i64) -> Tensor {
    if dtype == DType::F32 {
        let n = shape.iter().product();
        let v: Vec<f32> = (0..n).map(|_| g.int(lo, hi) as f32 * 0.5).collect();
        Tensor::from_vec(shape.to_vec(), v).expect("the length matches the shape")
    } else {
        g.tensor_int(dtype, shape, lo, hi)
    }
}

#[test]
fn gather_elements_along_any_axis() {
    let seed = seed("gather_elements_along_any_axis");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("gather_elements_along_any_axis", seed);
    for _ in 0..cases(16) {
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 5);
        let axis = g.int(-(rank as i64), rank as i64 - 1);
        let a = axis.rem_euclid(rank as i64) as usize;
        let n = shape[a] as i64;
        let ishape: Vec<usize> = (0..rank)
            .map(|k| {
                if k == a {
                    g.size(1, 5)
                } else {
                    g.size(1, shape[k])
                }
            })
            .collect();
        let idtype = g.pick(&[DType::I64, DType::I32]);
        let dtype = g.pick(&[DType::F32, DType::I64, DType::I32]);
        let constant = g.chance(1, 3);
        let k = batch.case(format!(
            "GatherElements {dtype:?} {shape:?} indices {ishape:?} {idtype:?} axis={axis} constant={constant}"
        ));
        let x = k.arg(few_values(&mut g, dtype, &shape, -100, 100));
        let idx = g.tensor_int(idtype, &ishape, -n, n - 1);
        let i = if constant {
            k.constant(&idx)
        } else {
            k.arg(idx)
        };
        let y = k.op1(
            "graph.GatherElements",
            &[x, i],
            &format!("axis = {axis} : i64"),
            &ty(&ishape, dtype.name()),
        );
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn shape_with_start_and_end() {
    let seed = seed("shape_with_start_and_end");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("shape_with_start_and_end", seed);
    for _ in 0..cases(12) {
        let rank = g.size(0, 4);
        let shape = g.shape(rank, 1, 5);
        let r = rank as i64;
        let start = g.chance(1, 2).then(|| g.int(-r - 1, r + 1));
        let end = g.chance(1, 2).then(|| g.int(-r - 1, r + 1));
        let bound = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r);
        let (s, e) = (bound(start.unwrap_or(0)), bound(end.unwrap_or(r)));
        let len = (e - s).max(0) as usize;
        let mut props = Vec::new();
        if let Some(s) = start {
            props.push(format!("start = {s} : i64"));
        }
        if let Some(e) = end {
            props.push(format!("end = {e} : i64"));
        }
        let k = batch.case(format!("Shape {shape:?} start={start:?} end={end:?}"));
        let x = k.arg(g.tensor_f32(&shape, -1.0, 1.0));
        let y = k.op1("graph.Shape", &[x], &props.join(", "), &ty(&[len], "i64"));
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn constant_of_shape_with_any_value_type() {
    let seed = seed("constant_of_shape_with_any_value_type");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("constant_of_shape_with_any_value_type", seed);
    for _ in 0..cases(12) {
        let rank = g.size(0, 3);
        let shape = g.shape(rank, 1, 6);
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let (props, elem) = match g.size(0, 4) {
            0 => (String::new(), "f32"),
            1 => {
                let v = g.f32(-8.0, 8.0);
                (
                    format!("value = dense<{}> : tensor<1xf32>", f32_literal(v)),
                    "f32",
                )
            }
            2 => (
                format!("value = dense<{}> : tensor<1xi32>", g.int(-1000, 1000)),
                "i32",
            ),
            3 => (
                format!(
                    "value = dense<{}> : tensor<1xi64>",
                    g.int(-(1 << 40), 1 << 40)
                ),
                "i64",
            ),
            _ => (
                format!(
                    "value = dense<{}> : tensor<1xi1>",
                    g.pick(&["true", "false"])
                ),
                "i1",
            ),
        };
        let k = batch.case(format!("ConstantOfShape {shape:?} {props}"));
        let s = k.constant(&ints(&dims));
        let y = k.op1("graph.ConstantOfShape", &[s], &props, &ty(&shape, elem));
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn range_from_run_time_scalars() {
    let seed = seed("range_from_run_time_scalars");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("range_from_run_time_scalars", seed);
    for _ in 0..cases(16) {
        let dtype = g.pick(&[DType::F32, DType::I32, DType::I64]);
        let constant = g.chance(1, 3);
        let (operands, len): (Vec<Tensor>, i64) = if dtype == DType::F32 {
            let start = g.f32(-10.0, 10.0);
            let mut delta = g.f32(0.1, 3.0);
            if g.chance(1, 3) {
                delta = -delta;
            }
            let limit = start + delta * g.f32(-1.0, 12.0);
            let n = ((f64::from(limit) - f64::from(start)) / f64::from(delta))
                .ceil()
                .max(0.0) as i64;
            (
                vec![
                    Tensor::scalar(start),
                    Tensor::scalar(limit),
                    Tensor::scalar(delta),
                ],
                n,
            )
        } else {
            let start = g.int(-50, 50);
            let mut delta = g.int(1, 7);
            if g.chance(1, 3) {
                delta = -delta;
            }
            let limit = start + g.int(-5, 40) * delta.signum();
            let n = ((limit - start) as f64 / delta as f64).ceil().max(0.0) as i64;
            let t =
                |v: i64| Tensor::from_i128(dtype, vec![], vec![i128::from(v)]).expect("a scalar");
            (vec![t(start), t(limit), t(delta)], n)
        };
        let k = batch.case(format!(
            "Range {dtype:?} {:?} constant={constant} -> {len}",
            operands
                .iter()
                .map(|t| t.to_f64_vec().expect("numbers")[0])
                .collect::<Vec<_>>()
        ));
        let vals: Vec<_> = operands
            .into_iter()
            .map(|t| if constant { k.constant(&t) } else { k.arg(t) })
            .collect();
        let y = k.op1("graph.Range", &vals, "", &ty(&[len as usize], dtype.name()));
        k.output(y, Tol::Exact);
    }
    batch.check();
}

/// A random einsum over 1 to 3 operands: the equation, the operand shapes and the result
/// shape, and the number of terms an element sums.
fn random_equation(g: &mut Gen) -> (String, Vec<Vec<usize>>, Vec<usize>, usize) {
    let letters: Vec<char> = "abcdeXY".chars().collect();
    let nl = g.size(1, 5);
    let labels: Vec<char> = letters[..nl].to_vec();
    let sizes: Vec<usize> = (0..nl).map(|_| g.size(1, 4)).collect();
    let size = |c: char| sizes[labels.iter().position(|&l| l == c).unwrap_or(0)];
    // Ellipsis dimensions shared by the operands (right-aligned, size-1 broadcast).
    let ell = if g.chance(1, 4) { g.size(1, 2) } else { 0 };
    let ell_sizes: Vec<usize> = (0..ell).map(|_| g.size(2, 3)).collect();
    let nops = g.size(1, 3);
    let mut terms = Vec::new();
    let mut shapes = Vec::new();
    let mut used: Vec<char> = Vec::new();
    let mut max_ell = 0;
    for _ in 0..nops {
        let r = g.size(0, 3);
        let mut t: Vec<char> = (0..r).map(|_| g.pick(&labels)).collect();
        // Mostly distinct labels in one operand; a repeat is a diagonal.
        if !g.chance(1, 4) {
            t.dedup();
            let mut seen = Vec::new();
            t.retain(|c| {
                let new = !seen.contains(c);
                seen.push(*c);
                new
            });
        }
        let mut shape: Vec<usize> = t
            .iter()
            .map(|&c| if g.chance(1, 8) { 1 } else { size(c) })
            .collect();
        let mut text: String = t.iter().collect();
        if ell > 0 && g.chance(3, 4) {
            let keep = g.size(0, ell);
            let e: Vec<usize> = ell_sizes[ell - keep..]
                .iter()
                .map(|&s| if g.chance(1, 4) { 1 } else { s })
                .collect();
            max_ell = max_ell.max(keep);
            text = format!("...{text}");
            shape = [e, shape].concat();
        }
        used.extend(&t);
        terms.push(text);
        shapes.push(shape);
    }
    // Each label's size over the operands (a dimension of 1 broadcasts).
    let label_size = |c: char| -> usize {
        let mut s = 1;
        for (t, sh) in terms.iter().zip(&shapes) {
            let letters: Vec<char> = t.chars().filter(|c| c.is_ascii_alphabetic()).collect();
            let off = sh.len() - letters.len();
            for (i, &l) in letters.iter().enumerate() {
                if l == c && sh[off + i] != 1 {
                    s = sh[off + i];
                }
            }
        }
        s
    };
    let ell_size = |k: usize| -> usize {
        // Ellipsis dimension k of max_ell, right-aligned in each operand.
        let mut s = 1;
        for (t, sh) in terms.iter().zip(&shapes) {
            if !t.starts_with("...") {
                continue;
            }
            let n = sh.len() - (t.len() - 3);
            if k + n >= max_ell {
                let d = sh[k + n - max_ell];
                if d != 1 {
                    s = d;
                }
            }
        }
        s
    };
    let mut distinct: Vec<char> = used.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let (rhs, out_letters): (Option<String>, Vec<char>) = if g.chance(1, 3) {
        // Implicit: the labels used once, sorted.
        let once: Vec<char> = distinct
            .iter()
            .copied()
            .filter(|&c| used.iter().filter(|&&u| u == c).count() == 1)
            .collect();
        (None, once)
    } else {
        let mut pool = distinct.clone();
        let mut out = Vec::new();
        while !pool.is_empty() && g.chance(2, 3) {
            let i = g.size(0, pool.len() - 1);
            out.push(pool.remove(i));
        }
        (Some(out.iter().collect()), out)
    };
    let mut out_shape: Vec<usize> = (0..max_ell).map(ell_size).collect();
    out_shape.extend(out_letters.iter().map(|&c| label_size(c)));
    let lhs = terms.join(",");
    let eq = match rhs {
        Some(r) if max_ell > 0 => format!("{lhs}->...{r}"),
        Some(r) => format!("{lhs}->{r}"),
        None => lhs,
    };
    let summed: usize = distinct
        .iter()
        .filter(|c| !out_letters.contains(c))
        .map(|&c| label_size(c))
        .product();
    (eq, shapes, out_shape, summed * nops)
}

#[test]
fn einsum_with_random_equations() {
    let seed = seed("einsum_with_random_equations");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("einsum_with_random_equations", seed);
    for _ in 0..cases(24) {
        let (eq, shapes, out, terms) = random_equation(&mut g);
        let dtype = g.pick(&[DType::F32, DType::F32, DType::I32, DType::I64]);
        let k = batch.case(format!("Einsum {eq:?} {dtype:?} {shapes:?} -> {out:?}"));
        let xs: Vec<_> = shapes
            .iter()
            .map(|s| {
                let t = if dtype == DType::F32 {
                    g.tensor_f32(s, -1.0, 1.0)
                } else {
                    g.tensor_int(dtype, s, -5, 5)
                };
                if g.chance(1, 4) {
                    k.constant(&t)
                } else {
                    k.arg(t)
                }
            })
            .collect();
        let y = k.op1(
            "graph.Einsum",
            &xs,
            &format!("equation = \"{eq}\""),
            &ty(&out, dtype.name()),
        );
        let tol = if dtype == DType::F32 {
            Tol::Float { terms }
        } else {
            Tol::Exact
        };
        k.output(y, tol);
    }
    batch.check();
}

#[test]
fn top_k_with_ties_on_any_axis() {
    let seed = seed("top_k_with_ties_on_any_axis");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("top_k_with_ties_on_any_axis", seed);
    for _ in 0..cases(16) {
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 6);
        let axis = g.int(-(rank as i64), rank as i64 - 1);
        let a = axis.rem_euclid(rank as i64) as usize;
        let n = shape[a];
        let kk = g.size(0, n);
        let largest = g.size(0, 1);
        let dtype = g.pick(&[DType::F32, DType::I32, DType::I64]);
        let case = batch.case(format!(
            "TopK {dtype:?} {shape:?} axis={axis} K={kk} largest={largest}"
        ));
        let x = case.arg(few_values(&mut g, dtype, &shape, -3, 3));
        // K as a constant, or at run time (the static result type then says it).
        let kv = if g.chance(1, 3) {
            case.arg(ints(&[kk as i64]))
        } else {
            case.constant(&ints(&[kk as i64]))
        };
        let mut out = shape.clone();
        out[a] = kk;
        let ys = case.op(
            "graph.TopK",
            &[x, kv],
            &format!("axis = {axis} : i64, largest = {largest} : i64, sorted = 1 : i64"),
            &[&ty(&out, dtype.name()), &ty(&out, "i64")],
        );
        case.output(ys[0], Tol::Exact);
        case.output(ys[1], Tol::Exact);
    }
    batch.check();
}
