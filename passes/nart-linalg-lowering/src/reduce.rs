//! Reductions: the ONNX `Reduce*` family, `ArgMax`/`ArgMin` and `LayerNormalization`, as
//! `linalg.generic`s with reduction iterators whose init maps drop the reduced dimensions.
//!
//! | graph ops | structured form |
//! |---|---|
//! | `ReduceSum`, `ReduceMax`, `ReduceMin`, `ReduceProd`, `ReduceSumSquare`, `ReduceL1` | one reduction into a `linalg.fill`ed init (0, the lowest or highest value, or 1) |
//! | `ReduceMean`, `ReduceL2`, `ReduceLogSum` | a sum, then a parallel generic dividing by the count, taking the square root or the log |
//! | `ReduceLogSumExp` | the maximum, then `log(sum(exp(x - max))) + max` (stable for large inputs) |
//! | `ArgMax`, `ArgMin` | one reduction with two inits, the best value and its index (`linalg.index`); the first best index wins unless `select_last_index` |
//! | `LayerNormalization` | the sum, the sum of squared deviations, and a parallel generic `(x - mean) / sqrt(var + eps) * scale + bias`; `Mean` and `InvStdDev`, when used, from the same sums (f32 `stash_type` of f32 inputs) |
//!
//! The axes come from the `axes` attribute or a constant second operand (or the shapes, see
//! [`crate::pools_ops`]); with no axes every
//! dimension is reduced, unless `noop_with_empty_axes`, where the input is the result.
//! `keepdims` reshapes the reduced tensor (`tensor.expand_shape`).

use nart_dialect_arith::attrs::{cmpf, cmpi as cmpi_pred};
use nart_dialect_linalg::structured::{d, identity, map};
use nart_dialect_linalg::IteratorType::{Parallel as P, Reduction as R};
use nart_ir::{AffineMap, Attr, Location, Op, PatternRewriter, Value};

use crate::emit::*;
use crate::graph_to_linalg::{float_attr, int_attr, ints_attr, norm_axis, operand, result_type};

/// The map of a tensor of the dimensions `mask` keeps, inside the loops over all of them.
fn kept_map(mask: &[bool]) -> AffineMap {
    let n = mask.len() as u32;
    map(n, (0..n).filter(|&i| !mask[i as usize]).map(d).collect())
}

/// The dimensions of `shape` that `mask` keeps.
fn kept(shape: &[i64], mask: &[bool]) -> Vec<i64> {
    shape
        .iter()
        .zip(mask)
        .filter(|(_, &r)| !r)
        .map(|(&s, _)| s)
        .collect()
}

/// A reduction of `x` over the dimensions `mask` sets into a tensor of the kept ones (of `x`'s
/// element type), filled first with `init`: `body` gets `x`'s element, the elements of `extra`
/// (tensors of the kept dimensions, read back along the reduced ones) and the accumulator.
pub(crate) fn reduce_dims(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    extra: &[Value],
    mask: &[bool],
    init: Attr,
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, &[Value]) -> Result<Value, String>,
) -> Result<Value, String> {
    let (s, elem) = static_type(rw, x)?;
    let n = s.len() as u32;
    let acc = filled_with(rw, init, &kept(&s, mask), elem, loc);
    let mut inputs = vec![x];
    inputs.extend_from_slice(extra);
    let mut maps = vec![identity(n)];
    maps.extend(extra.iter().map(|_| kept_map(mask)));
    maps.push(kept_map(mask));
    let iters: Vec<_> = mask.iter().map(|&r| if r { R } else { P }).collect();
    let r = try_generic(rw, &inputs, &[acc], maps, &iters, loc, |rw, a| {
        Ok(vec![body(rw, a)?])
    })?;
    Ok(r[0])
}

/// The reduced-dimension mask of a `Reduce*` op, or `None` for a no-op.
pub(crate) fn reduce_mask(
    rw: &PatternRewriter<'_>,
    op: Op,
    rank: usize,
) -> Result<Option<Vec<bool>>, String> {
    let axes = match optional_operand(rw, op, 1) {
        Some(v) => match constant_ints(rw, v) {
            Some(axes) => axes,
            None => return crate::pools_ops::mask_from_shapes(rw, op),
        },
        None => ints_attr(rw, op, "axes").unwrap_or_default(),
    };
    if axes.is_empty() {
        if int_attr(rw, op, "noop_with_empty_axes", 0) != 0 {
            return Ok(None);
        }
        return Ok(Some(vec![true; rank]));
    }
    let mut mask = vec![false; rank];
    for a in axes {
        mask[norm_axis(a, rank)?] = true;
    }
    Ok(Some(mask))
}

