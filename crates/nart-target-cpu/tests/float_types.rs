//! Property tests (the `testing` harness) of the cpu target on `f16`, `bf16` and `f64`
//! tensors: elementwise ops, products, windows, softmax, reductions and casts on seeded random
//! shapes, attributes and values, compiled and compared with the interpreter.
//!
//! How close the results must be follows from how each side computes (see
//! `nart_linalg_lowering::floats`): the interpreter computes a 16-bit op in `f64` and rounds
//! once, the code in `f32` and rounds once.
//!
//! - Exact: ops that are one correctly rounded IEEE operation (`Add`, `Sub`, `Mul`, `Div`,
//!   `Sqrt`, `Reciprocal`: `f32` has more than twice the 16-bit precision plus two bits, so the
//!   double rounding is harmless) and ops that only move, select or compare (`Max`, `Min`,
//!   `Relu`, `Neg`, `Abs`, `Floor`, `Ceil`, `fmod`), in all three types; the casts, but those
//!   into `bf16` from a wider float.
//! - Within `Tol::Float`, which for a 16-bit output adds one unit in its last place: functions
//!   (`Exp`, `Tanh`, ...), and every op that sums (products, convolutions, pooling, softmax,
//!   reductions), in `f32` in the code and `f64` in the interpreter. For `f64` outputs the
//!   bound uses `f64`'s epsilon: the code computes in `f64`.
//! - Casts from `f32` or `f64` into `bf16`: one unit in the last place, because the
//!   interpreter's conversion (`half::bf16::from_f64`) looks at the upper 32 bits of the `f64`
//!   only, so a value just above a tie can round down, where the code rounds to nearest even
//!   as IEEE (and ONNX Runtime) do.

use nart_target_cpu::testing::{cases, f32_literal, i64_array, seed, ty, Batch, Gen, Tol};
use nart_tensor::{DType, Tensor};

/// The float types these tests run in.
const TYPES: [DType; 3] = [DType::F16, DType::BF16, DType::F64];

/// A tensor of `dt` with elements drawn uniformly in `lo..hi` (as f32, then cast).
fn floats(g: &mut Gen, dt: DType, shape: &[usize], lo: f32, hi: f32) -> Tensor {
    g.tensor_f32(shape, lo, hi)
        .cast(dt)
        .expect("f32 casts to every float type")
}

/// `shape` with a random suffix kept and some dimensions set to 1 (an operand that broadcasts
/// to `shape`).
fn broadcast_of(g: &mut Gen, shape: &[usize]) -> Vec<usize> {
    let keep = g.size(0, shape.len());
    shape[shape.len() - keep..]
        .iter()
        .map(|&d| if g.chance(1, 3) { 1 } else { d })
        .collect()
}

#[test]
fn exact_elementwise_ops() {
    let name = "exact_elementwise_ops";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(36) {
        let dt = g.pick(&TYPES);
        let e = dt.name();
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 9);
        if g.chance(1, 2) {
            let op = g.pick(&["Add", "Sub", "Mul", "Div", "Max", "Min", "Mod"]);
            let sb = broadcast_of(&mut g, &shape);
            let k = batch.case(format!("{op} {e} {shape:?} and {sb:?}"));
            let a = k.arg(floats(&mut g, dt, &shape, -8.0, 8.0));
            let b = if op == "Div" || op == "Mod" {
                // Divisors away from zero, either sign.
                let t = floats(&mut g, dt, &sb, 0.25, 4.0);
                let s = floats(&mut g, dt, &sb, -1.0, 1.0);
                let v: Vec<f64> = t
                    .to_f64_vec()
                    .unwrap()
                    .iter()
                    .zip(s.to_f64_vec().unwrap())
                    .map(|(x, s)| if s < 0.0 { -x } else { *x })
                    .collect();
                k.arg(Tensor::from_f64(dt, sb.clone(), v).unwrap())
            } else if g.chance(1, 3) {
                // A constant operand; for f64 with every digit (thirds are not f32 values).
                let t = floats(&mut g, dt, &sb, -8.0, 8.0);
                let v: Vec<f64> = t.to_f64_vec().unwrap().iter().map(|x| x / 3.0).collect();
                k.constant(&Tensor::from_f64(dt, sb.clone(), v).unwrap())
            } else {
                k.arg(floats(&mut g, dt, &sb, -8.0, 8.0))
            };
            let props = if op == "Mod" { "fmod = 1 : i64" } else { "" };
            let y = k.op1(&format!("graph.{op}"), &[a, b], props, &ty(&shape, e));
            k.output(y, Tol::Exact);
        } else {
            let op = g.pick(&["Neg", "Abs", "Relu", "Sqrt", "Reciprocal", "Floor", "Ceil"]);
            let k = batch.case(format!("{op} {e} {shape:?}"));
            let (lo, hi) = match op {
                "Sqrt" => (0.0, 100.0),
                "Reciprocal" => (0.5, 50.0),
                _ => (-50.0, 50.0),
            };
            let x = k.arg(floats(&mut g, dt, &shape, lo, hi));
            let y = k.op1(&format!("graph.{op}"), &[x], "", &ty(&shape, e));
            k.output(y, Tol::Exact);
        }
    }
    batch.check();
}

