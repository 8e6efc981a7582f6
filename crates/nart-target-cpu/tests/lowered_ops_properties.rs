//! Property tests (the `testing` harness) of the lowerings added for the transformers and the
//! conformance key ops: MatMul with broadcast batches and 1-D operands, LayerNormalization,
//! Gather, the Reduce* family, ArgMax/ArgMin, Slice and Pad, on seeded random shapes,
//! attributes and values, compiled by the cpu target and compared with the interpreter.

use nart_target_cpu::testing::{cases, f32_literal, seed, ty, Batch, Gen, Tol};
use nart_tensor::{DType, Tensor};

fn ints(v: &[i64]) -> Tensor {
    Tensor::from_vec(vec![v.len()], v.to_vec()).expect("a 1-D tensor")
}

#[test]
fn matmul_with_broadcast_batches_and_vectors() {
    let seed = seed("matmul_with_broadcast_batches_and_vectors");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("matmul_with_broadcast_batches_and_vectors", seed);
    for _ in 0..cases(16) {
        let (m, k, n) = (g.size(1, 5), g.size(1, 9), g.size(1, 5));
        // Batch dimensions of the result, each operand keeping a suffix of them with some
        // set to 1 (broadcast).
        let nb = g.size(0, 2);
        let batch_dims = g.shape(nb, 1, 3);
        let side = |g: &mut Gen| -> Vec<usize> {
            let keep = g.size(0, batch_dims.len());
            batch_dims[batch_dims.len() - keep..]
                .iter()
                .map(|&d| if g.chance(1, 3) { 1 } else { d })
                .collect()
        };
        let (ba, bb) = (side(&mut g), side(&mut g));
        let a_vec = g.chance(1, 5);
        let b_vec = g.chance(1, 5);
        let sa: Vec<usize> = if a_vec {
            vec![k]
        } else {
            [ba.clone(), vec![m, k]].concat()
        };
        let sb: Vec<usize> = if b_vec {
            vec![k]
        } else {
            [bb.clone(), vec![k, n]].concat()
        };
        let (pa, pb) = (
            if a_vec { vec![] } else { ba.clone() },
            if b_vec { vec![] } else { bb.clone() },
        );
        let r = pa.len().max(pb.len());
        let mut out: Vec<usize> = (0..r)
            .map(|i| {
                let get = |v: &[usize]| (i + v.len()).checked_sub(r).map_or(1, |j| v[j]);
                get(&pa).max(get(&pb))
            })
            .collect();
        if !a_vec {
            out.push(m);
        }
        if !b_vec {
            out.push(n);
        }
        let kc = batch.case(format!("MatMul {sa:?} x {sb:?} -> {out:?}"));
        let a = kc.arg(g.tensor_f32(&sa, -1.0, 1.0));
        let b = kc.arg(g.tensor_f32(&sb, -1.0, 1.0));
        let y = kc.op1("graph.MatMul", &[a, b], "", &ty(&out, "f32"));
        kc.output(y, Tol::Float { terms: k });
    }
    batch.check();
}

#[test]
fn layer_normalization_over_any_trailing_axes() {
    let seed = seed("layer_normalization_over_any_trailing_axes");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("layer_normalization_over_any_trailing_axes", seed);
    for _ in 0..cases(16) {
        let rank = g.size(1, 4);
        let shape = g.shape(rank, 1, 6);
        let axis = g.int(-(rank as i64), rank as i64 - 1);
        let a = axis.rem_euclid(rank as i64) as usize;
        let eps = g.f32(1e-5, 1e-2);
        let bias = g.chance(1, 2);
        let k = batch.case(format!(
            "LayerNormalization {shape:?} axis={axis} bias={bias}"
        ));
        let x = k.arg(g.tensor_f32(&shape, -2.0, 2.0));
        // The scale and bias cover a suffix of the normalized dimensions.
        let from = g.size(a, rank);
        let s = k.arg(g.tensor_f32(&shape[from..], 0.5, 1.5));
        let b = if bias {
            k.arg(g.tensor_f32(&shape[from..], -1.0, 1.0))
        } else {
            k.none()
        };
        let props = format!("axis = {axis} : i64, epsilon = {} : f32", f32_literal(eps));
        let t = ty(&shape, "f32");
        let y = k.op(
            "graph.LayerNormalization",
            &[x, s, b],
            &props,
            &[&t, "none", "none"],
        );
        let len: usize = shape[a..].iter().product();
        k.output(y[0], Tol::Float { terms: 2 * len + 4 });
    }
    batch.check();
}

