//! Lowerings of `LogSoftmax`, `Mod`, `Pad` in `reflect`/`edge`/`wrap` mode, `Resize` and
//! `ConvTranspose`.
//!
//! | graph ops | structured form |
//! |---|---|
//! | `LogSoftmax` | max, `exp(x - max)`, its sum, `max + log(sum)` and the difference `x - lse` as generics (two of them reductions) |
//! | `Mod` (`fmod` 0 or 1; floats, signed and unsigned integers) | a parallel `linalg.generic` with ONNX broadcasting: `arith.remf`/`remsi`/`remui`, then for `fmod = 0` the divisor added where the remainder's sign differs from the divisor's |
//! | `Pad` (`reflect`, `edge`, `wrap`) | a parallel `linalg.generic` over the result reading the input with `tensor.extract` at source coordinates taken from constant per-axis tables |
//! | `Resize` (`nearest`) | the same gather through per-axis tables of the nearest source index |
//! | `Resize` (`linear`, `cubic`, `antialias`) | one `linalg.generic` per resized axis, in axis order as the interpreter does: a reduction over the taps of constant index and weight tables, with the extrapolation value (`tf_crop_and_resize`) as the init |
//! | `ConvTranspose` (1-3 spatial dimensions) | the input with `stride - 1` zeros after each element (`expand_shape`, `tensor.pad`, `collapse_shape`), padded or cropped to the window reach, then a grouped `linalg.generic` correlating it with the flipped kernel; the bias is the init |
//!
//! Every table (source indices, tap weights) is computed at compile time from the static
//! shapes and the constant `pads`, `scales`, `sizes` and `roi`; an input computed at run time
//! is refused with the reason, and so the op falls back to another target.

use nart_dialect_arith::attrs::{cmpf as cmpf_pred, cmpi as cmpi_pred};
use nart_dialect_linalg::structured::{add, d, identity, map, mul_const};
use nart_dialect_linalg::IteratorType::{self, Parallel as P, Reduction as R};
use nart_ir::{AffineExpr, AttrData, DenseData, Location, Op, OperationState, PatternRewriter};
use nart_ir::{Type, Value};

use crate::emit::*;
use crate::graph_to_linalg::{
    float_attr, int_attr, ints_attr, norm_axis, operand, reduce_axis, result_type, string_attr,
    with_reduced,
};

// ----- LogSoftmax -----

/// `LogSoftmax(x, axis)`: `x - (max + log(sum(exp(x - max))))` along `axis`.
pub(crate) fn lower_log_softmax(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (s, elem) = result_type(rw, op)?;
    if !is_float(rw, elem) {
        return Err("expected a float tensor".to_string());
    }
    if s.is_empty() {
        return Err("LogSoftmax of a scalar is not lowered".to_string());
    }
    let x = operand(rw, op, 0)?;
    let axis = norm_axis(int_attr(rw, op, "axis", -1), s.len())?;
    let m = reduce_axis(rw, x, axis, f64::NEG_INFINITY, loc, |rw, acc, v| {
        Ok(ar(rw, "arith.maximumf", &[acc, v], elem, loc))
    })?;
    let e = with_reduced(rw, x, m, axis, loc, |rw, v, m| {
        let t = ar(rw, "arith.subf", &[v, m], elem, loc);
        math(rw, "math.exp", t, loc)
    })?;
    let sum = reduce_axis(rw, e, axis, 0.0, loc, |rw, acc, v| {
        Ok(ar(rw, "arith.addf", &[acc, v], elem, loc))
    })?;
    let (rs, _) = static_type(rw, m)?;
    let lse = elementwise(rw, &[m, sum], &rs, elem, loc, |rw, a| {
        let l = math(rw, "math.log", a[1], loc)?;
        Ok(ar(rw, "arith.addf", &[a[0], l], elem, loc))
    })?;
    let y = with_reduced(rw, x, lse, axis, loc, |rw, v, l| {
        Ok(ar(rw, "arith.subf", &[v, l], elem, loc))
    })?;
    Ok(vec![y])
}

// ----- Mod -----

