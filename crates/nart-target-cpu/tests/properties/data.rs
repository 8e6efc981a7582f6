//! Data movement: `Reshape` (with `0` and `-1` in the shape), `Flatten`, `Squeeze`,
//! `Unsqueeze` (negative axes), `Transpose` (any permutation, or the default reversal) and
//! `Concat` (one to four operands, any axis). They only move values, so the outputs must be
//! equal; a `Relu` before or after some of them puts their operand or result in the
//! compiled code's scratch arena rather than in an argument.

use nart_target_cpu::testing::{cases, seed, ty, Batch, Case, Gen, Tol, Val};
use nart_tensor::{DType, Tensor};

use crate::input;

/// The element type of a case: mostly f32, else an integer type (data moves the same way
/// whatever its width, or should).
fn elem(g: &mut Gen) -> DType {
    g.pick(&[
        DType::F32,
        DType::F32,
        DType::F32,
        DType::I8,
        DType::I32,
        DType::I64,
    ])
}

/// Values of `dtype` and `shape`.
fn values(g: &mut Gen, dtype: DType, shape: &[usize]) -> Tensor {
    match dtype {
        DType::F32 => g.tensor_f32(shape, -1.0, 1.0),
        _ => g.tensor_int(dtype, shape, -100, 100),
    }
}

/// The input of a case: the argument itself, or (one time in three, for floats) its `Relu`.
fn source(k: &mut Case, g: &mut Gen, shape: &[usize], dtype: DType) -> Val {
    let x = k.arg(values(g, dtype, shape));
    if dtype == DType::F32 && g.chance(1, 3) {
        k.op1("graph.Relu", &[x], "", &ty(shape, "f32"))
    } else {
        x
    }
}

/// Outputs `y`, or (one time in three, for floats) its `Relu`.
fn sink(k: &mut Case, g: &mut Gen, y: Val, shape: &[usize], dtype: DType) {
    let y = if dtype == DType::F32 && g.chance(1, 3) {
        k.op1("graph.Relu", &[y], "", &ty(shape, "f32"))
    } else {
        y
    };
    k.output(y, Tol::Exact);
}

/// A 1-D i64 constant.
fn i64s(k: &mut Case, v: &[i64]) -> Val {
    k.constant(&Tensor::from_vec(vec![v.len()], v.to_vec()).unwrap())
}

/// A shape of `rank` dimensions whose product is `n`.
fn factor(g: &mut Gen, mut n: usize, rank: usize) -> Vec<usize> {
    let mut dims = Vec::with_capacity(rank);
    for _ in 1..rank {
        let divisors: Vec<usize> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
        let d = g.pick(&divisors);
        dims.push(d);
        n /= d;
    }
    if rank > 0 {
        dims.push(n);
    }
    let p = g.permutation(rank);
    p.iter().map(|&i| dims[i]).collect()
}

