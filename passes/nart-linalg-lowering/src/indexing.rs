//! Data movement that selects or repeats elements: `Gather`, `Expand`, `Slice`, `Split` and
//! `Pad`.
//!
//! | graph ops | structured form |
//! |---|---|
//! | `Gather` | a parallel `linalg.generic` over the result reading the indices through its map and the data with `tensor.extract` at the index, negative indices wrapped once and then clamped into the axis |
//! | `Expand` | a parallel `linalg.generic` copying the input through a broadcasting map |
//! | `Slice`, `Split` | `tensor.extract_slice` (positive strides), then for negative steps a parallel `linalg.generic` reversing those dimensions (`n - 1 - d`) |
//! | `Pad` (`constant` mode) | `tensor.pad` with the constant value, then a slice for negative pads |
//!
//! Indices, starts, ends, axes, steps, pads and the padding value must be constants except
//! `Gather`'s indices. A constant `Gather` index outside `[-n, n)` is refused at compile time
//! with the index and the axis size; an index computed at run time is clamped into `[0, n)`
//! after wrapping, so no read leaves the data (ONNX leaves such indices undefined).

use nart_dialect_arith::attrs::cmpi as cmpi_pred;
use nart_dialect_linalg::structured::{add, d, identity, map, mul_const};
use nart_dialect_linalg::IteratorType::Parallel as P;
use nart_ir::{AffineExpr, Location, Op, OperationState, PatternRewriter, Value};

use crate::emit::*;
use crate::graph_to_linalg::{int_attr, ints_attr, norm_axis, operand, result_type, string_attr};

/// `Gather(data, indices)` along `axis`.
pub(crate) fn lower_gather(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let data = operand(rw, op, 0)?;
    let idx = operand(rw, op, 1)?;
    let (sd, elem) = static_type(rw, data)?;
    let (si, ielem) = static_type(rw, idx)?;
    let (out, _) = result_type(rw, op)?;
    if sd.is_empty() {
        return Err("Gather from a scalar is not defined".to_string());
    }
    let axis = norm_axis(int_attr(rw, op, "axis", 0), sd.len())?;
    let dim = sd[axis];
    if signless_width(rw, ielem).is_none_or(|w| w < 2) {
        return Err("expected integer indices".to_string());
    }
    if dim == 0 {
        return Err("Gather along an empty axis".to_string());
    }
    if let Some(vals) = constant_ints(rw, idx) {
        if let Some(bad) = vals.iter().find(|&&v| v < -dim || v >= dim) {
            return Err(format!(
                "index {bad} is out of range for axis {axis} of size {dim}"
            ));
        }
    }
    let mut want = sd[..axis].to_vec();
    want.extend(&si);
    want.extend(&sd[axis + 1..]);
    if want != out {
        return Err(format!(
            "the result shape {out:?} is not the gathered shape {want:?}"
        ));
    }
    let (r, q) = (out.len() as u32, si.len() as u32);
    let a = axis as u32;
    let imap = map(r, (a..a + q).map(d).collect());
    let init = empty(rw, &out, elem, loc);
    let y = try_generic(
        rw,
        &[idx],
        &[init],
        vec![imap, identity(r)],
        &vec![P; out.len()],
        loc,
        |rw, v| {
            let i = v[0];
            let zero = scalar(rw, 0.0, ielem, loc);
            let n = scalar(rw, dim as f64, ielem, loc);
            let top = scalar(rw, (dim - 1) as f64, ielem, loc);
            let neg = cmpi(rw, cmpi_pred::SLT, i, zero, loc);
            let wrapped = ar(rw, "arith.addi", &[i, n], ielem, loc);
            let j = ar(rw, "arith.select", &[neg, wrapped, i], ielem, loc);
            let j = ar(rw, "arith.maxsi", &[j, zero], ielem, loc);
            let j = ar(rw, "arith.minsi", &[j, top], ielem, loc);
            let index = rw.uniq().index_type();
            let j = ar(rw, "arith.index_cast", &[j], index, loc);
            let mut coords = vec![data];
            for k in 0..axis {
                coords.push(linalg_index(rw, k, loc));
            }
            coords.push(j);
            for k in axis + 1..sd.len() {
                coords.push(linalg_index(rw, k - 1 + si.len(), loc));
            }
            let st = OperationState::new(rw.uniq(), "tensor.extract", loc)
                .operands(&coords)
                .results(&[elem]);
            let e = rw.create(st);
            Ok(vec![rw.result(e, 0)])
        },
    )?;
    Ok(vec![y[0]])
}