/// `Mod(a, b)`: the remainder with the dividend's sign (`fmod = 1`, C `fmod`) or the
/// divisor's (`fmod = 0`, Python `%`). For integers a divisor of 0 or -1 is replaced by 1 (the
/// remainder by -1 is 0 anyway), so the code never traps; the interpreter reports a division
/// by zero instead.
pub(crate) fn lower_mod(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let fmod = int_attr(rw, op, "fmod", 0) != 0;
    let float = is_float(rw, elem);
    if !float && signless_width(rw, elem).is_none_or(|w| w < 8) {
        return Err("Mod is lowered for floats and signless integers only".to_string());
    }
    let inputs = rw.operands(op).to_vec();
    if inputs.len() != 2 {
        return Err("expected two operands".to_string());
    }
    let i1 = rw.uniq().int_type(1);
    let unsigned = crate::intq_ops::result_unsigned(rw, op, 0);
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, v| {
        let (a, b) = (v[0], v[1]);
        let zero = scalar(rw, 0.0, elem, loc);
        if unsigned {
            // Both signs are positive: the remainder is the same for both rules.
            let one = scalar(rw, 1.0, elem, loc);
            let is_zero = cmpi(rw, cmpi_pred::EQ, b, zero, loc);
            let safe = ar(rw, "arith.select", &[is_zero, one, b], elem, loc);
            return Ok(ar(rw, "arith.remui", &[a, safe], elem, loc));
        }
        let (r, b) = if float {
            (ar(rw, "arith.remf", &[a, b], elem, loc), b)
        } else {
            let one = scalar(rw, 1.0, elem, loc);
            let minus_one = scalar(rw, -1.0, elem, loc);
            let is_zero = cmpi(rw, cmpi_pred::EQ, b, zero, loc);
            let is_m1 = cmpi(rw, cmpi_pred::EQ, b, minus_one, loc);
            let bad = ar(rw, "arith.ori", &[is_zero, is_m1], i1, loc);
            let safe = ar(rw, "arith.select", &[bad, one, b], elem, loc);
            (ar(rw, "arith.remsi", &[a, safe], elem, loc), safe)
        };
        if fmod {
            return Ok(r);
        }
        // Python's sign rule: r + b where r is not 0 and its sign differs from b's.
        let (nonzero, r_neg, b_neg) = if float {
            (
                cmpf(rw, cmpf_pred::ONE, r, zero, loc),
                cmpf(rw, cmpf_pred::OLT, r, zero, loc),
                cmpf(rw, cmpf_pred::OLT, b, zero, loc),
            )
        } else {
            (
                cmpi(rw, cmpi_pred::NE, r, zero, loc),
                cmpi(rw, cmpi_pred::SLT, r, zero, loc),
                cmpi(rw, cmpi_pred::SLT, b, zero, loc),
            )
        };
        let differ = ar(rw, "arith.xori", &[r_neg, b_neg], i1, loc);
        let fix = ar(rw, "arith.andi", &[nonzero, differ], i1, loc);
        let addop = if float { "arith.addf" } else { "arith.addi" };
        let rb = ar(rw, addop, &[r, b], elem, loc);
        Ok(ar(rw, "arith.select", &[fix, rb, r], elem, loc))
    })?;
    Ok(vec![v])
}

// ----- gathers through per-axis tables -----

/// `arith.constant dense<vals> : tensor<shape x i64>`.
fn const_i64_tensor(
    rw: &mut PatternRewriter<'_>,
    shape: &[i64],
    vals: &[i64],
    loc: Location,
) -> Value {
    let i64t = rw.uniq().int_type(64);
    let ty = rw.uniq().tensor_type(shape.to_vec(), i64t);
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let a = rw.uniq().intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    constant_of(rw, a, ty, loc)
}

/// `tensor.extract x[coords]`.
fn extract(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    coords: &[Value],
    elem: Type,
    loc: Location,
) -> Value {
    let mut operands = vec![x];
    operands.extend_from_slice(coords);
    let st = OperationState::new(rw.uniq(), "tensor.extract", loc)
        .operands(&operands)
        .results(&[elem]);
    let e = rw.create(st);
    rw.result(e, 0)
}

/// `y[i_0, .., i_r] = x[t_0[i_0], .., t_r[i_r]]` into a tensor of shape `out`: each axis reads
/// the input at the index its table gives (`None`: the output index itself), one parallel
/// `linalg.generic` with the tables as constant inputs.
fn gather_by_tables(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    tables: &[Option<Vec<i64>>],
    out: &[i64],
    loc: Location,
) -> Result<Value, String> {
    let (sx, elem) = static_type(rw, x)?;
    let r = out.len();
    if tables.iter().all(Option::is_none) && sx == out {
        return Ok(x);
    }
    let n = r as u32;
    let mut inputs = Vec::new();
    let mut maps = Vec::new();
    for (a, t) in tables.iter().enumerate() {
        if let Some(t) = t {
            inputs.push(const_i64_tensor(rw, &[out[a]], t, loc));
            maps.push(map(n, vec![d(a as u32)]));
        }
    }
    maps.push(identity(n));
    let init = empty(rw, out, elem, loc);
    let y = try_generic(rw, &inputs, &[init], maps, &vec![P; r], loc, |rw, v| {
        let index = rw.uniq().index_type();
        let mut coords = Vec::new();
        let mut next = 0;
        for (a, t) in tables.iter().enumerate() {
            if t.is_some() {
                coords.push(ar(rw, "arith.index_cast", &[v[next]], index, loc));
                next += 1;
            } else {
                coords.push(linalg_index(rw, a, loc));
            }
        }
        Ok(vec![extract(rw, x, &coords, elem, loc)])
    })?;
    Ok(y[0])
}

