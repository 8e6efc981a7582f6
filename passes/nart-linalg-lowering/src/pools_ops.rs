//! Pools on any number of spatial dimensions and MaxPool's `Indices`, integer `Pow`, boolean
//! `ReduceMax`/`ReduceMin`, reduction axes read from the static shapes, and training-mode
//! `BatchNormalization`. Each matches the interpreter (`nart-tensor`) exactly where the result
//! is an integer, and up to rounding where it is a float.
//!
//! | graph ops | structured form |
//! |---|---|
//! | `MaxPool` on 1-D or 3-D (any) spatial dimensions, of integers, or with `Indices` used | `tensor.pad` with the lowest value, then one `linalg.generic` over `(n, c, o.., k..)` whose body keeps the first in-bounds element (kernel raster order) and every strictly larger one, with its flattened index (`storage_order` 0 row-major, 1 column-major within the plane, plus `(n * C + c) * plane`); a window wholly in the padding gives the lowest value (0 for integers) at the plane's first index |
//! | `AveragePool` on 1-D or 3-D (any) spatial dimensions | `tensor.pad` with zeros, a summing `linalg.generic` over `(n, c, o.., k..)`, and a division by the window counts, worked out at compile time per dimension (`count_include_pad` counts the explicit pads, never the ceil-mode overhang) |
//! | `Pow` with an integer base and an integer exponent | square-and-multiply over the exponent's bits, wrapping at the base's width; a negative exponent gives `1` for base 1, `±1` for base -1, all ones for base 0 (the interpreter's `inf` saturated), else 0 |
//! | `Pow` with an integer base and a float exponent | `math.powf` in `f64`, truncated, then the interpreter's cast: saturated to 128 bits and wrapped to the base's width (NaN gives 0) |
//! | `ReduceMax`, `ReduceMin` of `i1` | `arith.ori` from false, `arith.andi` from true |
//! | `Reduce*` whose axes are an operand known only at run time | with `keepdims`, the reduced dimensions are those whose size changes; a dimension of size 1 is ambiguous, which only matters for `ReduceL1`, `ReduceL2`, `ReduceSumSquare` and `ReduceLogSum` (refused then) |
//! | `BatchNormalization` with `training_mode = 1` | the sum and the sum of squared deviations per channel (two reductions), `(x - mean) / sqrt(var + eps) * scale + B`, and the running statistics `input * momentum + batch * (1 - momentum)` |

use nart_dialect_arith::attrs::{cmpf as cmpf_pred, cmpi as cmpi_pred};
use nart_dialect_linalg::structured::{add, d, map, mul_const};
use nart_dialect_linalg::IteratorType::{Parallel as P, Reduction as R};
use nart_ir::{Context, FloatKind, Location, Op, PatternRewriter, Type, Value};

use crate::emit::*;
use crate::graph_to_linalg::{
    float_attr, int_attr, ints_attr, operand, placeholder, result_type, string_attr,
};

// ----- windows -----

/// The window of a pool over `nd` spatial dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// The padding before each spatial dimension.
    begin: Vec<i64>,
    /// The explicit (or `auto_pad`) padding after each spatial dimension.
    end: Vec<i64>,
    /// The padding applied after each spatial dimension: `end`, grown so that the last window
    /// of the result fits (ceil mode).
    high: Vec<i64>,
}

