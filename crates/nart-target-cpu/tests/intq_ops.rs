//! Property tests (the `testing` harness) of narrow and unsigned integers on the cpu target, and
//! of ONNX's quantization operators: seeded random shapes, attributes and values, compiled by
//! the cpu target and compared with the interpreter exactly (integers element for element, the
//! float outputs of DequantizeLinear and DynamicQuantizeLinear bit for bit).

use nart_target_cpu::testing::{
    cases, f32_literal, i64_array, seed, ty, Batch, Case, Gen, Tol, Val,
};
use nart_tensor::{DType, Tensor};

/// The integer types the cpu target gained, with the range of values drawn for each (the
/// 64-bit unsigned one wraps negative values onto those above `2^63`).
const INTS: [(DType, i64, i64); 6] = [
    (DType::I8, -128, 127),
    (DType::I16, -32768, 32767),
    (DType::U8, 0, 255),
    (DType::U16, 0, 65535),
    (DType::U32, 0, 4_294_967_295),
    (DType::U64, -(1 << 61), 1 << 61),
];

/// A shape that broadcasts to `out`: a suffix of it, some dimensions set to 1.
fn broadcast_to(g: &mut Gen, out: &[usize]) -> Vec<usize> {
    let keep = g.size(0, out.len());
    out[out.len() - keep..]
        .iter()
        .map(|&d| if g.chance(1, 3) { 1 } else { d })
        .collect()
}

/// Values of `dtype`, drawn from a narrow window half of the time so that equal values (ties,
/// equal comparisons) occur.
fn values(g: &mut Gen, dtype: DType, shape: &[usize], lo: i64, hi: i64) -> Tensor {
    if g.chance(1, 2) {
        let a = g.int(lo.max(-3), hi.min(3));
        g.tensor_int(dtype, shape, a, a.saturating_add(3).min(hi))
    } else {
        g.tensor_int(dtype, shape, lo, hi)
    }
}