// ----- Pad (reflect, edge, wrap) -----

/// The source index of position `c` (relative to the input's start) in an axis of `n`
/// elements padded in `mode`.
fn pad_source(mode: &str, c: i64, n: i64) -> i64 {
    if (0..n).contains(&c) {
        return c;
    }
    match mode {
        "edge" => c.clamp(0, n - 1),
        "wrap" => c.rem_euclid(n),
        // reflect: mirror without repeating the edge, with period 2 (n - 1).
        _ if n == 1 => 0,
        _ => {
            let p = 2 * (n - 1);
            let m = c.rem_euclid(p);
            if m < n {
                m
            } else {
                p - m
            }
        }
    }
}

/// `Pad(x, pads, constant_value?, axes?)` in `reflect`, `edge` or `wrap` mode with constant
/// pads and axes; negative pads crop.
pub(crate) fn lower_pad_mode(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
    mode: &str,
) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    let (out, _) = result_type(rw, op)?;
    let r = sx.len();
    let (low, high) = crate::indexing::pad_amounts(rw, op, &sx, &out)?;
    let mut tables = Vec::new();
    for a in 0..r {
        if low[a] == 0 && high[a] == 0 {
            tables.push(None);
            continue;
        }
        if sx[a] == 0 && out[a] > 0 {
            return Err(format!("cannot {mode} pad the empty axis {a}"));
        }
        tables.push(Some(
            (0..out[a])
                .map(|j| pad_source(mode, j - low[a], sx[a]))
                .collect(),
        ));
    }
    Ok(vec![gather_by_tables(rw, x, &tables, &out, loc)?])
}

// ----- Resize -----

/// The string attribute `name`, or `default`.
fn text_attr(rw: &PatternRewriter<'_>, op: Op, name: &str, default: &str) -> String {
    string_attr(rw, op, name).unwrap_or(default).to_string()
}

/// The attributes of a `Resize` that decide its taps.
struct ResizeSpec {
    mode: String,
    coord: String,
    nearest: String,
    cubic_a: f64,
    exclude_outside: bool,
    antialias: bool,
}

/// The taps `(source index, weight)` of one output position, or `None` for the extrapolation
/// value.
type Taps = Option<Vec<(i64, f64)>>;

/// The cubic convolution kernel (Keys, with parameter `a`) at distance `x`.
fn keys_kernel(x: f64, a: f64) -> f64 {
    let x = x.abs();
    if x <= 1.0 {
        ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    } else if x < 2.0 {
        ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    } else {
        0.0
    }
}

/// The source coordinate of output position `x` along an axis of `len_in` elements scaled by
/// `scale` (the interpreter's formulas, which use the real-valued output length).
fn source_coord(
    coord: &str,
    x: f64,
    len_in: f64,
    len_out: f64,
    scale: f64,
    roi: (f64, f64),
) -> f64 {
    let lo = scale * len_in;
    match coord {
        "half_pixel_symmetric" => {
            let adjustment = len_out / lo;
            let offset = len_in / 2.0 * (1.0 - adjustment);
            offset + (x + 0.5) / scale - 0.5
        }
        "pytorch_half_pixel" if lo == 1.0 => 0.0,
        "align_corners" if lo == 1.0 => 0.0,
        "align_corners" => x * (len_in - 1.0) / (lo - 1.0),
        "asymmetric" => x / scale,
        "tf_crop_and_resize" if lo == 1.0 => 0.5 * (roi.0 + roi.1) * (len_in - 1.0),
        "tf_crop_and_resize" => {
            roi.0 * (len_in - 1.0) + x * (roi.1 - roi.0) * (len_in - 1.0) / (lo - 1.0)
        }
        // half_pixel and pytorch_half_pixel
        _ => (x + 0.5) / scale - 0.5,
    }
}