#[test]
fn reshape_flatten_squeeze_unsqueeze() {
    let seed = seed("reshape_flatten_squeeze_unsqueeze");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("reshape_flatten_squeeze_unsqueeze", seed);
    for _ in 0..cases(24) {
        let dt = elem(&mut g);
        let dtn = dt.name();
        let rank = g.size(1, 4);
        match g.size(0, 3) {
            0 => {
                let si = g.shape(rank, 1, 4);
                let n: usize = si.iter().product();
                let out_rank = g.size(1, 4);
                let so = factor(&mut g, n, out_rank);
                // The shape operand: 0 copies the input's dimension at that position, one
                // -1 is inferred.
                let mut spec: Vec<i64> = so.iter().map(|&d| d as i64).collect();
                for (i, s) in spec.iter_mut().enumerate() {
                    if si.get(i) == Some(&so[i]) && g.chance(1, 3) {
                        *s = 0;
                    }
                }
                if g.chance(1, 2) {
                    let i = g.size(0, spec.len() - 1);
                    spec[i] = -1;
                }
                let k = batch.case(format!("{dtn} Reshape {si:?} by {spec:?} -> {so:?}"));
                let x = source(k, &mut g, &si, dt);
                let s = i64s(k, &spec);
                let y = k.op1("graph.Reshape", &[x, s], "", &ty(&so, dt.name()));
                sink(k, &mut g, y, &so, dt);
            }
            1 => {
                let si = g.shape(rank, 1, 4);
                let axis = g.int(-(rank as i64), rank as i64);
                let a = if axis < 0 { axis + rank as i64 } else { axis } as usize;
                let so = [si[..a].iter().product(), si[a..].iter().product::<usize>()];
                let k = batch.case(format!("{dtn} Flatten {si:?} axis={axis} -> {so:?}"));
                let x = source(k, &mut g, &si, dt);
                let props = if axis == 1 && g.chance(1, 2) {
                    String::new()
                } else {
                    format!("axis = {axis} : i64")
                };
                let y = k.op1("graph.Flatten", &[x], &props, &ty(&so, dt.name()));
                sink(k, &mut g, y, &so, dt);
            }
            2 => {
                // Some dimensions are 1; squeeze some of them (by a positive or negative
                // axis), or all of them without an axes operand.
                let si: Vec<usize> = (0..rank)
                    .map(|_| if g.chance(1, 2) { 1 } else { g.size(2, 4) })
                    .collect();
                let ones: Vec<usize> = (0..rank).filter(|&i| si[i] == 1).collect();
                let all = ones.is_empty() || g.chance(1, 4);
                let axes: Vec<usize> = if all {
                    ones.clone()
                } else {
                    ones.iter().copied().filter(|_| g.chance(2, 3)).collect()
                };
                let so: Vec<usize> = (0..rank)
                    .filter(|i| !axes.contains(i))
                    .map(|i| si[i])
                    .collect();
                let spec: Vec<i64> = axes
                    .iter()
                    .map(|&a| a as i64 - if g.chance(1, 2) { rank as i64 } else { 0 })
                    .collect();
                let k = batch.case(format!(
                    "{dtn} Squeeze {si:?} axes={} -> {so:?}",
                    if all {
                        "(all)".to_owned()
                    } else {
                        format!("{spec:?}")
                    }
                ));
                let x = source(k, &mut g, &si, dt);
                let mut operands = vec![x];
                operands.push(if all { k.none() } else { i64s(k, &spec) });
                let y = k.op1("graph.Squeeze", &operands, "", &ty(&so, dt.name()));
                sink(k, &mut g, y, &so, dt);
            }
            _ => {
                let si = g.shape(rank - 1, 1, 4);
                let out_rank = si.len() + g.size(1, 2);
                let mut axes: Vec<usize> = g.permutation(out_rank);
                axes.truncate(out_rank - si.len());
                let mut rest = si.iter();
                let so: Vec<usize> = (0..out_rank)
                    .map(|i| {
                        if axes.contains(&i) {
                            1
                        } else {
                            *rest.next().unwrap()
                        }
                    })
                    .collect();
                let spec: Vec<i64> = axes
                    .iter()
                    .map(|&a| a as i64 - if g.chance(1, 2) { out_rank as i64 } else { 0 })
                    .collect();
                let k = batch.case(format!("{dtn} Unsqueeze {si:?} axes={spec:?} -> {so:?}"));
                let x = source(k, &mut g, &si, dt);
                let s = i64s(k, &spec);
                let y = k.op1("graph.Unsqueeze", &[x, s], "", &ty(&so, dt.name()));
                sink(k, &mut g, y, &so, dt);
            }
        }
    }
    batch.check();
}

#[test]
fn transpose_by_any_permutation() {
    let seed = seed("transpose_by_any_permutation");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("transpose_by_any_permutation", seed);
    for _ in 0..cases(20) {
        let dt = elem(&mut g);
        let dtn = dt.name();
        let rank = g.size(1, 5);
        let si = g.shape(rank, 1, 4);
        let perm = if g.chance(1, 5) {
            None
        } else {
            Some(g.permutation(rank))
        };
        let p = perm
            .clone()
            .unwrap_or_else(|| (0..rank).rev().collect::<Vec<_>>());
        let so: Vec<usize> = p.iter().map(|&i| si[i]).collect();
        let k = batch.case(format!("{dtn} Transpose {si:?} perm={perm:?} -> {so:?}"));
        let x = source(k, &mut g, &si, dt);
        let props = match &perm {
            Some(p) => format!(
                "perm = {}",
                nart_target_cpu::testing::i64_array(
                    &p.iter().map(|&i| i as i64).collect::<Vec<_>>()
                )
            ),
            None => String::new(),
        };
        let y = k.op1("graph.Transpose", &[x], &props, &ty(&so, dt.name()));
        sink(k, &mut g, y, &so, dt);
    }
    batch.check();
}

#[test]
fn concat_along_any_axis() {
    let seed = seed("concat_along_any_axis");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("concat_along_any_axis", seed);
    for _ in 0..cases(20) {
        let dt = elem(&mut g);
        let dtn = dt.name();
        let rank = g.size(1, 4);
        let base = g.shape(rank, 1, 3);
        let axis = g.int(-(rank as i64), rank as i64 - 1);
        let a = axis.rem_euclid(rank as i64) as usize;
        let count = g.size(1, 4);
        let shapes: Vec<Vec<usize>> = (0..count)
            .map(|_| {
                let mut s = base.clone();
                s[a] = g.size(1, 3);
                s
            })
            .collect();
        let mut so = base.clone();
        so[a] = shapes.iter().map(|s| s[a]).sum();
        let k = batch.case(format!("{dtn} Concat {shapes:?} axis={axis} -> {so:?}"));
        // One time in five an operand repeats the one before it (`Concat(x, x)`).
        let mut operands: Vec<Val> = Vec::new();
        for (i, s) in shapes.iter().enumerate() {
            if i > 0 && shapes[i - 1] == *s && g.chance(1, 5) {
                operands.push(operands[i - 1]);
            } else {
                let t = values(&mut g, dt, s);
                operands.push(input(k, &mut g, t));
            }
        }
        let y = k.op1(
            "graph.Concat",
            &operands,
            &format!("axis = {axis} : i64"),
            &ty(&so, dt.name()),
        );
        sink(k, &mut g, y, &so, dt);
    }
    batch.check();
}