/// The window attributes of a pool on an input of spatial sizes `input` whose result has
/// spatial sizes `out`.
fn pool_window(ctx: &Context, op: Op, input: &[i64], out: &[i64]) -> Result<Window, String> {
    let nd = input.len();
    let kernel = ints_attr(ctx, op, "kernel_shape").ok_or("expected a kernel_shape")?;
    if kernel.len() != nd {
        return Err(format!("expected {nd} kernel_shape values, got {kernel:?}"));
    }
    let per_dim = |name: &str| -> Result<Vec<i64>, String> {
        match ints_attr(ctx, op, name) {
            None => Ok(vec![1; nd]),
            Some(v) if v.is_empty() => Ok(vec![1; nd]),
            Some(v) if v.len() == nd => Ok(v),
            Some(v) => Err(format!("expected {nd} {name}, got {v:?}")),
        }
    };
    let (strides, dilations) = (per_dim("strides")?, per_dim("dilations")?);
    if kernel
        .iter()
        .chain(&strides)
        .chain(&dilations)
        .any(|&v| v < 1)
    {
        return Err("kernel_shape, strides and dilations must be positive".to_string());
    }
    // Bounded, so that the window arithmetic below cannot overflow.
    const LIMIT: i64 = 1 << 31;
    const TOO_LARGE: &str = "window attributes or sizes beyond 2^31 are not lowered";
    let sizes = kernel.iter().chain(&strides).chain(&dilations).chain(input);
    if sizes.copied().any(|v| v > LIMIT) {
        return Err(TOO_LARGE.to_string());
    }
    let (mut begin, mut end) = (vec![0; nd], vec![0; nd]);
    match string_attr(ctx, op, "auto_pad") {
        None | Some("NOTSET") => match ints_attr(ctx, op, "pads") {
            None => {}
            Some(p) if p.is_empty() => {}
            Some(p) if p.len() == 2 * nd => {
                begin.copy_from_slice(&p[..nd]);
                end.copy_from_slice(&p[nd..]);
            }
            Some(p) => return Err(format!("expected {} pads, got {p:?}", 2 * nd)),
        },
        Some("VALID") => {}
        Some(mode @ ("SAME_UPPER" | "SAME_LOWER")) => {
            // Each output is ceil(input / stride); the odd element of the total padding goes
            // at the end (at the start for SAME_LOWER).
            for i in 0..nd {
                let o = (input[i] + strides[i] - 1) / strides[i];
                let reach = (kernel[i] - 1) * dilations[i] + 1;
                let total = ((o.max(1) - 1) * strides[i] + reach - input[i]).max(0);
                let (small, big) = (total / 2, total - total / 2);
                (begin[i], end[i]) = if mode == "SAME_LOWER" {
                    (big, small)
                } else {
                    (small, big)
                };
            }
        }
        Some(p) => return Err(format!("auto_pad = \"{p}\" is not lowered")),
    }
    if begin.iter().chain(&end).any(|&p| p < 0) {
        return Err("negative pads are not lowered".to_string());
    }
    if begin.iter().chain(&end).chain(out).any(|&a| a > LIMIT) {
        return Err(TOO_LARGE.to_string());
    }
    let high = (0..nd)
        .map(|i| {
            let need = (out[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1;
            end[i].max(need - input[i] - begin[i])
        })
        .collect();
    Ok(Window {
        kernel,
        strides,
        dilations,
        begin,
        end,
        high,
    })
}

impl Window {
    /// The input position of output `o` and tap `k` along dimension `i` (negative or past the
    /// end in the padding).
    fn at(&self, i: usize, o: i64, k: i64) -> i64 {
        o * self.strides[i] + k * self.dilations[i] - self.begin[i]
    }

    /// Per spatial dimension, the number of taps of each output inside `[lo, hi)` (`lo`, `hi`
    /// given per dimension).
    fn counts(&self, out: &[i64], bounds: impl Fn(usize) -> (i64, i64)) -> Vec<Vec<i64>> {
        (0..out.len())
            .map(|i| {
                let (lo, hi) = bounds(i);
                (0..out[i])
                    .map(|o| {
                        (0..self.kernel[i])
                            .filter(|&k| (lo..hi).contains(&self.at(i, o, k)))
                            .count() as i64
                    })
                    .collect()
            })
            .collect()
    }

    /// The maps of a pool's loops `(n, c, o.., k..)`: the padded input at `o * s + k * d`, the
    /// kernel-shaped operand at `k..`, and the result at `(n, c, o..)`.
    fn maps(&self) -> [nart_ir::AffineMap; 3] {
        let nd = self.kernel.len() as u32;
        let n = 2 + 2 * nd;
        let mut input = vec![d(0), d(1)];
        let mut result = vec![d(0), d(1)];
        for i in 0..nd {
            let (s, dl) = (self.strides[i as usize], self.dilations[i as usize]);
            input.push(add(mul_const(d(2 + i), s), mul_const(d(2 + nd + i), dl)));
            result.push(d(2 + i));
        }
        [
            map(n, input),
            map(n, (0..nd).map(|i| d(2 + nd + i)).collect()),
            map(n, result),
        ]
    }

    /// The loops' iterator types: `n`, `c` and the outputs parallel, the taps reductions.
    fn iters(&self) -> Vec<nart_dialect_linalg::IteratorType> {
        let nd = self.kernel.len();
        let mut it = vec![P; 2 + nd];
        it.extend(vec![R; nd]);
        it
    }
}

/// The input, its shape, the result's shape and element type, and the window of a pool op, or
/// why it is not lowered.
#[allow(clippy::type_complexity)]
fn pool_operands(
    rw: &PatternRewriter<'_>,
    op: Op,
) -> Result<(Value, Vec<i64>, Vec<i64>, Type, Window), String> {
    let (out, elem) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    if sx.len() < 3 || out.len() != sx.len() {
        return Err(
            "expected an input and a result of the same rank, 3 or more (N, C and spatial dimensions)"
                .to_string(),
        );
    }
    let win = pool_window(rw, op, &sx[2..], &out[2..])?;
    Ok((x, sx, out, elem, win))
}

/// A constant of integer type `ty`.
fn int_const(rw: &mut PatternRewriter<'_>, v: i128, ty: Type, loc: Location) -> Value {
    let a = rw.uniq().int_attr(ty, v);
    constant_of(rw, a, ty, loc)
}

/// `v * k` for an `i64` `v` (`v` itself when `k` is 1).
fn times(rw: &mut PatternRewriter<'_>, v: Value, k: i64, loc: Location) -> Value {
    if k == 1 {
        return v;
    }
    let i64t = rw.uniq().int_type(64);
    let c = int_const(rw, k.into(), i64t, loc);
    ar(rw, "arith.muli", &[v, c], i64t, loc)
}

/// The flattened index of the first element of plane `(n, c)` (loops 0 and 1) of an input
/// with `channels` channels and planes of `plane` elements, as an `i64`.
fn plane_base(rw: &mut PatternRewriter<'_>, channels: i64, plane: i64, loc: Location) -> Value {
    let i64t = rw.uniq().int_type(64);
    let n = index_i64(rw, 0, loc);
    let c = index_i64(rw, 1, loc);
    let nc = times(rw, n, channels, loc);
    let p = ar(rw, "arith.addi", &[nc, c], i64t, loc);
    times(rw, p, plane, loc)
}

/// `linalg.index dim` as an `i64`.
fn index_i64(rw: &mut PatternRewriter<'_>, dim: usize, loc: Location) -> Value {
    let i64t = rw.uniq().int_type(64);
    let i = linalg_index(rw, dim, loc);
    ar(rw, "arith.index_cast", &[i], i64t, loc)
}

/// `MaxPool`: the 2-D float form without `Indices` is `linalg.pooling_nchw_max`
/// (`graph_to_linalg`); every other one is a `linalg.generic` (see the module table).
pub(crate) fn lower_max_pool(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, elem) = static_type(rw, x)?;
    let indices_used = rw.results(op).get(1).is_some_and(|&r| rw.has_uses(r));
    if sx.len() == 4 && is_float(rw, elem) && !indices_used {
        return crate::graph_to_linalg::lower_max_pool(rw, op, loc);
    }
    let (x, sx, out, elem, win) = pool_operands(rw, op)?;
    let float = is_float(rw, elem);
    let width = signless_width(rw, elem);
    if !float && width.is_none_or(|w| w < 2) {
        return Err("expected a float or signless integer tensor".to_string());
    }
    let order = int_attr(rw, op, "storage_order", 0);
    if !matches!(order, 0 | 1) {
        return Err(format!("storage_order = {order} is not lowered"));
    }
    if indices_used {
        let (_, ie) = static_type(rw, rw.result(op, 1))?;
        if signless_width(rw, ie) != Some(64) {
            return Err("expected i64 indices".to_string());
        }
    }
    let nd = sx.len() - 2;
    // A window with no tap inside the input (possible with large pads or ceil mode) keeps the
    // lowest value, 0 for integers, at index 0 of its plane: its index tells it apart.
    let in_bounds = win.counts(&out[2..], |i| (0, sx[2 + i]));
    let empty_windows = in_bounds.iter().flatten().any(|&c| c == 0);
    let need_indices = indices_used || (!float && empty_windows);
    // Unsigned integers (lowered as signless ones, see `intq_ops`) start at 0.
    let unsigned = crate::intq_ops::operand_unsigned(rw, op, 0);
    let lowest = if float {
        f64::NEG_INFINITY
    } else if unsigned {
        0.0
    } else {
        -(2f64.powi(width.unwrap_or(64) as i32 - 1))
    };
    let mut low = vec![0, 0];
    low.extend(&win.begin);
    let mut high = vec![0, 0];
    high.extend(&win.high);
    let xp = pad(rw, x, &low, &high, lowest, loc)?;
    let taps = empty(rw, &win.kernel, elem, loc);
    let best = filled(rw, lowest, &out, elem, loc);
    let i64t = rw.uniq().int_type(64);
    let mut inits = vec![best];
    let [xmap, kmap, omap] = win.maps();
    let mut maps = vec![xmap, kmap, omap.clone()];
    if need_indices {
        inits.push(filled(rw, -1.0, &out, i64t, loc));
        maps.push(omap);
    }
    // Row-major or column-major strides of the input plane.
    let spatial = &sx[2..];
    let plane: i64 = spatial.iter().product();
    let mut strides = vec![1; nd];
    if order == 0 {
        for i in (0..nd.saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * spatial[i + 1];
        }
    } else {
        for i in 1..nd {
            strides[i] = strides[i - 1] * spatial[i - 1];
        }
    }
    let padded: Vec<bool> = (0..nd)
        .map(|i| win.begin[i] > 0 || win.high[i] > 0)
        .collect();
    let channels = sx[1];
    let r = try_generic(rw, &[xp, taps], &inits, maps, &win.iters(), loc, |rw, a| {
        let (v, acc) = (a[0], a[2]);
        let gt = if float {
            cmpf(rw, cmpf_pred::OGT, v, acc, loc)
        } else {
            crate::intq_ops::cmpi_signed(rw, cmpi_pred::SGT, unsigned, v, acc, loc)
        };
        let value = ar(rw, "arith.select", &[gt, v, acc], elem, loc);
        if !need_indices {
            return Ok(vec![value]);
        }
        // The flattened index of the tap; the first tap inside the input is taken whatever
        // its value, then only strictly larger ones.
        let i1 = rw.uniq().i1_type();
        let mut flat = plane_base(rw, channels, plane, loc);
        let mut inside = None;
        for i in 0..nd {
            let o = index_i64(rw, 2 + i, loc);
            let k = index_i64(rw, 2 + nd + i, loc);
            let os = times(rw, o, win.strides[i], loc);
            let kd = times(rw, k, win.dilations[i], loc);
            let mut h = ar(rw, "arith.addi", &[os, kd], i64t, loc);
            if win.begin[i] != 0 {
                let b = int_const(rw, win.begin[i].into(), i64t, loc);
                h = ar(rw, "arith.subi", &[h, b], i64t, loc);
            }
            if padded[i] {
                let zero = int_const(rw, 0, i64t, loc);
                let size = int_const(rw, spatial[i].into(), i64t, loc);
                let ge = cmpi(rw, cmpi_pred::SGE, h, zero, loc);
                let lt = cmpi(rw, cmpi_pred::SLT, h, size, loc);
                let both = ar(rw, "arith.andi", &[ge, lt], i1, loc);
                inside = Some(match inside {
                    Some(prev) => ar(rw, "arith.andi", &[prev, both], i1, loc),
                    None => both,
                });
            }
            let term = times(rw, h, strides[i], loc);
            flat = ar(rw, "arith.addi", &[flat, term], i64t, loc);
        }
        let unset_marker = int_const(rw, -1, i64t, loc);
        let mut first = cmpi(rw, cmpi_pred::EQ, a[3], unset_marker, loc);
        if let Some(inside) = inside {
            first = ar(rw, "arith.andi", &[first, inside], i1, loc);
        }
        let take = ar(rw, "arith.ori", &[gt, first], i1, loc);
        let index = ar(rw, "arith.select", &[take, flat, a[3]], i64t, loc);
        Ok(vec![value, index])
    })?;
    let (mut values, mut indices) = (r[0], r.get(1).copied());
    if empty_windows {
        if let Some(idx) = indices {
            if !float {
                values = elementwise(rw, &[values, idx], &out, elem, loc, |rw, a| {
                    let m = int_const(rw, -1, i64t, loc);
                    let unset = cmpi(rw, cmpi_pred::EQ, a[1], m, loc);
                    let zero = scalar(rw, 0.0, elem, loc);
                    Ok(ar(rw, "arith.select", &[unset, zero, a[0]], elem, loc))
                })?;
            }
            if indices_used {
                indices = Some(elementwise(rw, &[idx], &out, i64t, loc, |rw, a| {
                    let m = int_const(rw, -1, i64t, loc);
                    let unset = cmpi(rw, cmpi_pred::EQ, a[0], m, loc);
                    let base = plane_base(rw, channels, plane, loc);
                    Ok(ar(rw, "arith.select", &[unset, base, a[0]], i64t, loc))
                })?);
            }
        }
    }
    let mut results = vec![values];
    for i in 1..rw.results(op).len() {
        let r = rw.result(op, i);
        match indices {
            Some(idx) if i == 1 && indices_used => results.push(idx),
            _ => results.push(placeholder(rw, r, loc)?),
        }
    }
    Ok(results)
}

/// `AveragePool`: the 2-D form is `linalg.pooling_nchw_sum` (`graph_to_linalg`); other
/// spatial ranks a summing `linalg.generic` (see the module table).
pub(crate) fn lower_average_pool(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    if sx.len() == 4 {
        return crate::graph_to_linalg::lower_average_pool(rw, op, loc);
    }
    let (x, sx, out, elem, win) = pool_operands(rw, op)?;
    if elem != rw.uniq().f32_type() {
        return Err("only f32 average pooling is lowered".to_string());
    }
    let include_pad = int_attr(rw, op, "count_include_pad", 0) != 0;
    let spatial = &sx[2..];
    // The taps each window counts: inside the input, or inside the explicitly padded input
    // with count_include_pad (the ceil-mode overhang never counts). A window box counts the
    // product of its dimensions' counts.
    let per_dim = win.counts(&out[2..], |i| {
        if include_pad {
            (-win.begin[i], spatial[i] + win.end[i])
        } else {
            (0, spatial[i])
        }
    });
    let mut counts = vec![1f32];
    for dim in &per_dim {
        counts = counts
            .iter()
            .flat_map(|&c| dim.iter().map(move |&k| c * k as f32))
            .collect();
    }
    for c in &mut counts {
        *c = c.max(1.0);
    }
    let mut low = vec![0, 0];
    low.extend(&win.begin);
    let mut high = vec![0, 0];
    high.extend(&win.high);
    let xp = pad(rw, x, &low, &high, 0.0, loc)?;
    let taps = empty(rw, &win.kernel, elem, loc);
    let init = filled(rw, 0.0, &out, elem, loc);
    let [xmap, kmap, omap] = win.maps();
    let sum = try_generic(
        rw,
        &[xp, taps],
        &[init],
        vec![xmap, kmap, omap],
        &win.iters(),
        loc,
        |rw, a| Ok(vec![ar(rw, "arith.addf", &[a[2], a[0]], elem, loc)]),
    )?[0];
    let first = counts[0];
    let y = if counts.iter().all(|&c| c == first) {
        elementwise(rw, &[sum], &out, elem, loc, |rw, a| {
            let n = scalar(rw, f64::from(first), elem, loc);
            Ok(ar(rw, "arith.divf", &[a[0], n], elem, loc))
        })?
    } else {
        let c = const_f32_tensor(rw, &out[2..], &counts, loc);
        elementwise(rw, &[sum, c], &out, elem, loc, |rw, a| {
            Ok(ar(rw, "arith.divf", &[a[0], a[1]], elem, loc))
        })?
    };
    Ok(vec![y])
}

// ----- Pow of integers -----

/// `Pow(x, y)` with an integer `x` (see the module table): the result is what the
/// interpreter's integer kernel computes, bit for bit.
pub(crate) fn lower_int_pow(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let w = signless_width(rw, elem)
        .filter(|&w| (2..=64).contains(&w))
        .filter(|_| !crate::intq_ops::result_unsigned(rw, op, 0))
        .ok_or("Pow of integers is lowered for signless integers of 2 to 64 bits")?;
    let (x, y) = (operand(rw, op, 0)?, operand(rw, op, 1)?);
    // Unsigned tensors are lowered as signless ones (`intq_ops`), but the kernels here read
    // them signed.
    if crate::intq_ops::operand_unsigned(rw, op, 1) {
        return Err(
            "the exponent of Pow is neither a float nor a signless integer of 2 to 64 bits"
                .to_string(),
        );
    }
    let (_, xe) = static_type(rw, x)?;
    let (_, ye) = static_type(rw, y)?;
    if xe != elem {
        return Err("the base and the result of Pow have different types".to_string());
    }
    if is_float(rw, ye) {
        if float_width(rw, ye).is_none() {
            return Err("the exponent is a float type Pow does not lower".to_string());
        }
        let v = elementwise(rw, &[x, y], &shape, elem, loc, |rw, a| {
            float_exponent(rw, a[0], a[1], elem, w, loc)
        })?;
        return Ok(vec![v]);
    }
    let wy = signless_width(rw, ye)
        .filter(|&w| (2..=64).contains(&w))
        .ok_or("the exponent of Pow is neither a float nor a signless integer of 2 to 64 bits")?;
    let v = elementwise(rw, &[x, y], &shape, elem, loc, |rw, a| {
        Ok(int_exponent(rw, a[0], a[1], elem, ye, wy, loc))
    })?;
    Ok(vec![v])
}

/// `x ** e` for integers: square-and-multiply for `e >= 0` (wrapping, as the interpreter's
/// loop does at every step), and for `e < 0` the truncated float power the interpreter takes.
fn int_exponent(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    e: Value,
    elem: Type,
    ye: Type,
    wy: u32,
    loc: Location,
) -> Value {
    let i1 = rw.uniq().i1_type();
    let one = int_const(rw, 1, elem, loc);
    let ezero = int_const(rw, 0, ye, loc);
    let mut r = one;
    let mut base = x;
    // Bits 0..wy-1 (the sign bit is the negative case).
    for j in 0..wy - 1 {
        let mask = int_const(rw, 1i128 << j, ye, loc);
        let bit = ar(rw, "arith.andi", &[e, mask], ye, loc);
        let set = cmpi(rw, cmpi_pred::NE, bit, ezero, loc);
        let rb = ar(rw, "arith.muli", &[r, base], elem, loc);
        r = ar(rw, "arith.select", &[set, rb, r], elem, loc);
        if j + 2 < wy {
            base = ar(rw, "arith.muli", &[base, base], elem, loc);
        }
    }
    // A negative exponent: (x as f64).powf(e as f64) truncated: 1 for x = 1; for x = -1, -1
    // when e is odd as an f64 (|e| < 2^53; larger ones round to even); 0 ** e is +inf,
    // saturated to i128::MAX, whose low bits are all ones; 0 for |x| >= 2.
    let minus_one = int_const(rw, -1, elem, loc);
    let zero = int_const(rw, 0, elem, loc);
    let e1 = int_const(rw, 1, ye, loc);
    let low_bit = ar(rw, "arith.andi", &[e, e1], ye, loc);
    let mut odd = cmpi(rw, cmpi_pred::NE, low_bit, ezero, loc);
    if wy > 53 {
        let limit = int_const(rw, -(1i128 << 53), ye, loc);
        let exact = cmpi(rw, cmpi_pred::SGT, e, limit, loc);
        odd = ar(rw, "arith.andi", &[odd, exact], i1, loc);
    }
    let of_minus_one = ar(rw, "arith.select", &[odd, minus_one, one], elem, loc);
    let is_one = cmpi(rw, cmpi_pred::EQ, x, one, loc);
    let is_minus_one = cmpi(rw, cmpi_pred::EQ, x, minus_one, loc);
    let is_zero = cmpi(rw, cmpi_pred::EQ, x, zero, loc);
    let z = ar(rw, "arith.select", &[is_zero, minus_one, zero], elem, loc);
    let m = ar(
        rw,
        "arith.select",
        &[is_minus_one, of_minus_one, z],
        elem,
        loc,
    );
    let negative_result = ar(rw, "arith.select", &[is_one, one, m], elem, loc);
    let negative = cmpi(rw, cmpi_pred::SLT, e, ezero, loc);
    ar(
        rw,
        "arith.select",
        &[negative, negative_result, r],
        elem,
        loc,
    )
}

/// `(x as f64).powf(y as f64) as i128`, wrapped to `w` bits, as the interpreter computes an
/// integer to a float power: `as i128` truncates toward zero and saturates (NaN gives 0), and
/// the wrap keeps the low bits.
fn float_exponent(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    y: Value,
    elem: Type,
    w: u32,
    loc: Location,
) -> Result<Value, String> {
    let f64t = rw.uniq().float_type(FloatKind::F64);
    let i64t = rw.uniq().int_type(64);
    let xf = ar(rw, "arith.sitofp", &[x], f64t, loc);
    let ty = rw.value_type(y);
    let yf = if ty == f64t {
        y
    } else {
        ar(rw, "arith.extf", &[y], f64t, loc)
    };
    let p = crate::pointwise::binary_math(rw, "math.powf", xf, yf, loc)?;
    let t = math(rw, "math.trunc", p, loc)?;
    let magnitude = math(rw, "math.absf", t, loc)?;
    let c = |rw: &mut PatternRewriter<'_>, v: f64| scalar(rw, v, f64t, loc);
    let (two63, two64, two127) = (
        c(rw, 2f64.powi(63)),
        c(rw, 2f64.powi(64)),
        c(rw, 2f64.powi(127)),
    );
    let zero = c(rw, 0.0);
    // |t| < 2^63: fptosi is exact.
    let small = cmpf(rw, cmpf_pred::OLT, magnitude, two63, loc);
    let ts = ar(rw, "arith.select", &[small, t, zero], f64t, loc);
    let si = ar(rw, "arith.fptosi", &[ts], i64t, loc);
    // 2^63 <= |t| < 2^127: t is a multiple of 2^11, and t mod 2^64 is exact in f64.
    let big = cmpf(rw, cmpf_pred::OLT, magnitude, two127, loc);
    let inv = c(rw, 2f64.powi(-64));
    let scaled = ar(rw, "arith.mulf", &[t, inv], f64t, loc);
    let q = math(rw, "math.floor", scaled, loc)?;
    let qm = ar(rw, "arith.mulf", &[q, two64], f64t, loc);
    let m = ar(rw, "arith.subf", &[t, qm], f64t, loc);
    let big_only = {
        let i1 = rw.uniq().i1_type();
        let t1 = int_const(rw, 1, i1, loc);
        let not_small = ar(rw, "arith.xori", &[small, t1], i1, loc);
        ar(rw, "arith.andi", &[big, not_small], i1, loc)
    };
    let mb = ar(rw, "arith.select", &[big_only, m, zero], f64t, loc);
    let ui = ar(rw, "arith.fptoui", &[mb], i64t, loc);
    // Beyond: i128::MAX (all ones) for +inf and large positives, i128::MIN (low bits 0) for
    // negatives; NaN compares false everywhere and gives 0.
    let positive = cmpf(rw, cmpf_pred::OGT, t, zero, loc);
    let ones = int_const(rw, -1, i64t, loc);
    let z64 = int_const(rw, 0, i64t, loc);
    let saturated = ar(rw, "arith.select", &[positive, ones, z64], i64t, loc);
    let wide = ar(rw, "arith.select", &[big_only, ui, saturated], i64t, loc);
    let r = ar(rw, "arith.select", &[small, si, wide], i64t, loc);
    Ok(if w < 64 {
        ar(rw, "arith.trunci", &[r], elem, loc)
    } else {
        r
    })
}

// ----- reductions -----

/// The reduced dimensions of a `Reduce*` op whose axes are an operand not known at compile
/// time, from the static shapes: with `keepdims`, a dimension whose size changes (to 1) is
/// reduced. Reducing a dimension of size 1 changes nothing for `Max`, `Min`, `Sum`, `Mean`,
/// `Prod` and `LogSumExp`; for the others such a dimension is ambiguous and the op is refused.
/// `None`: nothing is reduced.
pub(crate) fn mask_from_shapes(
    rw: &PatternRewriter<'_>,
    op: Op,
) -> Result<Option<Vec<bool>>, String> {
    const WHY: &str = "the axes are not a constant";
    if int_attr(rw, op, "keepdims", 1) == 0 {
        return Err(format!(
            "{WHY} (and without keepdims the shapes do not tell them)"
        ));
    }
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    let (out, _) = result_type(rw, op)?;
    if out.len() != sx.len() {
        return Err(format!(
            "{WHY}, and the result's rank differs from the input's"
        ));
    }
    let singleton_safe = matches!(
        rw.op_name_str(op),
        "graph.ReduceMax"
            | "graph.ReduceMin"
            | "graph.ReduceSum"
            | "graph.ReduceMean"
            | "graph.ReduceProd"
            | "graph.ReduceLogSumExp"
    );
    let mut mask = Vec::with_capacity(sx.len());
    for (&s, &o) in sx.iter().zip(&out) {
        if s != o && o != 1 {
            return Err(format!(
                "{WHY}, and the result shape {out:?} is no reduction of {sx:?}"
            ));
        }
        if s == 1 && !singleton_safe {
            return Err(format!(
                "{WHY}, and whether its dimensions of size 1 are reduced matters to {}",
                rw.op_name_str(op).trim_start_matches("graph.")
            ));
        }
        mask.push(s != o);
    }
    Ok(mask.iter().any(|&m| m).then_some(mask))
}

/// `ReduceMax` (`max`) or `ReduceMin` of booleans: or-ing from false, and-ing from true (the
/// interpreter reduces the bytes 0 and 1 and casts back).
pub(crate) fn lower_reduce_bool(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
    max: bool,
) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, elem) = static_type(rw, x)?;
    let (out, _) = result_type(rw, op)?;
    let Some(mask) = crate::reduce::reduce_mask(rw, op, sx.len())? else {
        return Ok(vec![reshape(rw, x, &out, loc)?]);
    };
    let init = rw.uniq().int_attr(elem, i128::from(!max));
    let name = if max { "arith.ori" } else { "arith.andi" };
    let r = crate::reduce::reduce_dims(rw, x, &[], &mask, init, loc, |rw, a| {
        Ok(ar(rw, name, &[a[1], a[0]], elem, loc))
    })?;
    Ok(vec![reshape(rw, r, &out, loc)?])
}