/// The members of the `Reduce*` family.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
    L1,
    L2,
    LogSum,
    LogSumExp,
    SumSquare,
}

fn lower_reduce(rw: &mut PatternRewriter<'_>, op: Op, loc: Location, kind: Kind) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, elem) = static_type(rw, x)?;
    let (out, _) = result_type(rw, op)?;
    let float = is_float(rw, elem);
    let int_ok = matches!(
        kind,
        Kind::Sum | Kind::Max | Kind::Min | Kind::Prod | Kind::L1 | Kind::SumSquare
    );
    let supported = float || (int_ok && signless_width(rw, elem).is_some_and(|w| w > 1));
    if !supported && matches!(kind, Kind::Max | Kind::Min) && signless_width(rw, elem) == Some(1) {
        return crate::pools_ops::lower_reduce_bool(rw, op, loc, kind == Kind::Max);
    }
    if !supported {
        return Err(
            "expected a float tensor (or integers for Sum, Max, Min, Prod, L1, SumSquare)"
                .to_string(),
        );
    }
    let Some(mask) = reduce_mask(rw, op, sx.len())? else {
        return Ok(vec![reshape(rw, x, &out, loc)?]);
    };
    let count: i64 = sx
        .iter()
        .zip(&mask)
        .filter(|(_, &r)| r)
        .map(|(&s, _)| s)
        .product();
    let (add, mul) = if float {
        ("arith.addf", "arith.mulf")
    } else {
        ("arith.addi", "arith.muli")
    };
    let zero = scalar_attr(rw, 0.0, elem);
    let peak = if kind == Kind::LogSumExp {
        let low = extreme(rw, elem, true).ok_or("no lowest value")?;
        Some(reduce_dims(rw, x, &[], &mask, low, loc, |rw, a| {
            Ok(ar(rw, "arith.maximumf", &[a[1], a[0]], elem, loc))
        })?)
    } else {
        None
    };
    let unsigned = crate::intq_ops::result_unsigned(rw, op, 0);
    if unsigned && kind == Kind::L1 {
        return Err("ReduceL1 of unsigned integers is not lowered".to_string());
    }
    let (max, min) = if unsigned {
        ("arith.maxui", "arith.minui")
    } else {
        ("arith.maxsi", "arith.minsi")
    };
    let init = match kind {
        Kind::Max if unsigned => {
            crate::intq_ops::unsigned_extreme(rw, elem, true).ok_or("no lowest value")?
        }
        Kind::Min if unsigned => {
            crate::intq_ops::unsigned_extreme(rw, elem, false).ok_or("no highest value")?
        }
        Kind::Max => extreme(rw, elem, true).ok_or("no lowest value")?,
        Kind::Min => extreme(rw, elem, false).ok_or("no highest value")?,
        Kind::Prod => scalar_attr(rw, 1.0, elem),
        _ => zero,
    };
    let extra: Vec<Value> = peak.into_iter().collect();
    let r = reduce_dims(rw, x, &extra, &mask, init, loc, |rw, a| {
        let v = a[0];
        let acc = a[a.len() - 1];
        Ok(match kind {
            Kind::Max if float => ar(rw, "arith.maximumf", &[acc, v], elem, loc),
            Kind::Max => ar(rw, max, &[acc, v], elem, loc),
            Kind::Min if float => ar(rw, "arith.minimumf", &[acc, v], elem, loc),
            Kind::Min => ar(rw, min, &[acc, v], elem, loc),
            Kind::Prod => ar(rw, mul, &[acc, v], elem, loc),
            Kind::L1 => {
                let m = if float {
                    math(rw, "math.absf", v, loc)?
                } else {
                    math(rw, "math.absi", v, loc)?
                };
                ar(rw, add, &[acc, m], elem, loc)
            }
            Kind::L2 | Kind::SumSquare => {
                let sq = ar(rw, mul, &[v, v], elem, loc);
                ar(rw, add, &[acc, sq], elem, loc)
            }
            Kind::LogSumExp => {
                let t = ar(rw, "arith.subf", &[v, a[1]], elem, loc);
                let e = math(rw, "math.exp", t, loc)?;
                ar(rw, "arith.addf", &[acc, e], elem, loc)
            }
            Kind::Sum | Kind::Mean | Kind::LogSum => ar(rw, add, &[acc, v], elem, loc),
        })
    })?;
    let ks = kept(&sx, &mask);
    let r = match kind {
        Kind::Mean => elementwise(rw, &[r], &ks, elem, loc, |rw, a| {
            let c = scalar(rw, count as f64, elem, loc);
            Ok(ar(rw, "arith.divf", &[a[0], c], elem, loc))
        })?,
        Kind::L2 => elementwise(rw, &[r], &ks, elem, loc, |rw, a| {
            math(rw, "math.sqrt", a[0], loc)
        })?,
        Kind::LogSum => elementwise(rw, &[r], &ks, elem, loc, |rw, a| {
            math(rw, "math.log", a[0], loc)
        })?,
        Kind::LogSumExp => elementwise(rw, &[r, extra[0]], &ks, elem, loc, |rw, a| {
            let l = math(rw, "math.log", a[0], loc)?;
            Ok(ar(rw, "arith.addf", &[l, a[1]], elem, loc))
        })?,
        _ => r,
    };
    Ok(vec![reshape(rw, r, &out, loc)?])
}