/// The taps of every output position of one axis.
fn axis_taps(s: &ResizeSpec, len_in: i64, len_out: i64, scale: f64, roi: (f64, f64)) -> Vec<Taps> {
    let li = len_in as f64;
    let clamp = |i: i64| i.clamp(0, len_in - 1);
    (0..len_out)
        .map(|x| {
            let orig = source_coord(&s.coord, x as f64, li, len_out as f64, scale, roi);
            if s.coord == "tf_crop_and_resize" && (orig < 0.0 || orig > li - 1.0) {
                return None;
            }
            if s.mode == "nearest" {
                let fl = orig.floor();
                let frac = orig - fl;
                let r = match s.nearest.as_str() {
                    "round_prefer_ceil" if frac >= 0.5 => fl + 1.0,
                    "round_prefer_ceil" => fl,
                    "floor" => fl,
                    "ceil" => orig.ceil(),
                    _ if frac > 0.5 => fl + 1.0,
                    _ => fl,
                };
                return Some(vec![(clamp(r as i64), 1.0)]);
            }
            let fl = orig.floor() as i64;
            // An integral coordinate counts as ratio 1 from the tap before, as in the
            // reference.
            let ratio = if orig.fract() == 0.0 {
                1.0
            } else {
                orig - fl as f64
            };
            let cubic = s.mode == "cubic";
            let (first, coeffs): (i64, Vec<f64>) = if s.antialias && scale < 1.0 {
                let support = if cubic { 2.0 } else { 1.0 };
                let start = (-support / scale).floor() as i64 + 1;
                let c: Vec<f64> = (start..2 - start)
                    .map(|k| {
                        let t = (k as f64 - ratio) * scale;
                        if cubic {
                            keys_kernel(t, s.cubic_a)
                        } else {
                            (1.0 - t.abs()).clamp(0.0, 1.0)
                        }
                    })
                    .collect();
                let total: f64 = c.iter().sum();
                let c: Vec<f64> = c.into_iter().map(|v| v / total).collect();
                let half = c.len() as i64 / 2;
                let shift = if ratio == 1.0 { 0 } else { 1 };
                (fl - half + shift, c)
            } else if cubic {
                let base = if ratio == 1.0 { fl - 2 } else { fl - 1 };
                let c = (0..4)
                    .map(|k| keys_kernel(ratio + 1.0 - k as f64, s.cubic_a))
                    .collect();
                (base, c)
            } else {
                let base = if ratio == 1.0 { fl - 1 } else { fl };
                (base, vec![1.0 - ratio, ratio])
            };
            let mut taps: Vec<(i64, f64)> = coeffs
                .iter()
                .enumerate()
                .map(|(k, &c)| (first + k as i64, c))
                .collect();
            if s.exclude_outside {
                for t in &mut taps {
                    if t.0 < 0 || t.0 >= len_in {
                        t.1 = 0.0;
                    }
                }
                let total: f64 = taps.iter().map(|t| t.1).sum();
                if total != 0.0 {
                    taps.iter_mut().for_each(|t| t.1 /= total);
                }
            }
            Some(taps.into_iter().map(|(i, c)| (clamp(i), c)).collect())
        })
        .collect()
}

/// The values of a constant input, `None` when absent or empty; an error when computed at run
/// time.
fn const_input<T>(
    rw: &PatternRewriter<'_>,
    op: Op,
    i: usize,
    what: &str,
    read: impl Fn(&nart_ir::Context, Value) -> Option<Vec<T>>,
) -> Result<Option<Vec<T>>, String> {
    let Some(v) = optional_operand(rw, op, i) else {
        return Ok(None);
    };
    if static_type(rw, v).is_ok_and(|(s, _)| s.iter().product::<i64>() == 0) {
        return Ok(None);
    }
    match read(rw, v) {
        Some(vals) if vals.is_empty() => Ok(None),
        Some(vals) => Ok(Some(vals)),
        None => Err(format!(
            "the {what} are computed at run time; only constant {what} are lowered"
        )),
    }
}