#[test]
fn gather_along_any_axis_with_negative_indices() {
    let seed = seed("gather_along_any_axis_with_negative_indices");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("gather_along_any_axis_with_negative_indices", seed);
    for _ in 0..cases(16) {
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 5);
        let axis = g.int(-(rank as i64), rank as i64 - 1);
        let a = axis.rem_euclid(rank as i64) as usize;
        let n = shape[a] as i64;
        let ni = g.size(0, 2);
        let ishape = g.shape(ni, 1, 4);
        let dtype = g.pick(&[DType::I64, DType::I32]);
        let constant = g.chance(1, 3);
        let k = batch.case(format!(
            "Gather {shape:?} indices {ishape:?} {dtype:?} axis={axis} constant={constant}"
        ));
        let x = k.arg(g.tensor_f32(&shape, -4.0, 4.0));
        let idx = g.tensor_int(dtype, &ishape, -n, n - 1);
        let i = if constant {
            k.constant(&idx)
        } else {
            k.arg(idx)
        };
        let out = [&shape[..a], &ishape[..], &shape[a + 1..]].concat();
        let y = k.op1(
            "graph.Gather",
            &[x, i],
            &format!("axis = {axis} : i64"),
            &ty(&out, "f32"),
        );
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn reductions_over_random_axes() {
    let seed = seed("reductions_over_random_axes");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("reductions_over_random_axes", seed);
    let ops = [
        "ReduceSum",
        "ReduceMean",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceSumSquare",
        "ReduceLogSumExp",
        "ArgMax",
        "ArgMin",
    ];
    for _ in 0..cases(32) {
        let op = g.pick(&ops);
        let rank = g.size(1, 4);
        let shape = g.shape(rank, 1, 5);
        let keep = g.chance(1, 2);
        let xt = g.tensor_f32(&shape, -1.5, 1.5);
        if op.starts_with("Arg") {
            let axis = g.int(-(rank as i64), rank as i64 - 1);
            let a = axis.rem_euclid(rank as i64) as usize;
            let last = g.chance(1, 2);
            let mut out = shape.clone();
            if keep {
                out[a] = 1;
            } else {
                out.remove(a);
            }
            let k = batch.case(format!(
                "{op} {shape:?} axis={axis} keepdims={keep} select_last_index={last}"
            ));
            let x = k.arg(xt);
            let props = format!(
                "axis = {axis} : i64, keepdims = {} : i64, select_last_index = {} : i64",
                i64::from(keep),
                i64::from(last)
            );
            let y = k.op1(&format!("graph.{op}"), &[x], &props, &ty(&out, "i64"));
            k.output(y, Tol::Exact);
            continue;
        }
        // Distinct axes, possibly none (all of them).
        let mut axes: Vec<i64> = (0..rank as i64).filter(|_| g.chance(1, 2)).collect();
        for v in axes.iter_mut() {
            if g.chance(1, 2) {
                *v -= rank as i64;
            }
        }
        let reduced: Vec<bool> = (0..rank)
            .map(|i| {
                axes.is_empty()
                    || axes
                        .iter()
                        .any(|&v| v.rem_euclid(rank as i64) as usize == i)
            })
            .collect();
        let out: Vec<usize> = shape
            .iter()
            .zip(&reduced)
            .filter_map(|(&d, &r)| match (r, keep) {
                (true, true) => Some(1),
                (true, false) => None,
                (false, _) => Some(d),
            })
            .collect();
        let k = batch.case(format!("{op} {shape:?} axes={axes:?} keepdims={keep}"));
        let x = k.arg(xt);
        let a = if axes.is_empty() {
            k.none()
        } else {
            k.constant(&ints(&axes))
        };
        let props = format!("keepdims = {} : i64", i64::from(keep));
        let y = k.op1(&format!("graph.{op}"), &[x, a], &props, &ty(&out, "f32"));
        let terms: usize = shape
            .iter()
            .zip(&reduced)
            .filter(|(_, &r)| r)
            .map(|(&d, _)| d)
            .product();
        k.output(y, Tol::Float { terms: terms + 4 });
    }
    batch.check();
}

#[test]
fn slices_with_any_steps_and_pads() {
    let seed = seed("slices_with_any_steps_and_pads");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("slices_with_any_steps_and_pads", seed);
    for _ in 0..cases(16) {
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 7);
        let k = batch.case(format!("Slice/Pad {shape:?}"));
        let x = k.arg(g.tensor_f32(&shape, -3.0, 3.0));
        // One slice per dimension with a random start, end and step (either sign, clamped).
        let mut starts = Vec::new();
        let mut ends = Vec::new();
        let mut steps = Vec::new();
        let mut out = Vec::new();
        for &d in &shape {
            let d = d as i64;
            let step = g.pick(&[1, 2, 3, -1, -2]);
            let s = g.int(-d - 2, d + 2);
            let e = g.int(-d - 2, d + 2);
            let wrap = |v: i64| if v < 0 { v + d } else { v };
            let (cs, ce) = if step > 0 {
                (wrap(s).clamp(0, d), wrap(e).clamp(0, d))
            } else {
                (wrap(s).clamp(0, d - 1), wrap(e).clamp(-1, d - 1))
            };
            let len = if step > 0 {
                (ce - cs + step - 1).div_euclid(step)
            } else {
                (cs - ce - step - 1).div_euclid(-step)
            };
            starts.push(s);
            ends.push(e);
            steps.push(step);
            out.push(len.max(0) as usize);
        }
        if out.contains(&0) {
            // An empty slice has nothing to compare; take the whole tensor instead.
            starts = vec![0; rank];
            ends = shape.iter().map(|&d| d as i64).collect();
            steps = vec![1; rank];
            out = shape.clone();
        }
        let axes: Vec<i64> = (0..rank as i64).collect();
        let (cs, ce, ca, ct) = (
            k.constant(&ints(&starts)),
            k.constant(&ints(&ends)),
            k.constant(&ints(&axes)),
            k.constant(&ints(&steps)),
        );
        let y = k.op1("graph.Slice", &[x, cs, ce, ca, ct], "", &ty(&out, "f32"));
        k.output(y, Tol::Exact);
        // Pad the slice: low and high pads in -1..=2 that keep every dimension non-empty.
        let mut pads = vec![0i64; 2 * rank];
        let mut padded = out.clone();
        for i in 0..rank {
            let (lo, hi) = (g.int(-1, 2), g.int(-1, 2));
            if out[i] as i64 + lo + hi >= 1 {
                pads[i] = lo;
                pads[i + rank] = hi;
                padded[i] = (out[i] as i64 + lo + hi) as usize;
            }
        }
        let p = k.constant(&ints(&pads));
        let v = g.f32(-1.0, 1.0);
        let cv = k.constant(&Tensor::from_vec(vec![], vec![v]).expect("a scalar"));
        let none = k.none();
        let z = k.op1("graph.Pad", &[y, p, cv, none], "", &ty(&padded, "f32"));
        k.output(z, Tol::Exact);
    }
    batch.check();
}