// ----- BatchNormalization in training mode -----

/// `BatchNormalization` with `training_mode = 1` (see the module table): `Y` with the batch's
/// own mean and (biased) variance over every dimension but 1, and the running statistics
/// when they are used.
pub(crate) fn lower_batch_norm_training(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
) -> Lowered {
    let (s, elem) = result_type(rw, op)?;
    if s.len() < 2 || !is_float(rw, elem) {
        return Err("expected a float tensor of rank 2 or more".to_string());
    }
    let x = operand(rw, op, 0)?;
    let params: Vec<Value> = (1..5)
        .map(|i| operand(rw, op, i))
        .collect::<Result<_, _>>()?;
    let c = s[1];
    for &p in &params {
        let (sp, pe) = static_type(rw, p)?;
        if sp != [c] || pe != elem {
            return Err(format!(
                "expected the scale, bias, mean and variance as [{c}] tensors of the input's type"
            ));
        }
    }
    let eps = float_attr(rw, op, "epsilon", 1e-5);
    let momentum = float_attr(rw, op, "momentum", 0.9);
    let count = (s.iter().product::<i64>() / c.max(1)).max(1);
    let inv_n = 1.0 / count as f64;
    let mask: Vec<bool> = (0..s.len()).map(|i| i != 1).collect();
    let zero = scalar_attr(rw, 0.0, elem);
    let sum = crate::reduce::reduce_dims(rw, x, &[], &mask, zero, loc, |rw, a| {
        Ok(ar(rw, "arith.addf", &[a[1], a[0]], elem, loc))
    })?;
    let dev = crate::reduce::reduce_dims(rw, x, &[sum], &mask, zero, loc, |rw, a| {
        let k = scalar(rw, inv_n, elem, loc);
        let mean = ar(rw, "arith.mulf", &[a[1], k], elem, loc);
        let t = ar(rw, "arith.subf", &[a[0], mean], elem, loc);
        let t2 = ar(rw, "arith.mulf", &[t, t], elem, loc);
        Ok(ar(rw, "arith.addf", &[a[2], t2], elem, loc))
    })?;
    let n = s.len() as u32;
    let channel = map(n, vec![d(1)]);
    let init = empty(rw, &s, elem, loc);
    let y = try_generic(
        rw,
        &[x, sum, dev, params[0], params[1]],
        &[init],
        vec![
            nart_dialect_linalg::structured::identity(n),
            channel.clone(),
            channel.clone(),
            channel.clone(),
            channel,
            nart_dialect_linalg::structured::identity(n),
        ],
        &vec![P; s.len()],
        loc,
        |rw, a| {
            let k = scalar(rw, inv_n, elem, loc);
            let e = scalar(rw, eps, elem, loc);
            let one = scalar(rw, 1.0, elem, loc);
            let mean = ar(rw, "arith.mulf", &[a[1], k], elem, loc);
            let var = ar(rw, "arith.mulf", &[a[2], k], elem, loc);
            let ve = ar(rw, "arith.addf", &[var, e], elem, loc);
            let sd = math(rw, "math.sqrt", ve, loc)?;
            let inv = ar(rw, "arith.divf", &[one, sd], elem, loc);
            let t = ar(rw, "arith.subf", &[a[0], mean], elem, loc);
            let q = ar(rw, "arith.mulf", &[t, inv], elem, loc);
            let sc = ar(rw, "arith.mulf", &[q, a[3]], elem, loc);
            Ok(vec![ar(rw, "arith.addf", &[sc, a[4]], elem, loc)])
        },
    )?[0];
    let mut values = vec![y];
    for i in 1..rw.results(op).len() {
        let r = rw.result(op, i);
        if !rw.has_uses(r) {
            values.push(placeholder(rw, r, loc)?);
            continue;
        }
        if i > 2 {
            return Err("the saved mean and variance results are not lowered".to_string());
        }
        let (stat, running) = if i == 1 {
            (sum, params[2])
        } else {
            (dev, params[3])
        };
        let v = elementwise(rw, &[running, stat], &[c], elem, loc, |rw, a| {
            let k = scalar(rw, inv_n, elem, loc);
            let m = scalar(rw, momentum, elem, loc);
            let rest = scalar(rw, 1.0 - momentum, elem, loc);
            let batch = ar(rw, "arith.mulf", &[a[1], k], elem, loc);
            let old = ar(rw, "arith.mulf", &[a[0], m], elem, loc);
            let new = ar(rw, "arith.mulf", &[batch, rest], elem, loc);
            Ok(ar(rw, "arith.addf", &[old, new], elem, loc))
        })?;
        values.push(v);
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::Window;

    fn window(kernel: i64, stride: i64, dilation: i64, begin: i64, end: i64) -> Window {
        Window {
            kernel: vec![kernel],
            strides: vec![stride],
            dilations: vec![dilation],
            begin: vec![begin],
            end: vec![end],
            high: vec![end],
        }
    }

    #[test]
    fn window_counts_are_the_taps_inside_the_bounds() {
        // Input 5, kernel 3, stride 2, pads 1 and 1: outputs at -1..2, 1..4, 3..6.
        let w = window(3, 2, 1, 1, 1);
        assert_eq!(w.counts(&[3], |_| (0, 5)), vec![vec![2, 3, 2]]);
        assert_eq!(w.counts(&[3], |_| (-1, 6)), vec![vec![3, 3, 3]]);
        // Dilation 2 with kernel 2 and pad 2 before: taps at o - 2 and o.
        let w = window(2, 1, 2, 2, 0);
        assert_eq!(w.counts(&[4], |_| (0, 3)), vec![vec![1, 1, 2, 1]]);
    }
}