/// `y[.., j, ..] = bias[j] + sum_t w[j, t] * x[.., idx[j, t], ..]` along `axis`: one
/// `linalg.generic` over the result and the taps (a reduction).
fn interpolate_axis(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    axis: usize,
    taps: &[Taps],
    extrapolation: f64,
    loc: Location,
) -> Result<Value, String> {
    let (sx, elem) = static_type(rw, x)?;
    let lo = taps.len() as i64;
    let t = taps
        .iter()
        .map(|t| t.as_ref().map_or(0, Vec::len))
        .max()
        .unwrap_or(0)
        .max(1);
    let mut idx = Vec::new();
    let mut w = Vec::new();
    let mut bias = Vec::new();
    for tp in taps {
        let tp = tp.as_deref().unwrap_or(&[]);
        for k in 0..t {
            let (i, c) = tp.get(k).copied().unwrap_or((0, 0.0));
            idx.push(i);
            w.push(c as f32);
        }
        bias.push(if tp.is_empty() {
            extrapolation as f32
        } else {
            0.0
        });
    }
    let mut out = sx.clone();
    out[axis] = lo;
    let r = out.len();
    let n = r as u32;
    let init = if bias.iter().all(|&b| b == 0.0) {
        filled(rw, 0.0, &out, elem, loc)
    } else {
        let b = const_f32_tensor(rw, &[lo], &bias, loc);
        let e = empty(rw, &out, elem, loc);
        let v = try_generic(
            rw,
            &[b],
            &[e],
            vec![map(n, vec![d(axis as u32)]), identity(n)],
            &vec![P; r],
            loc,
            |_, a| Ok(vec![a[0]]),
        )?;
        v[0]
    };
    let idx_t = const_i64_tensor(rw, &[lo, t as i64], &idx, loc);
    let w_t = const_f32_tensor(rw, &[lo, t as i64], &w, loc);
    let tap_map = map(n + 1, vec![d(axis as u32), d(n)]);
    let out_map = map(n + 1, (0..n).map(d).collect());
    let mut iters: Vec<IteratorType> = vec![P; r];
    iters.push(R);
    let y = try_generic(
        rw,
        &[idx_t, w_t],
        &[init],
        vec![tap_map.clone(), tap_map, out_map],
        &iters,
        loc,
        |rw, v| {
            let index = rw.uniq().index_type();
            let coords: Vec<Value> = (0..r)
                .map(|k| {
                    if k == axis {
                        ar(rw, "arith.index_cast", &[v[0]], index, loc)
                    } else {
                        linalg_index(rw, k, loc)
                    }
                })
                .collect();
            let e = extract(rw, x, &coords, elem, loc);
            let m = ar(rw, "arith.mulf", &[v[1], e], elem, loc);
            Ok(vec![ar(rw, "arith.addf", &[v[2], m], elem, loc)])
        },
    )?;
    Ok(y[0])
}