macro_rules! reductions {
    ($($f:ident => $k:ident;)*) => {
        $(pub(crate) fn $f(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
            lower_reduce(rw, op, loc, Kind::$k)
        })*
    };
}

reductions! {
    lower_reduce_sum => Sum;
    lower_reduce_mean => Mean;
    lower_reduce_max => Max;
    lower_reduce_min => Min;
    lower_reduce_prod => Prod;
    lower_reduce_l1 => L1;
    lower_reduce_l2 => L2;
    lower_reduce_log_sum => LogSum;
    lower_reduce_log_sum_exp => LogSumExp;
    lower_reduce_sum_square => SumSquare;
}

/// `ArgMax`/`ArgMin`: the index (`i64`) of the best element along `axis`.
fn lower_arg(rw: &mut PatternRewriter<'_>, op: Op, loc: Location, max: bool) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, elem) = static_type(rw, x)?;
    let (out, oelem) = result_type(rw, op)?;
    let float = is_float(rw, elem);
    if !float && signless_width(rw, elem).is_none_or(|w| w < 2) {
        return Err("expected a float or signless integer tensor".to_string());
    }
    if signless_width(rw, oelem) != Some(64) {
        return Err("expected an i64 result".to_string());
    }
    if sx.is_empty() {
        return Err("ArgMax and ArgMin of a scalar are not lowered".to_string());
    }
    let axis = norm_axis(int_attr(rw, op, "axis", 0), sx.len())?;
    let last = int_attr(rw, op, "select_last_index", 0) != 0;
    let mask: Vec<bool> = (0..sx.len()).map(|i| i == axis).collect();
    let ks = kept(&sx, &mask);
    let unsigned = crate::intq_ops::operand_unsigned(rw, op, 0);
    let start = if unsigned {
        crate::intq_ops::unsigned_extreme(rw, elem, max)
    } else {
        extreme(rw, elem, max)
    }
    .ok_or("no extreme value")?;
    let best = filled_with(rw, start, &ks, elem, loc);
    let zero = rw.uniq().int_attr(oelem, 0);
    let at = filled_with(rw, zero, &ks, oelem, loc);
    let n = sx.len() as u32;
    let iters: Vec<_> = mask.iter().map(|&r| if r { R } else { P }).collect();
    let (fp, ip) = match (max, last) {
        (true, false) => (cmpf::OGT, cmpi_pred::SGT),
        (true, true) => (cmpf::OGE, cmpi_pred::SGE),
        (false, false) => (cmpf::OLT, cmpi_pred::SLT),
        (false, true) => (cmpf::OLE, cmpi_pred::SLE),
    };
    let ip = if unsigned {
        crate::intq_ops::unsigned_pred(ip)
    } else {
        ip
    };
    let r = try_generic(
        rw,
        &[x],
        &[best, at],
        vec![identity(n), kept_map(&mask), kept_map(&mask)],
        &iters,
        loc,
        |rw, a| {
            let better = if float {
                cmpf(rw, fp, a[0], a[1], loc)
            } else {
                cmpi(rw, ip, a[0], a[1], loc)
            };
            let i = linalg_index(rw, axis, loc);
            let i = ar(rw, "arith.index_cast", &[i], oelem, loc);
            let v = ar(rw, "arith.select", &[better, a[0], a[1]], elem, loc);
            let j = ar(rw, "arith.select", &[better, i, a[2]], oelem, loc);
            Ok(vec![v, j])
        },
    )?;
    Ok(vec![reshape(rw, r[1], &out, loc)?])
}

pub(crate) fn lower_arg_max(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    lower_arg(rw, op, loc, true)
}
pub(crate) fn lower_arg_min(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    lower_arg(rw, op, loc, false)
}