#[test]
fn rounded_elementwise_ops() {
    let name = "rounded_elementwise_ops";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(30) {
        let dt = g.pick(&TYPES);
        let e = dt.name();
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 9);
        let op = g.pick(&[
            "Exp",
            "Tanh",
            "Sigmoid",
            "Erf",
            "Log",
            "Pow",
            "LeakyRelu",
            "HardSigmoid",
            "Gelu",
        ]);
        let k = batch.case(format!("{op} {e} {shape:?}"));
        let (lo, hi) = match op {
            "Log" | "Pow" => (0.05, 4.0),
            _ => (-4.0, 4.0),
        };
        let x = k.arg(floats(&mut g, dt, &shape, lo, hi));
        let y = match op {
            "Pow" => {
                let p = k.arg(floats(&mut g, dt, &[shape[shape.len() - 1]], -2.0, 2.0));
                k.op1("graph.Pow", &[x, p], "", &ty(&shape, e))
            }
            "LeakyRelu" => {
                let alpha = format!("alpha = {} : f32", f32_literal(g.f32(0.01, 0.5)));
                k.op1("graph.LeakyRelu", &[x], &alpha, &ty(&shape, e))
            }
            _ => k.op1(&format!("graph.{op}"), &[x], "", &ty(&shape, e)),
        };
        // The two sides' math functions (glibc's in the code, the interpreter's own) differ
        // by a few units in f64's last place; Gelu's `1 + erf(x / sqrt 2)` cancels below
        // x = -3 and turns that into about 1e-14 of an output near 1e-3.
        let terms = if op == "Gelu" { 64 } else { 8 };
        k.output(y, Tol::Float { terms });
    }
    batch.check();
}