/// `Resize(x, roi?, scales?, sizes?)` with constant scales or sizes (and roi).
pub(crate) fn lower_resize(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, elem) = static_type(rw, x)?;
    let (out_ty, _) = result_type(rw, op)?;
    let r = sx.len();
    let spec = ResizeSpec {
        mode: text_attr(rw, op, "mode", "nearest"),
        coord: text_attr(rw, op, "coordinate_transformation_mode", "half_pixel"),
        nearest: text_attr(rw, op, "nearest_mode", "round_prefer_floor"),
        cubic_a: float_attr(rw, op, "cubic_coeff_a", -0.75),
        exclude_outside: int_attr(rw, op, "exclude_outside", 0) != 0,
        antialias: int_attr(rw, op, "antialias", 0) != 0,
    };
    let known = |v: &str, all: &[&str]| all.contains(&v);
    if !known(&spec.mode, &["nearest", "linear", "cubic"]) {
        return Err(format!("mode = \"{}\" is not lowered", spec.mode));
    }
    let coords = [
        "half_pixel",
        "half_pixel_symmetric",
        "pytorch_half_pixel",
        "align_corners",
        "asymmetric",
        "tf_crop_and_resize",
    ];
    if !known(&spec.coord, &coords) {
        return Err(format!(
            "coordinate_transformation_mode = \"{}\" is not lowered",
            spec.coord
        ));
    }
    let nearest = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"];
    if !known(&spec.nearest, &nearest) {
        return Err(format!(
            "nearest_mode = \"{}\" is not lowered",
            spec.nearest
        ));
    }
    let policy = text_attr(rw, op, "keep_aspect_ratio_policy", "stretch");
    if !known(&policy, &["stretch", "not_larger", "not_smaller"]) {
        return Err(format!(
            "keep_aspect_ratio_policy = \"{policy}\" is not lowered"
        ));
    }
    if spec.mode != "nearest" && elem != rw.uniq().f32_type() {
        return Err(format!("{} Resize is lowered for f32 only", spec.mode));
    }
    let extrapolation = float_attr(rw, op, "extrapolation_value", 0.0);
    let axes: Vec<usize> = match ints_attr(rw, op, "axes").filter(|a| !a.is_empty()) {
        Some(a) => a
            .iter()
            .map(|&a| norm_axis(a, r))
            .collect::<Result<_, _>>()?,
        None => (0..r).collect(),
    };
    let roi = const_input(rw, op, 1, "roi", constant_f32)?;
    let scales_in = const_input(rw, op, 2, "scales", constant_f32)?;
    let sizes_in = const_input(rw, op, 3, "sizes", constant_ints)?;
    let mut scales = vec![1f64; r];
    let mut out = sx.clone();
    match (&scales_in, &sizes_in) {
        (_, Some(sz)) => {
            if sz.len() != axes.len() || sz.iter().any(|&v| v < 0) {
                return Err(format!("sizes {sz:?} for {} axes", axes.len()));
            }
            let ratios: Vec<f64> = axes
                .iter()
                .zip(sz)
                .map(|(&a, &v)| v as f64 / sx[a] as f64)
                .collect();
            let pick = match policy.as_str() {
                "not_larger" => Some(ratios.iter().copied().fold(f64::INFINITY, f64::min)),
                "not_smaller" => Some(ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
                _ => None,
            };
            for (k, &a) in axes.iter().enumerate() {
                match pick {
                    None => {
                        scales[a] = ratios[k];
                        out[a] = sz[k];
                    }
                    Some(p) => {
                        scales[a] = p;
                        out[a] = (sx[a] as f64 * p + 0.5).floor() as i64;
                    }
                }
            }
        }
        (Some(sc), None) => {
            if sc.len() != axes.len() || sc.iter().any(|&v| v.is_nan() || v <= 0.0) {
                return Err(format!("scales {sc:?} for {} axes", axes.len()));
            }
            for (k, &a) in axes.iter().enumerate() {
                scales[a] = f64::from(sc[k]);
                out[a] = (sx[a] as f64 * f64::from(sc[k])).floor() as i64;
            }
        }
        (None, None) => return Err("Resize needs scales or sizes".to_string()),
    }
    if out != out_ty {
        return Err(format!(
            "the result shape {out_ty:?} is not the resized {out:?}"
        ));
    }
    let mut roi_full = vec![(0f64, 1f64); r];
    if let Some(roi) = &roi {
        if roi.len() != 2 * axes.len() {
            return Err(format!("expected {} roi values", 2 * axes.len()));
        }
        for (k, &a) in axes.iter().enumerate() {
            roi_full[a] = (f64::from(roi[k]), f64::from(roi[axes.len() + k]));
        }
    }
    let skip = |a: usize| out[a] == sx[a] && scales[a] == 1.0 && spec.coord != "tf_crop_and_resize";
    if (0..r).any(|a| !skip(a) && sx[a] == 0) {
        return Err("cannot resize an empty axis".to_string());
    }
    let all_taps: Vec<Option<Vec<Taps>>> = (0..r)
        .map(|a| (!skip(a)).then(|| axis_taps(&spec, sx[a], out[a], scales[a], roi_full[a])))
        .collect();
    let extrapolates = all_taps.iter().flatten().flatten().any(Option::is_none);
    if spec.mode == "nearest" && !extrapolates {
        let tables: Vec<Option<Vec<i64>>> = all_taps
            .iter()
            .map(|t| {
                t.as_ref().map(|t| {
                    t.iter()
                        .map(|tp| tp.as_ref().map_or(0, |v| v[0].0))
                        .collect()
                })
            })
            .collect();
        return Ok(vec![gather_by_tables(rw, x, &tables, &out, loc)?]);
    }
    if elem != rw.uniq().f32_type() {
        return Err("an extrapolating Resize is lowered for f32 only".to_string());
    }
    let mut y = x;
    for (a, taps) in all_taps.iter().enumerate() {
        if let Some(taps) = taps {
            y = interpolate_axis(rw, y, a, taps, extrapolation, loc)?;
        }
    }
    Ok(vec![y])
}

// ----- ConvTranspose -----