#[test]
fn narrow_and_unsigned_elementwise() {
    let seed = seed("narrow_and_unsigned_elementwise");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("narrow_and_unsigned_elementwise", seed);
    for _ in 0..cases(48) {
        let (dtype, lo, hi) = g.pick(&INTS);
        let name = dtype.name();
        let rank = g.size(0, 3);
        let out = g.shape(rank, 1, 4);
        // The first operand has the result's shape, the second broadcasts to it.
        let (sa, sb) = (out.clone(), broadcast_to(&mut g, &out));
        let op = g.pick(&[
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Mod",
            "Max",
            "Min",
            "Equal",
            "Less",
            "LessOrEqual",
            "Greater",
            "GreaterOrEqual",
            "Clip",
            "Where",
        ]);
        let k = batch.case(format!("{op} {sa:?} {sb:?} -> {out:?} of {name}"));
        let a = k.arg(values(&mut g, dtype, &sa, lo, hi));
        let y = match op {
            "Div" | "Mod" => {
                // No divisor is 0: the interpreter refuses a division by zero.
                let mut b = values(&mut g, dtype, &sb, lo, hi)
                    .to_i128_vec()
                    .expect("ints");
                b.iter_mut().filter(|v| **v == 0).for_each(|v| *v = 3);
                let b = k.arg(Tensor::from_i128(dtype, sb.clone(), b).expect("a tensor"));
                k.op1(&format!("graph.{op}"), &[a, b], "", &ty(&out, name))
            }
            "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual" => {
                let b = k.arg(values(&mut g, dtype, &sb, lo, hi));
                k.op1(&format!("graph.{op}"), &[a, b], "", &ty(&out, "i1"))
            }
            "Clip" => {
                let (x, y) = (g.int(lo, hi), g.int(lo, hi));
                let (x, y) = (x.min(y), x.max(y));
                let l = k.arg(Tensor::from_i128(dtype, vec![], vec![x.into()]).expect("a scalar"));
                let h = k.arg(Tensor::from_i128(dtype, vec![], vec![y.into()]).expect("a scalar"));
                let x = k.arg(values(&mut g, dtype, &out, lo, hi));
                k.op1("graph.Clip", &[x, l, h], "", &ty(&out, name))
            }
            "Where" => {
                let c = k.arg(g.tensor_int(DType::Bool, &sb, 0, 1));
                let b = k.arg(values(&mut g, dtype, &out, lo, hi));
                k.op1("graph.Where", &[c, a, b], "", &ty(&out, name))
            }
            "Max" | "Min" => {
                let b = k.arg(values(&mut g, dtype, &sb, lo, hi));
                let c = k.arg(values(&mut g, dtype, &out, lo, hi));
                k.op1(&format!("graph.{op}"), &[a, b, c], "", &ty(&out, name))
            }
            _ => {
                let b = k.arg(values(&mut g, dtype, &sb, lo, hi));
                k.op1(&format!("graph.{op}"), &[a, b], "", &ty(&out, name))
            }
        };
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn casts_between_narrow_unsigned_and_float() {
    let seed = seed("casts_between_narrow_unsigned_and_float");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("casts_between_narrow_unsigned_and_float", seed);
    let types = [
        DType::I8,
        DType::I16,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I32,
        DType::I64,
        DType::F32,
    ];
    for _ in 0..cases(40) {
        let from = g.pick(&types);
        let to = g.pick(&types);
        let rank = g.size(1, 2);
        let shape = g.shape(rank, 1, 5);
        let k = batch.case(format!("Cast {shape:?} {} -> {}", from.name(), to.name()));
        // Values every type holds (0..=100), so that no cast is out of range; a float has a
        // fraction, which a cast to an integer truncates, and may be out of a narrow type's
        // range (which wraps, as the interpreter does), except for the 32- and 64-bit types,
        // whose out-of-range conversions are left undefined.
        let x = if from == DType::F32 {
            let wraps = matches!(
                to,
                DType::I8 | DType::I16 | DType::U8 | DType::U16 | DType::U32
            );
            if wraps && g.chance(1, 2) {
                g.tensor_f32(&shape, -70000.0, 70000.0)
            } else {
                g.tensor_f32(&shape, 0.0, 100.0)
            }
        } else {
            g.tensor_int(from, &shape, 0, 100)
        };
        let x = k.arg(x);
        let to_code = match to {
            DType::F32 => 1,
            DType::U8 => 2,
            DType::I8 => 3,
            DType::U16 => 4,
            DType::I16 => 5,
            DType::I32 => 6,
            DType::I64 => 7,
            DType::U32 => 12,
            DType::U64 => 13,
            _ => unreachable!("a type of the list"),
        };
        let y = k.op1(
            "graph.Cast",
            &[x],
            &format!("to = {to_code} : i64"),
            &ty(&shape, to.name()),
        );
        k.output(y, Tol::Exact);
    }
    // Sign and zero extension of values beyond the common range.
    for (from, to) in [
        (DType::I8, DType::U16),
        (DType::U8, DType::I32),
        (DType::U16, DType::I64),
        (DType::U32, DType::F32),
        (DType::U64, DType::F32),
        (DType::I16, DType::U8),
    ] {
        let shape = vec![7];
        let k = batch.case(format!(
            "Cast {} -> {} of any value",
            from.name(),
            to.name()
        ));
        let (lo, hi) = INTS
            .iter()
            .find(|t| t.0 == from)
            .map(|t| (t.1, t.2))
            .expect("a listed type");
        let x = k.arg(g.tensor_int(from, &shape, lo, hi));
        let code = match to {
            DType::U16 => 4,
            DType::I32 => 6,
            DType::I64 => 7,
            DType::F32 => 1,
            _ => 2,
        };
        let y = k.op1(
            "graph.Cast",
            &[x],
            &format!("to = {code} : i64"),
            &ty(&shape, to.name()),
        );
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn unsigned_windows_reductions_and_data_movement() {
    let seed = seed("unsigned_windows_reductions_and_data_movement");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("unsigned_windows_reductions_and_data_movement", seed);
    for _ in 0..cases(40) {
        let (mut dtype, mut lo, mut hi) = g.pick(&INTS);
        let op = g.pick(&[
            "MaxPool",
            "ReduceMax",
            "ReduceMin",
            "ReduceSum",
            "ArgMax",
            "ArgMin",
            "TopK",
            "Transpose",
            "Concat",
            "Reshape",
        ]);
        if op == "MaxPool" && !matches!(dtype, DType::U8 | DType::I8) {
            // ONNX's MaxPool takes 8-bit integers only.
            (dtype, lo, hi) = g.pick(&INTS[..3]);
            if dtype == DType::I16 {
                (dtype, lo, hi) = (DType::U8, 0, 255);
            }
        }
        if op == "ReduceSum" && !matches!(dtype, DType::U32 | DType::U64) {
            // ONNX's ReduceSum takes no 8- or 16-bit integers.
            (dtype, lo, hi) = g.pick(&INTS[4..]);
        }
        if matches!(op, "ReduceMax" | "ReduceMin") && matches!(dtype, DType::I16 | DType::U16) {
            // ONNX's ReduceMax and ReduceMin take no 16-bit integers.
            (dtype, lo, hi) = (DType::U8, 0, 255);
        }
        let name = dtype.name();
        match op {
            "MaxPool" => {
                let (n, c) = (g.size(1, 2), g.size(1, 3));
                let (h, w) = (g.size(2, 7), g.size(2, 7));
                let (kh, kw) = (g.size(1, 3.min(h)), g.size(1, 3.min(w)));
                let (s0, s1) = (g.size(1, 2), g.size(1, 2));
                let (p0, p1) = (g.size(0, kh - 1), g.size(0, kw - 1));
                let oh = (h + 2 * p0 - kh) / s0 + 1;
                let ow = (w + 2 * p1 - kw) / s1 + 1;
                let k = batch.case(format!(
                    "MaxPool {name} [{n},{c},{h},{w}] kernel {kh}x{kw} strides {s0},{s1} pads {p0},{p1}"
                ));
                let x = k.arg(values(&mut g, dtype, &[n, c, h, w], lo, hi));
                let props = format!(
                    "kernel_shape = {}, pads = {}, strides = {}",
                    i64_array(&[kh as i64, kw as i64]),
                    i64_array(&[p0 as i64, p1 as i64, p0 as i64, p1 as i64]),
                    i64_array(&[s0 as i64, s1 as i64])
                );
                let out = [n, c, oh, ow];
                let ys = k.op(
                    "graph.MaxPool",
                    &[x],
                    &props,
                    &[&ty(&out, name), &ty(&out, "i64")],
                );
                k.output(ys[0], Tol::Exact);
            }
            "ReduceMax" | "ReduceMin" | "ReduceSum" | "ArgMax" | "ArgMin" => {
                let rank = g.size(1, 3);
                let shape = g.shape(rank, 1, 5);
                let axis = g.size(0, rank - 1);
                let mut out = shape.clone();
                out[axis] = 1;
                let k = batch.case(format!("{op} {name} {shape:?} axis {axis}"));
                let x = k.arg(values(&mut g, dtype, &shape, lo, hi));
                let y = if op.starts_with("Arg") {
                    let last = g.size(0, 1);
                    k.op1(
                        &format!("graph.{op}"),
                        &[x],
                        &format!("axis = {axis} : i64, select_last_index = {last} : i64"),
                        &ty(&out, "i64"),
                    )
                } else {
                    let axes =
                        k.constant(&Tensor::from_vec(vec![1], vec![axis as i64]).expect("axes"));
                    k.op1(&format!("graph.{op}"), &[x, axes], "", &ty(&out, name))
                };
                k.output(y, Tol::Exact);
            }
            "TopK" => {
                let shape = g.shape(2, 1, 6);
                let axis = g.size(0, 1);
                let kk = g.size(1, shape[axis]);
                let largest = g.size(0, 1);
                let mut out = shape.clone();
                out[axis] = kk;
                let k = batch.case(format!(
                    "TopK {name} {shape:?} axis {axis} k {kk} largest {largest}"
                ));
                let x = k.arg(values(&mut g, dtype, &shape, lo, hi));
                let kv = k.constant(&Tensor::from_vec(vec![1], vec![kk as i64]).expect("k"));
                let ys = k.op(
                    "graph.TopK",
                    &[x, kv],
                    &format!("axis = {axis} : i64, largest = {largest} : i64"),
                    &[&ty(&out, name), &ty(&out, "i64")],
                );
                k.output(ys[0], Tol::Exact);
                k.output(ys[1], Tol::Exact);
            }
            "Transpose" => {
                let shape = g.shape(3, 1, 4);
                let perm = g.permutation(3);
                let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
                let k = batch.case(format!("Transpose {name} {shape:?} {perm:?}"));
                let x = k.arg(values(&mut g, dtype, &shape, lo, hi));
                let p: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
                let y = k.op1(
                    "graph.Transpose",
                    &[x],
                    &format!("perm = {}", i64_array(&p)),
                    &ty(&out, name),
                );
                k.output(y, Tol::Exact);
            }
            "Concat" => {
                let (a0, a1, b) = (g.size(1, 3), g.size(1, 3), g.size(1, 4));
                let k = batch.case(format!("Concat {name} [{a0},{b}] [{a1},{b}]"));
                let x = k.arg(values(&mut g, dtype, &[a0, b], lo, hi));
                let y = k.arg(values(&mut g, dtype, &[a1, b], lo, hi));
                let r = k.op1(
                    "graph.Concat",
                    &[x, y],
                    "axis = 0 : i64",
                    &ty(&[a0 + a1, b], name),
                );
                k.output(r, Tol::Exact);
            }
            _ => {
                let (a, b) = (g.size(1, 4), g.size(1, 4));
                let k = batch.case(format!("Reshape {name} [{a},{b}] -> [{}]", a * b));
                let x = k.arg(values(&mut g, dtype, &[a, b], lo, hi));
                let s =
                    k.constant(&Tensor::from_vec(vec![1], vec![(a * b) as i64]).expect("shape"));
                let y = k.op1("graph.Reshape", &[x, s], "", &ty(&[a * b], name));
                k.output(y, Tol::Exact);
            }
        }
    }
    batch.check();
}

/// A constant zero point tensor of `dtype` and `shape` (rank 0 for a scalar) drawn in its
/// range.
fn zero_points(g: &mut Gen, dtype: DType, shape: &[usize]) -> Tensor {
    let (lo, hi) = match dtype {
        DType::U8 => (0, 255),
        DType::I8 => (-128, 127),
        DType::U16 => (0, 65535),
        DType::I16 => (-32768, 32767),
        _ => (-1000, 1000),
    };
    g.tensor_int(dtype, shape, lo, hi)
}

/// Positive scales: random ones, and powers of two, which make exact halves (ties) common.
fn scales(g: &mut Gen, n: usize, scalar: bool) -> Tensor {
    let v: Vec<f32> = (0..n)
        .map(|_| {
            if g.chance(1, 2) {
                f32::powi(2.0, g.int(-4, 1) as i32)
            } else {
                g.f32(0.001, 0.5)
            }
        })
        .collect();
    let shape = if scalar { vec![] } else { vec![n] };
    Tensor::from_vec(shape, v).expect("scales")
}

/// `t` as a constant, or a third of the time as an argument (a parameter known only at run
/// time).
fn param(g: &mut Gen, k: &mut Case, t: Tensor) -> Val {
    if g.chance(1, 3) {
        k.arg(t)
    } else {
        k.constant(&t)
    }
}

#[test]
fn quantize_and_dequantize_linear() {
    let seed = seed("quantize_and_dequantize_linear");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("quantize_and_dequantize_linear", seed);
    for _ in 0..cases(40) {
        let rank = g.size(1, 4);
        let shape = g.shape(rank, 1, 5);
        let per_axis = g.chance(1, 2);
        let axis = g.size(0, rank - 1);
        let n = if per_axis { shape[axis] } else { 1 };
        let scalar = !per_axis && g.chance(1, 2);
        let zshape: Vec<usize> = if scalar { vec![] } else { vec![n] };
        let s = scales(&mut g, n, scalar);
        let props = format!("axis = {axis} : i64");
        if g.chance(1, 2) {
            let out = g.pick(&[DType::U8, DType::I8, DType::U16, DType::I16]);
            let with_zp = g.chance(3, 4) || out != DType::U8;
            let k = batch.case(format!(
                "QuantizeLinear {shape:?} -> {} per_axis {per_axis} axis {axis} zero point {with_zp}",
                out.name()
            ));
            // Values on multiples of half the smallest scale (ties) half of the time, and
            // some far out of range (saturation).
            let smin = s.to_f32_vec().expect("f32").into_iter().fold(1.0, f32::min);
            let len: usize = shape.iter().product();
            let x: Vec<f32> = (0..len)
                .map(|_| {
                    if g.chance(1, 2) {
                        g.int(-600, 600) as f32 * smin / 2.0
                    } else {
                        g.f32(-300.0, 300.0)
                    }
                })
                .collect();
            let x = k.arg(Tensor::from_vec(shape.clone(), x).expect("x"));
            let sv = param(&mut g, k, s);
            let mut ins = vec![x, sv];
            if with_zp {
                let z = zero_points(&mut g, out, &zshape);
                ins.push(param(&mut g, k, z));
            } else {
                ins.push(k.none());
            }
            let y = k.op1(
                "graph.QuantizeLinear",
                &ins,
                &props,
                &ty(&shape, out.name()),
            );
            k.output(y, Tol::Exact);
        } else {
            let input = g.pick(&[DType::U8, DType::I8, DType::U16, DType::I16, DType::I32]);
            let with_zp = g.chance(3, 4);
            let k = batch.case(format!(
                "DequantizeLinear {shape:?} of {} per_axis {per_axis} axis {axis} zero point {with_zp}",
                input.name()
            ));
            let x = k.arg(zero_points(&mut g, input, &shape));
            let sv = param(&mut g, k, s);
            let mut ins = vec![x, sv];
            if with_zp {
                let z = zero_points(&mut g, input, &zshape);
                ins.push(param(&mut g, k, z));
            } else {
                ins.push(k.none());
            }
            let y = k.op1("graph.DequantizeLinear", &ins, &props, &ty(&shape, "f32"));
            k.output(y, Tol::Exact);
        }
    }
    batch.check();
}

#[test]
fn dynamic_quantize_linear() {
    let seed = seed("dynamic_quantize_linear");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("dynamic_quantize_linear", seed);
    for i in 0..cases(16) {
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 6);
        // Mixed signs, all positive, all negative, and all zero (a zero scale).
        let (lo, hi) = match i % 4 {
            0 => (-3.0, 5.0),
            1 => (0.5, 9.0),
            2 => (-7.0, -0.25),
            _ => (0.0, 0.0),
        };
        let k = batch.case(format!(
            "DynamicQuantizeLinear {shape:?} in [{}, {}]",
            f32_literal(lo),
            f32_literal(hi)
        ));
        let x = k.arg(g.tensor_f32(&shape, lo, hi));
        let ys = k.op(
            "graph.DynamicQuantizeLinear",
            &[x],
            "",
            &[&ty(&shape, "ui8"), "tensor<f32>", "tensor<ui8>"],
        );
        for y in ys {
            k.output(y, Tol::Exact);
        }
    }
    batch.check();
}

#[test]
fn integer_and_qlinear_matmul() {
    let seed = seed("integer_and_qlinear_matmul");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("integer_and_qlinear_matmul", seed);
    for _ in 0..cases(24) {
        let (m, kd, n) = (g.size(1, 5), g.size(1, 9), g.size(1, 5));
        let nb = g.size(0, 2);
        let bd = g.shape(nb, 1, 3);
        let side = |g: &mut Gen| -> Vec<usize> {
            let keep = g.size(0, bd.len());
            bd[bd.len() - keep..]
                .iter()
                .map(|&d| if g.chance(1, 3) { 1 } else { d })
                .collect()
        };
        let (ba, bb) = (side(&mut g), side(&mut g));
        let r = ba.len().max(bb.len());
        let mut out: Vec<usize> = (0..r)
            .map(|i| {
                let get = |v: &[usize]| (i + v.len()).checked_sub(r).map_or(1, |j| v[j]);
                get(&ba).max(get(&bb))
            })
            .collect();
        out.extend([m, n]);
        let sa = [ba.clone(), vec![m, kd]].concat();
        let sb = [bb.clone(), vec![kd, n]].concat();
        let (ta, tb) = (
            g.pick(&[DType::U8, DType::I8]),
            g.pick(&[DType::U8, DType::I8]),
        );
        let row_zp = g.chance(1, 2);
        let col_zp = g.chance(1, 2);
        let qlinear = g.chance(1, 2);
        let kc = batch.case(format!(
            "{} {sa:?} {} x {sb:?} {} -> {out:?}, per-row {row_zp}, per-column {col_zp}",
            if qlinear {
                "QLinearMatMul"
            } else {
                "MatMulInteger"
            },
            ta.name(),
            tb.name()
        ));
        let a = kc.arg(zero_points(&mut g, ta, &sa));
        let b = kc.arg(zero_points(&mut g, tb, &sb));
        let za_shape: Vec<usize> = if row_zp { vec![m] } else { vec![] };
        let zb_shape: Vec<usize> = if col_zp { vec![n] } else { vec![] };
        let za = zero_points(&mut g, ta, &za_shape);
        let zb = zero_points(&mut g, tb, &zb_shape);
        let (za, zb) = (param(&mut g, kc, za), param(&mut g, kc, zb));
        let y = if qlinear {
            let sa = scales(&mut g, if row_zp { m } else { 1 }, !row_zp);
            let sa = param(&mut g, kc, sa);
            let sb = scales(&mut g, if col_zp { n } else { 1 }, !col_zp);
            let sb = param(&mut g, kc, sb);
            let sy = Tensor::scalar(g.f32(0.01, 0.3));
            let sy = param(&mut g, kc, sy);
            let ty_out = g.pick(&[DType::U8, DType::I8]);
            let zy = zero_points(&mut g, ty_out, &[]);
            let zy = param(&mut g, kc, zy);
            kc.op1(
                "graph.QLinearMatMul",
                &[a, sa, za, b, sb, zb, sy, zy],
                "",
                &ty(&out, ty_out.name()),
            )
        } else {
            kc.op1("graph.MatMulInteger", &[a, b, za, zb], "", &ty(&out, "i32"))
        };
        kc.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn integer_and_qlinear_conv() {
    let seed = seed("integer_and_qlinear_conv");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("integer_and_qlinear_conv", seed);
    for _ in 0..cases(24) {
        let group = g.pick(&[1usize, 1, 2, 3]);
        let (n, cg, fg) = (g.size(1, 2), g.size(1, 3), g.size(1, 3));
        let (c, f) = (cg * group, fg * group);
        let (h, w) = (g.size(3, 8), g.size(3, 8));
        let (kh, kw) = (g.size(1, 3), g.size(1, 3));
        let (s0, s1) = (g.size(1, 2), g.size(1, 2));
        let (d0, d1) = (g.size(1, 2), g.size(1, 2));
        let pads = [g.size(0, 2), g.size(0, 2), g.size(0, 2), g.size(0, 2)];
        let eff = |k: usize, d: usize| d * (k - 1) + 1;
        let (sh, sw) = (h + pads[0] + pads[2], w + pads[1] + pads[3]);
        if sh < eff(kh, d0) || sw < eff(kw, d1) {
            continue;
        }
        let oh = (sh - eff(kh, d0)) / s0 + 1;
        let ow = (sw - eff(kw, d1)) / s1 + 1;
        let (tx, tw) = (
            g.pick(&[DType::U8, DType::I8]),
            g.pick(&[DType::U8, DType::I8]),
        );
        let per_channel = g.chance(1, 2);
        let qlinear = g.chance(1, 2);
        let out = [n, f, oh, ow];
        let kc =
            batch.case(format!(
            "{} x [{n},{c},{h},{w}] {} w [{f},{cg},{kh},{kw}] {} group {group} strides {s0},{s1} \
             dilations {d0},{d1} pads {pads:?} per-channel {per_channel}",
            if qlinear { "QLinearConv" } else { "ConvInteger" },
            tx.name(),
            tw.name()
        ));
        let x = kc.arg(zero_points(&mut g, tx, &[n, c, h, w]));
        let wt = kc.constant(&zero_points(&mut g, tw, &[f, cg, kh, kw]));
        // A zero point known only at run time cannot be the padding value.
        let zx = zero_points(&mut g, tx, &[]);
        let zx = if pads == [0; 4] {
            param(&mut g, kc, zx)
        } else {
            kc.constant(&zx)
        };
        let zw_shape: Vec<usize> = if per_channel { vec![f] } else { vec![] };
        let zw = zero_points(&mut g, tw, &zw_shape);
        let zw = param(&mut g, kc, zw);
        let props = format!(
            "dilations = {}, group = {group} : i64, kernel_shape = {}, pads = {}, strides = {}",
            i64_array(&[d0 as i64, d1 as i64]),
            i64_array(&[kh as i64, kw as i64]),
            i64_array(&pads.map(|p| p as i64)),
            i64_array(&[s0 as i64, s1 as i64])
        );
        let y = if qlinear {
            let sx = scales(&mut g, 1, true);
            let sx = param(&mut g, kc, sx);
            let sw = scales(&mut g, if per_channel { f } else { 1 }, !per_channel);
            let sw = param(&mut g, kc, sw);
            let sy = Tensor::scalar(g.f32(0.05, 2.0));
            let sy = param(&mut g, kc, sy);
            let ty_out = g.pick(&[DType::U8, DType::I8]);
            let zy = zero_points(&mut g, ty_out, &[]);
            let zy = param(&mut g, kc, zy);
            let mut ins = vec![x, sx, zx, wt, sw, zw, sy, zy];
            if g.chance(1, 2) {
                ins.push(kc.arg(g.tensor_int(DType::I32, &[f], -5000, 5000)));
            } else {
                ins.push(kc.none());
            }
            kc.op1("graph.QLinearConv", &ins, &props, &ty(&out, ty_out.name()))
        } else {
            kc.op1(
                "graph.ConvInteger",
                &[x, wt, zx, zw],
                &props,
                &ty(&out, "i32"),
            )
        };
        kc.output(y, Tol::Exact);
    }
    batch.check();
}

/// A signed division by −1 wraps as the interpreter's `wrapping_div` does (the smallest value
/// divided by −1 is itself), instead of trapping in the generated code.
#[test]
fn signed_division_by_minus_one_wraps() {
    let mut batch = Batch::new("signed_division_by_minus_one_wraps", 0);
    for (dtype, min) in [
        (DType::I8, i128::from(i8::MIN)),
        (DType::I16, i128::from(i16::MIN)),
        (DType::I32, i128::from(i32::MIN)),
        (DType::I64, i128::from(i64::MIN)),
    ] {
        let name = dtype.name();
        let k = batch.case(format!("Div of {name} by -1"));
        let a = k.arg(
            Tensor::from_i128(dtype, vec![5], vec![min, min, 7, -7, min + 1]).expect("a tensor"),
        );
        let b =
            k.arg(Tensor::from_i128(dtype, vec![5], vec![-1, 1, -1, -1, -1]).expect("a tensor"));
        let y = k.op1("graph.Div", &[a, b], "", &ty(&[5], name));
        k.output(y, Tol::Exact);
    }
    batch.check();
}