#[test]
fn products_and_windows() {
    let name = "products_and_windows";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(24) {
        let dt = g.pick(&TYPES);
        let e = dt.name();
        match g.size(0, 3) {
            0 => {
                let (m, kk, n) = (g.size(1, 7), g.size(1, 19), g.size(1, 11));
                let k = batch.case(format!("MatMul {e} {m}x{kk} * {kk}x{n}"));
                let a = k.arg(floats(&mut g, dt, &[m, kk], -1.0, 1.0));
                let b = k.arg(floats(&mut g, dt, &[kk, n], -1.0, 1.0));
                let y = k.op1("graph.MatMul", &[a, b], "", &ty(&[m, n], e));
                k.output(y, Tol::Float { terms: kk });
            }
            1 => {
                let (m, kk, n) = (g.size(1, 6), g.size(1, 12), g.size(1, 9));
                let k = batch.case(format!("Gemm {e} transB {m}x{kk} * ({n}x{kk})^T + bias"));
                let a = k.arg(floats(&mut g, dt, &[m, kk], -1.0, 1.0));
                let w = floats(&mut g, dt, &[n, kk], -1.0, 1.0);
                let w = k.constant(&w);
                let b = k.arg(floats(&mut g, dt, &[n], -1.0, 1.0));
                let props = format!(
                    "alpha = {} : f32, transB = 1 : i64",
                    f32_literal(g.f32(0.5, 2.0))
                );
                let y = k.op1("graph.Gemm", &[a, w, b], &props, &ty(&[m, n], e));
                k.output(y, Tol::Float { terms: kk + 1 });
            }
            2 => {
                let (n, c, f) = (g.size(1, 2), g.size(1, 4), g.size(1, 5));
                let (kh, kw) = (g.size(1, 3), g.size(1, 3));
                let (h, w) = (g.size(kh, 8), g.size(kw, 8));
                let pad = g.size(0, 1);
                let stride = g.size(1, 2);
                let oh = (h + 2 * pad - kh) / stride + 1;
                let ow = (w + 2 * pad - kw) / stride + 1;
                let k = batch.case(format!(
                    "Conv {e} x=[{n},{c},{h},{w}] w=[{f},{c},{kh},{kw}] pad={pad} stride={stride}"
                ));
                let x = k.arg(floats(&mut g, dt, &[n, c, h, w], -1.0, 1.0));
                let wt = k.arg(floats(&mut g, dt, &[f, c, kh, kw], -1.0, 1.0));
                let b = k.arg(floats(&mut g, dt, &[f], -1.0, 1.0));
                let props = format!(
                    "kernel_shape = {}, pads = {}, strides = {}",
                    i64_array(&[kh as i64, kw as i64]),
                    i64_array(&[pad as i64; 4]),
                    i64_array(&[stride as i64; 2])
                );
                let y = k.op1("graph.Conv", &[x, wt, b], &props, &ty(&[n, f, oh, ow], e));
                k.output(
                    y,
                    Tol::Float {
                        terms: c * kh * kw + 1,
                    },
                );
            }
            _ => {
                // Pooling of 16-bit floats (in f32; the f64 pooling is not lowered).
                let dt = g.pick(&[DType::F16, DType::BF16]);
                let e = dt.name();
                let max = g.chance(1, 2);
                let (n, c) = (g.size(1, 2), g.size(1, 3));
                let (kh, kw) = (g.size(1, 3), g.size(1, 3));
                let (h, w) = (g.size(kh, 9), g.size(kw, 9));
                let (oh, ow) = (h - kh + 1, w - kw + 1);
                let op = if max { "MaxPool" } else { "AveragePool" };
                let k = batch.case(format!("{op} {e} [{n},{c},{h},{w}] kernel {kh}x{kw}"));
                let x = k.arg(floats(&mut g, dt, &[n, c, h, w], -1.0, 1.0));
                let props = format!("kernel_shape = {}", i64_array(&[kh as i64, kw as i64]));
                let out = ty(&[n, c, oh, ow], e);
                let y = if max {
                    // Sometimes with the indices used: the f32 op must compute them too.
                    let with_indices = g.chance(1, 2);
                    let it = if with_indices {
                        ty(&[n, c, oh, ow], "i64")
                    } else {
                        "none".to_string()
                    };
                    let r = k.op("graph.MaxPool", &[x], &props, &[out.as_str(), it.as_str()]);
                    if with_indices {
                        k.output(r[1], Tol::Exact);
                    }
                    r[0]
                } else {
                    k.op1("graph.AveragePool", &[x], &props, &out)
                };
                let tol = if max {
                    Tol::Exact
                } else {
                    Tol::Float { terms: kh * kw }
                };
                k.output(y, tol);
            }
        }
    }
    batch.check();
}