/// `ConvTranspose(x, w, b?)` with `x: [N, C, D..]`, `w: [C, M / group, K..]` and 1 to 3
/// spatial dimensions: pads, strides, dilations, groups, `output_padding`, `output_shape` and
/// `auto_pad` resolved as the interpreter does.
pub(crate) fn lower_conv_transpose(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let w = operand(rw, op, 1)?;
    let bias = optional_operand(rw, op, 2);
    let (sx, elem) = static_type(rw, x)?;
    let (sw, _) = static_type(rw, w)?;
    let (out, _) = result_type(rw, op)?;
    if elem != rw.uniq().f32_type() {
        return Err("ConvTranspose is lowered for f32 only".to_string());
    }
    if sx.len() < 3 || sx.len() > 5 || sw.len() != sx.len() {
        return Err("only ConvTranspose with 1 to 3 spatial dimensions is lowered".to_string());
    }
    let nd = sx.len() - 2;
    let group = int_attr(rw, op, "group", 1);
    let (n, c) = (sx[0], sx[1]);
    if group <= 0 || sw[0] != c || c % group != 0 {
        return Err(format!("channels: x has {c}, w is {sw:?}, group {group}"));
    }
    let (cg, mg) = (c / group, sw[1]);
    let m = mg * group;
    let kernel = sw[2..].to_vec();
    if let Some(k) = ints_attr(rw, op, "kernel_shape") {
        if k != kernel {
            return Err(format!("kernel_shape {k:?} does not match w {sw:?}"));
        }
    }
    let per_dim = |name: &str, dflt: i64| -> Result<Vec<i64>, String> {
        match ints_attr(rw, op, name) {
            None => Ok(vec![dflt; nd]),
            Some(v) if v.is_empty() => Ok(vec![dflt; nd]),
            Some(v) if v.len() == nd => Ok(v),
            Some(_) => Err(format!("expected {nd} {name}")),
        }
    };
    let strides = per_dim("strides", 1)?;
    let dilations = per_dim("dilations", 1)?;
    let out_pad = per_dim("output_padding", 0)?;
    let pads = match ints_attr(rw, op, "pads") {
        None => vec![0; 2 * nd],
        Some(p) if p.is_empty() => vec![0; 2 * nd],
        Some(p) if p.len() == 2 * nd => p,
        Some(_) => return Err(format!("expected {} pads", 2 * nd)),
    };
    if strides.iter().chain(&dilations).any(|&v| v < 1) || out_pad.iter().any(|&v| v < 0) {
        return Err("strides and dilations must be positive".to_string());
    }
    let auto_pad = text_attr(rw, op, "auto_pad", "NOTSET");
    let want: Option<Vec<i64>> = match ints_attr(rw, op, "output_shape").filter(|v| !v.is_empty()) {
        Some(os) if os.len() == nd + 2 => Some(os[2..].to_vec()),
        Some(os) if os.len() == nd => Some(os),
        Some(_) => return Err(format!("expected {nd} output_shape values")),
        None if matches!(auto_pad.as_str(), "SAME_UPPER" | "SAME_LOWER") => {
            Some((0..nd).map(|i| sx[2 + i] * strides[i]).collect())
        }
        None => None,
    };
    if sx[2..].iter().chain(&kernel).any(|&v| v < 1) || n < 1 || m < 1 {
        return Err("ConvTranspose of an empty tensor is not lowered".to_string());
    }
    let mut begin = vec![0; nd];
    let mut size = vec![0; nd];
    for i in 0..nd {
        let reach = (kernel[i] - 1) * dilations[i] + 1;
        let full = strides[i] * (sx[2 + i] - 1) + out_pad[i] + reach;
        if let Some(want) = &want {
            let total = full - want[i];
            let half = total.div_euclid(2);
            begin[i] = if auto_pad == "SAME_UPPER" {
                half
            } else {
                total - half
            };
            if begin[i] < 0 {
                return Err(format!("output_shape {want:?} is too large for the input"));
            }
            size[i] = want[i];
        } else {
            let (b, e) = if auto_pad == "VALID" {
                (0, 0)
            } else {
                (pads[i], pads[nd + i])
            };
            begin[i] = b;
            size[i] = full - b - e;
        }
    }
    let mut expect = vec![n, m];
    expect.extend(&size);
    if expect != out {
        return Err(format!(
            "the result shape {out:?} is not the transposed convolution's {expect:?}"
        ));
    }
    // The input with stride - 1 zeros after each element: [N, C, D1, 1, D2, 1, ..] padded
    // high to [N, C, D1, s1, D2, s2, ..] and collapsed to [N, C, D1 * s1, D2 * s2, ..].
    let mut xz = x;
    if strides.iter().any(|&s| s > 1) {
        let mut split = vec![n, c];
        let mut high = vec![0, 0];
        let mut joined = vec![n, c];
        for i in 0..nd {
            split.extend([sx[2 + i], 1]);
            high.extend([0, strides[i] - 1]);
            joined.push(sx[2 + i] * strides[i]);
        }
        let e = reshape(rw, x, &split, loc)?;
        let p = pad(rw, e, &vec![0; split.len()], &high, 0.0, loc)?;
        xz = reshape(rw, p, &joined, loc)?;
    }
    // Pad (or crop) to what the windows reach: out + (K - 1) * dilation per dimension, the
    // first window starting (K - 1) * dilation - pad_begin before the first input element.
    let (szs, _) = static_type(rw, xz)?;
    let mut low = vec![0; nd + 2];
    let mut high = vec![0; nd + 2];
    let mut reach = vec![n, c];
    for i in 0..nd {
        let l = size[i] + (kernel[i] - 1) * dilations[i];
        low[2 + i] = (kernel[i] - 1) * dilations[i] - begin[i];
        high[2 + i] = l - low[2 + i] - szs[2 + i];
        reach.push(l);
    }
    let lo_pos: Vec<i64> = low.iter().map(|&p| p.max(0)).collect();
    let hi_pos: Vec<i64> = high.iter().map(|&p| p.max(0)).collect();
    let mut xp = pad(rw, xz, &lo_pos, &hi_pos, 0.0, loc)?;
    if low.iter().chain(&high).any(|&p| p < 0) {
        let start: Vec<i64> = low.iter().map(|&p| (-p).max(0)).collect();
        xp = crate::indexing::strided_copy(rw, xp, &start, &vec![1; nd + 2], &reach, loc)?;
    }
    // The grouped correlation with the flipped kernel over (n, g, f, o.., c, k..).
    let mut xg_shape = vec![n, group, cg];
    xg_shape.extend(&reach[2..]);
    let xg = reshape(rw, xp, &xg_shape, loc)?;
    let mut wg_shape = vec![group, cg, mg];
    wg_shape.extend(&kernel);
    let wg = reshape(rw, w, &wg_shape, loc)?;
    // The kernel flipped along each spatial dimension (K - 1 - k), so that the product
    // below reads every loop dimension plainly from some operand.
    let wr = wg_shape.len() as u32;
    let mut flip = vec![d(0), d(1), d(2)];
    for (i, &kd) in kernel.iter().enumerate() {
        let di = d(3 + i as u32);
        flip.push(add(mul_const(di, -1), AffineExpr::Const(kd - 1)));
    }
    let we = empty(rw, &wg_shape, elem, loc);
    let wf = try_generic(
        rw,
        &[wg],
        &[we],
        vec![map(wr, flip), identity(wr)],
        &vec![P; wg_shape.len()],
        loc,
        |_, a| Ok(vec![a[0]]),
    )?;
    let wf = wf[0];
    let init = match bias {
        Some(b) => {
            let (sb, _) = static_type(rw, b)?;
            if sb != [m] {
                return Err(format!("the bias {sb:?} is not [{m}]"));
            }
            let e = empty(rw, &out, elem, loc);
            let r = out.len() as u32;
            let v = try_generic(
                rw,
                &[b],
                &[e],
                vec![map(r, vec![d(1)]), identity(r)],
                &vec![P; out.len()],
                loc,
                |_, a| Ok(vec![a[0]]),
            )?;
            v[0]
        }
        None => filled(rw, 0.0, &out, elem, loc),
    };
    let mut og_shape = vec![n, group, mg];
    og_shape.extend(&size);
    let og = reshape(rw, init, &og_shape, loc)?;
    let nd32 = nd as u32;
    let loops = 4 + 2 * nd32;
    let (dn, dg, df) = (d(0), d(1), d(2));
    let o = |i: u32| d(3 + i);
    let dc = d(3 + nd32);
    let k = |i: u32| d(4 + nd32 + i);
    let mut x_map = vec![dn.clone(), dg.clone(), dc.clone()];
    let mut w_map = vec![dg.clone(), dc, df.clone()];
    let mut o_map = vec![dn, dg, df];
    for i in 0..nd32 {
        let iu = i as usize;
        x_map.push(add(o(i), mul_const(k(i), dilations[iu])));
        w_map.push(k(i));
        o_map.push(o(i));
    }
    let mut iters = vec![P; 3 + nd];
    iters.extend(vec![R; 1 + nd]);
    let y = try_generic(
        rw,
        &[xg, wf],
        &[og],
        vec![map(loops, x_map), map(loops, w_map), map(loops, o_map)],
        &iters,
        loc,
        |rw, a| {
            let p = ar(rw, "arith.mulf", &[a[0], a[1]], elem, loc);
            Ok(vec![ar(rw, "arith.addf", &[a[2], p], elem, loc)])
        },
    )?;
    Ok(vec![reshape(rw, y[0], &out, loc)?])
}