/// `Expand(x, shape)`: the result type says the shape; `x` broadcast to it.
pub(crate) fn lower_expand(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, elem) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    Ok(vec![elementwise(rw, &[x], &out, elem, loc, |_, a| {
        Ok(a[0])
    })?])
}

/// The elements of `x` at `start[i] + step[i] * j` in each dimension `i`, into a tensor of
/// `out`'s shape: a `tensor.extract_slice` with the positive strides covering the same
/// elements, then, for negative steps, a `linalg.generic` reversing those dimensions.
pub(crate) fn strided_copy(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    start: &[i64],
    step: &[i64],
    out: &[i64],
    loc: Location,
) -> Result<Value, String> {
    let (sx, elem) = static_type(rw, x)?;
    let r = out.len();
    let first: Vec<i64> = (0..r)
        .map(|i| {
            if step[i] < 0 && out[i] > 0 {
                start[i] + (out[i] - 1) * step[i]
            } else {
                start[i]
            }
        })
        .collect();
    let stride: Vec<i64> = step.iter().map(|t| t.abs()).collect();
    let whole = first.iter().all(|&f| f == 0) && stride.iter().all(|&t| t == 1) && sx == out;
    let y = if whole {
        x
    } else {
        let ty = rw.uniq().tensor_type(out.to_vec(), elem);
        let (o, sz, st) = (
            nart_dialect_tensor::util::dense_i64(rw.uniq(), &first),
            nart_dialect_tensor::util::dense_i64(rw.uniq(), out),
            nart_dialect_tensor::util::dense_i64(rw.uniq(), &stride),
        );
        let seg = nart_dialect_tensor::syntax::segment_sizes(rw.uniq(), &[1, 0, 0, 0]);
        let state = OperationState::new(rw.uniq(), "tensor.extract_slice", loc)
            .operands(&[x])
            .results(&[ty])
            .prop(rw.uniq(), "static_offsets", o)
            .prop(rw.uniq(), "static_sizes", sz)
            .prop(rw.uniq(), "static_strides", st)
            .prop(rw.uniq(), "operandSegmentSizes", seg);
        let e = rw.create(state);
        rw.result(e, 0)
    };
    if (0..r).all(|i| step[i] > 0 || out[i] <= 1) {
        return Ok(y);
    }
    let n = r as u32;
    let exprs = (0..n)
        .map(|i| {
            let k = i as usize;
            if step[k] < 0 && out[k] > 1 {
                add(mul_const(d(i), -1), AffineExpr::Const(out[k] - 1))
            } else {
                d(i)
            }
        })
        .collect();
    let init = empty(rw, out, elem, loc);
    let v = try_generic(
        rw,
        &[y],
        &[init],
        vec![map(n, exprs), identity(n)],
        &vec![P; r],
        loc,
        |_, a| Ok(vec![a[0]]),
    )?;
    Ok(v[0])
}

/// A constant operand or, when absent, an attribute (older opsets) of integers.
fn ints_input(
    rw: &PatternRewriter<'_>,
    op: Op,
    i: usize,
    attr: &str,
) -> Result<Option<Vec<i64>>, String> {
    match optional_operand(rw, op, i) {
        Some(v) => constant_ints(rw, v)
            .map(Some)
            .ok_or_else(|| format!("the {attr} are not a constant")),
        None => Ok(ints_attr(rw, op, attr)),
    }
}

/// `Slice(x, starts, ends, axes?, steps?)` with constant starts, ends, axes and steps,
/// clamped as ONNX says.
pub(crate) fn lower_slice(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    let (out, _) = result_type(rw, op)?;
    let starts = ints_input(rw, op, 1, "starts")?.ok_or("expected starts")?;
    let ends = ints_input(rw, op, 2, "ends")?.ok_or("expected ends")?;
    let axes = ints_input(rw, op, 3, "axes")?.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = ints_input(rw, op, 4, "steps")?.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps differ in length".to_string());
    }
    let r = sx.len();
    let mut start = vec![0; r];
    let mut step = vec![1; r];
    let mut size = sx.clone();
    for k in 0..starts.len() {
        let a = norm_axis(axes[k], r)?;
        let (n, t) = (sx[a], steps[k]);
        if t == 0 {
            return Err("a slice step is 0".to_string());
        }
        let wrap = |v: i64| if v < 0 { v.saturating_add(n) } else { v };
        let (mut s, mut e) = (wrap(starts[k]), wrap(ends[k]));
        if t > 0 {
            s = s.clamp(0, n);
            e = e.clamp(0, n);
        } else {
            s = s.clamp(0, (n - 1).max(0));
            e = e.clamp(-1, (n - 1).max(0));
        }
        let len = if t > 0 {
            (e - s + t - 1).div_euclid(t)
        } else {
            (s - e + (-t) - 1).div_euclid(-t)
        };
        start[a] = s;
        step[a] = t;
        size[a] = len.max(0);
    }
    if size != out {
        return Err(format!(
            "the result shape {out:?} is not the slice's {size:?}"
        ));
    }
    Ok(vec![strided_copy(rw, x, &start, &step, &out, loc)?])
}