#[test]
fn softmax_reductions_and_normalization() {
    let name = "softmax_reductions_and_normalization";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(24) {
        let dt = g.pick(&TYPES);
        let e = dt.name();
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 9);
        let axis = g.size(0, rank - 1);
        let len = shape[axis];
        let op = g.pick(&[
            "Softmax",
            "LogSoftmax",
            "ReduceSum",
            "ReduceMean",
            "ReduceMax",
            "ReduceLogSumExp",
            "LayerNormalization",
        ]);
        let k = batch.case(format!("{op} {e} {shape:?} axis {axis}"));
        let x = k.arg(floats(&mut g, dt, &shape, -2.0, 2.0));
        let props = format!("axis = {axis} : i64");
        let (y, terms) = match op {
            "Softmax" | "LogSoftmax" => (
                k.op1(&format!("graph.{op}"), &[x], &props, &ty(&shape, e)),
                len + 4,
            ),
            "LayerNormalization" => {
                let norm = shape[axis..].to_vec();
                let n: usize = norm.iter().product();
                let s = k.arg(floats(&mut g, dt, &norm, 0.5, 1.5));
                let b = k.arg(floats(&mut g, dt, &norm, -0.5, 0.5));
                let t = ty(&shape, e);
                (
                    k.op(
                        "graph.LayerNormalization",
                        &[x, s, b],
                        &props,
                        &[&t, "none", "none"],
                    )[0],
                    2 * n + 8,
                )
            }
            _ => {
                let axes = k.constant(&Tensor::from_vec(vec![1], vec![axis as i64]).unwrap());
                let mut out = shape.clone();
                out[axis] = 1;
                (
                    k.op1(
                        &format!("graph.{op}"),
                        &[x, axes],
                        "keepdims = 1 : i64",
                        &ty(&out, e),
                    ),
                    len + 4,
                )
            }
        };
        k.output(y, Tol::Float { terms });
    }
    batch.check();
}

/// Values of `dt` for a cast: random ones in `-range..range`, and for floats the special
/// ones (NaN, infinities, zeros, halves, and values outside every integer type).
fn cast_input(g: &mut Gen, dt: DType, n: usize) -> Tensor {
    let range = match dt {
        DType::Bool => return g.tensor_int(DType::Bool, &[n], 0, 1),
        // Integers into 16-bit floats: exact below 2^21 in the interpreter's bf16 rounding.
        DType::I32 | DType::I64 => {
            return g.tensor_int(dt, &[n], -(1 << 20), 1 << 20);
        }
        DType::F16 | DType::BF16 => 6.0e4,
        _ => 3.0e9,
    };
    let mut v: Vec<f64> = (0..n).map(|_| f64::from(g.f32(-range, range))).collect();
    let special = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        0.5,
        -0.5,
        -1.5,
        2.5,
        65_504.0,
        -2_147_483_649.0,
        4.0e9,
        1.0e19,
        -3.0e19,
        1.0e30,
        -1.0e30,
        3.0e38,
    ];
    for (i, s) in special.iter().enumerate() {
        if i < n && g.chance(1, 2) {
            v[i] = *s;
        }
    }
    Tensor::from_f64(dt, vec![n], v).expect("a float dtype")
}

#[test]
fn casts_between_floats_and_integers() {
    let name = "casts_between_floats_and_integers";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    let all = [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::Bool,
    ];
    for &from in &all {
        for &to in &all {
            let narrow = matches!(from, DType::F16 | DType::BF16 | DType::F64)
                || matches!(to, DType::F16 | DType::BF16 | DType::F64);
            if from == to || !narrow {
                continue;
            }
            let n = g.size(17, 40);
            let k = batch.case(format!("Cast {} -> {} [{n}]", from.name(), to.name()));
            let x = k.arg(cast_input(&mut g, from, n));
            let props = format!("to = {} : i64", to.onnx_code());
            let y = k.op1("graph.Cast", &[x], &props, &ty(&[n], to.name()));
            // See the module documentation for bf16 from wider floats.
            let tol = if to == DType::BF16 && matches!(from, DType::F32 | DType::F64) {
                Tol::Float { terms: 0 }
            } else {
                Tol::Exact
            };
            k.output(y, tol);
        }
    }
    batch.check();
}