/// `LayerNormalization(X, Scale, B?)` over the dimensions from `axis` on: `Y`, and `Mean` and
/// `InvStdDev` when they are used.
pub(crate) fn lower_layer_norm(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (s, elem) = static_type(rw, x)?;
    if !is_float(rw, elem) {
        return Err("expected a float tensor".to_string());
    }
    if s.is_empty() {
        return Err("LayerNormalization of a scalar is not lowered".to_string());
    }
    let axis = norm_axis(int_attr(rw, op, "axis", -1), s.len())?;
    let eps = float_attr(rw, op, "epsilon", 1e-5);
    let scale = operand(rw, op, 1)?;
    let bias = optional_operand(rw, op, 2);
    for v in std::iter::once(scale).chain(bias) {
        let (sv, _) = static_type(rw, v)?;
        if sv.len() > s.len() {
            return Err("the scale or bias has a higher rank than the input".to_string());
        }
    }
    let mask: Vec<bool> = (0..s.len()).map(|i| i >= axis).collect();
    let count: i64 = s[axis..].iter().product();
    let inv_n = 1.0 / count as f64;
    let zero = scalar_attr(rw, 0.0, elem);
    let sum = reduce_dims(rw, x, &[], &mask, zero, loc, |rw, a| {
        Ok(ar(rw, "arith.addf", &[a[1], a[0]], elem, loc))
    })?;
    let dev = reduce_dims(rw, x, &[sum], &mask, zero, loc, |rw, a| {
        let c = scalar(rw, inv_n, elem, loc);
        let mean = ar(rw, "arith.mulf", &[a[1], c], elem, loc);
        let t = ar(rw, "arith.subf", &[a[0], mean], elem, loc);
        let t2 = ar(rw, "arith.mulf", &[t, t], elem, loc);
        Ok(ar(rw, "arith.addf", &[a[2], t2], elem, loc))
    })?;
    let n = s.len() as u32;
    let mut inputs = vec![x, sum, dev, scale];
    let mut maps = vec![identity(n), kept_map(&mask), kept_map(&mask)];
    let (ss, _) = static_type(rw, scale)?;
    maps.push(broadcast_map(&ss, &s));
    if let Some(b) = bias {
        let (sb, _) = static_type(rw, b)?;
        maps.push(broadcast_map(&sb, &s));
        inputs.push(b);
    }
    maps.push(identity(n));
    let init = empty(rw, &s, elem, loc);
    let y = try_generic(
        rw,
        &inputs,
        &[init],
        maps,
        &vec![P; s.len()],
        loc,
        |rw, a| {
            let c = scalar(rw, inv_n, elem, loc);
            let e = scalar(rw, eps, elem, loc);
            let mean = ar(rw, "arith.mulf", &[a[1], c], elem, loc);
            let var = ar(rw, "arith.mulf", &[a[2], c], elem, loc);
            let ve = ar(rw, "arith.addf", &[var, e], elem, loc);
            let sd = math(rw, "math.sqrt", ve, loc)?;
            let t = ar(rw, "arith.subf", &[a[0], mean], elem, loc);
            let q = ar(rw, "arith.divf", &[t, sd], elem, loc);
            let mut y = ar(rw, "arith.mulf", &[q, a[3]], elem, loc);
            if bias.is_some() {
                y = ar(rw, "arith.addf", &[y, a[4]], elem, loc);
            }
            Ok(vec![y])
        },
    )?;
    // Mean and InvStdDev, when the model reads them: over the leading dimensions, then with
    // the normalized dimensions as ones.
    let mut values = vec![y[0]];
    for i in 1..rw.results(op).len() {
        let r = rw.result(op, i);
        if !rw.has_uses(r) {
            values.push(crate::graph_to_linalg::placeholder(rw, r, loc)?);
            continue;
        }
        let (rs, re) = static_type(rw, r)?;
        if re != elem {
            return Err("Mean or InvStdDev of another type than the input is not lowered".into());
        }
        let src = if i == 1 { sum } else { dev };
        let v = elementwise(rw, &[src], &s[..axis], elem, loc, |rw, a| {
            let c = scalar(rw, inv_n, elem, loc);
            let m = ar(rw, "arith.mulf", &[a[0], c], elem, loc);
            if i == 1 {
                return Ok(m);
            }
            let e = scalar(rw, eps, elem, loc);
            let ve = ar(rw, "arith.addf", &[m, e], elem, loc);
            let sd = math(rw, "math.sqrt", ve, loc)?;
            let one = scalar(rw, 1.0, elem, loc);
            Ok(ar(rw, "arith.divf", &[one, sd], elem, loc))
        })?;
        values.push(reshape(rw, v, &rs, loc)?);
    }
    Ok(values)
}