/// `Split(x, split?)` along `axis`: the result types say the parts.
pub(crate) fn lower_split(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    let axis = norm_axis(int_attr(rw, op, "axis", 0), sx.len())?;
    let mut at = 0;
    let mut values = Vec::new();
    for k in 0..rw.results(op).len() {
        let r = rw.result(op, k);
        let (sr, _) = static_type(rw, r)?;
        let mut start = vec![0; sx.len()];
        start[axis] = at;
        at += sr[axis];
        if at > sx[axis] {
            return Err("the parts are larger than the input".to_string());
        }
        values.push(strided_copy(rw, x, &start, &vec![1; sx.len()], &sr, loc)?);
    }
    Ok(values)
}

/// The low and high pads of each dimension of `Pad(x, pads, _, axes?)` in any mode (constant
/// pads and axes; negative pads crop), checked against the result shape `out`.
pub(crate) fn pad_amounts(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    sx: &[i64],
    out: &[i64],
) -> Result<(Vec<i64>, Vec<i64>), String> {
    let r = sx.len();
    let pads = ints_input(rw, op, 1, "pads")?.ok_or("expected pads")?;
    let axes = match optional_operand(rw, op, 3) {
        Some(v) => constant_ints(rw, v).ok_or("the axes are not a constant")?,
        None => (0..r as i64).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!(
            "expected {} pads, got {}",
            2 * axes.len(),
            pads.len()
        ));
    }
    let (mut low, mut high) = (vec![0; r], vec![0; r]);
    for (k, &a) in axes.iter().enumerate() {
        let a = norm_axis(a, r)?;
        low[a] = pads[k];
        high[a] = pads[k + axes.len()];
    }
    let want: Vec<i64> = (0..r).map(|i| sx[i] + low[i] + high[i]).collect();
    if want != out {
        return Err(format!(
            "the result shape {out:?} is not the padded {want:?}"
        ));
    }
    Ok((low, high))
}

/// `Pad(x, pads, constant_value?, axes?)` in `constant` mode; negative pads crop.
pub(crate) fn lower_pad(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    match string_attr(rw, op, "mode") {
        None | Some("constant") => {}
        Some(m @ ("reflect" | "edge" | "wrap")) => {
            let m = m.to_string();
            return crate::keya_ops::lower_pad_mode(rw, op, loc, &m);
        }
        Some(m) => return Err(format!("mode = \"{m}\" is not lowered")),
    }
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    let (out, _) = result_type(rw, op)?;
    let r = sx.len();
    let (low, high) = pad_amounts(rw, op, &sx, &out)?;
    let value = match optional_operand(rw, op, 2) {
        Some(v) => constant_scalar(rw, v).ok_or("the padding value is not a constant")?,
        None => float_value(rw, op),
    };
    let (lo_pos, hi_pos): (Vec<i64>, Vec<i64>) = (
        low.iter().map(|&p| p.max(0)).collect(),
        high.iter().map(|&p| p.max(0)).collect(),
    );
    let padded = pad(rw, x, &lo_pos, &hi_pos, value, loc)?;
    if low.iter().chain(&high).all(|&p| p >= 0) {
        return Ok(vec![padded]);
    }
    let start: Vec<i64> = low.iter().map(|&p| (-p).max(0)).collect();
    Ok(vec![strided_copy(
        rw,
        padded,
        &start,
        &vec![1; r],
        &out,
        loc,
    )?])
}

/// The `value` attribute of an older `Pad`, 0 by default.
fn float_value(rw: &PatternRewriter<'_>, op: Op) -> f64 {
    rw.attr(op, "value")
        .and_then(|a| rw.attr_float(a))
        .unwrap_or(0.0)
}