#[test]
fn ranges_and_einsum() {
    let name = "ranges_and_einsum";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(12) {
        let dt = g.pick(&TYPES);
        let e = dt.name();
        if g.chance(1, 2) {
            let start = g.int(-20, 20) as f64 * 0.5;
            let delta = g.pick(&[0.25, 0.5, 1.5, -0.75, -2.0]);
            let n = g.size(1, 30);
            let limit = start + delta * n as f64 - delta * 0.5;
            let k = batch.case(format!("Range {e} {start} {limit} {delta}"));
            let scalar = |v: f64| Tensor::from_f64(dt, vec![], vec![v]).unwrap();
            let (s, l, d) = (
                k.constant(&scalar(start)),
                k.constant(&scalar(limit)),
                k.constant(&scalar(delta)),
            );
            let y = k.op1("graph.Range", &[s, l, d], "", &ty(&[n], e));
            k.output(y, Tol::Exact);
        } else {
            let (b, i, j, kk) = (g.size(1, 3), g.size(1, 5), g.size(1, 5), g.size(1, 7));
            let k = batch.case(format!(
                "Einsum {e} bij,bjk->bik [{b},{i},{j}]x[{b},{j},{kk}]"
            ));
            let x = k.arg(floats(&mut g, dt, &[b, i, j], -1.0, 1.0));
            let w = k.arg(floats(&mut g, dt, &[b, j, kk], -1.0, 1.0));
            let y = k.op1(
                "graph.Einsum",
                &[x, w],
                "equation = \"bij,bjk->bik\"",
                &ty(&[b, i, kk], e),
            );
            k.output(y, Tol::Float { terms: j });
        }
    }
    batch.check();
}

#[test]
fn data_movement() {
    let name = "data_movement";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    let i64s = |v: &[i64]| Tensor::from_vec(vec![v.len()], v.to_vec()).unwrap();
    for _ in 0..cases(30) {
        let dt = g.pick(&TYPES);
        let e = dt.name();
        let rank = g.size(2, 3);
        let shape = g.shape(rank, 1, 6);
        let op = g.pick(&[
            "Transpose",
            "Reshape",
            "Concat",
            "Slice",
            "Gather",
            "Expand",
            "Where",
            "Identity",
        ]);
        let k = batch.case(format!("{op} {e} {shape:?}"));
        let x = k.arg(floats(&mut g, dt, &shape, -100.0, 100.0));
        let y = match op {
            "Transpose" => {
                let perm = g.permutation(rank);
                let so: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
                let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
                let props = format!("perm = {}", i64_array(&perm));
                k.op1("graph.Transpose", &[x], &props, &ty(&so, e))
            }
            "Reshape" => {
                let n: usize = shape.iter().product();
                let s = k.constant(&i64s(&[-1]));
                k.op1("graph.Reshape", &[x, s], "", &ty(&[n], e))
            }
            "Concat" => {
                let mut other = shape.clone();
                other[0] = g.size(1, 4);
                let z = k.arg(floats(&mut g, dt, &other, -100.0, 100.0));
                let mut so = shape.clone();
                so[0] += other[0];
                k.op1("graph.Concat", &[x, z], "axis = 0 : i64", &ty(&so, e))
            }
            "Slice" => {
                let d = shape[rank - 1] as i64;
                let start = g.int(0, d - 1);
                let mut so = shape.clone();
                so[rank - 1] = (d - start) as usize;
                let (s, t, a) = (
                    k.constant(&i64s(&[start])),
                    k.constant(&i64s(&[d])),
                    k.constant(&i64s(&[rank as i64 - 1])),
                );
                let none = k.none();
                k.op1("graph.Slice", &[x, s, t, a, none], "", &ty(&so, e))
            }
            "Gather" => {
                let n = g.size(1, 5);
                let idx: Vec<i64> = (0..n)
                    .map(|_| g.int(-(shape[0] as i64), shape[0] as i64 - 1))
                    .collect();
                let i = k.constant(&i64s(&idx));
                let mut so = vec![n];
                so.extend_from_slice(&shape[1..]);
                k.op1("graph.Gather", &[x, i], "axis = 0 : i64", &ty(&so, e))
            }
            "Expand" => {
                let mut so = vec![g.size(1, 3)];
                so.extend_from_slice(&shape);
                let s: Vec<i64> = so.iter().map(|&d| d as i64).collect();
                let s = k.constant(&i64s(&s));
                k.op1("graph.Expand", &[x, s], "", &ty(&so, e))
            }
            "Where" => {
                let c = k.arg(g.tensor_int(DType::Bool, &shape, 0, 1));
                let z = k.arg(floats(&mut g, dt, &shape, -100.0, 100.0));
                k.op1("graph.Where", &[c, x, z], "", &ty(&shape, e))
            }
            _ => k.op1("graph.Identity", &[x], "", &ty(&shape, e)),
        };
        k.output(y, Tol::Exact);
    }
    batch.check();
}
