//! Indexing: Gather, GatherElements, GatherND, ScatterElements, ScatterND, TensorScatter,
//! Compress, ReverseSequence, Unique, NonZero, NonMaxSuppression.

use std::cmp::Ordering;

use crate::layout::{norm_axis, outer_axis_inner, strides, unravel};
use crate::tensor::{numel, Data};
use crate::{DType, KernelError, Result, Tensor};

fn check_index(op: &'static str, v: i64, n: usize) -> Result<usize> {
    let a = if v < 0 { v + n as i64 } else { v };
    if a < 0 || a >= n as i64 {
        return Err(KernelError::IndexOutOfRange {
            op,
            index: v,
            size: n,
        });
    }
    Ok(a as usize)
}

fn int_indices(op: &'static str, t: &Tensor) -> Result<Vec<i64>> {
    if !matches!(t.dtype(), DType::I32 | DType::I64) {
        return Err(KernelError::dtype(op, t.dtype()));
    }
    t.to_i64_vec()
}

/// ONNX Gather along `axis`; output shape is `data[:axis] + indices + data[axis+1:]`.
pub fn gather(data: &Tensor, indices: &Tensor, axis: i64) -> Result<Tensor> {
    const OP: &str = "Gather";
    let s = data.shape();
    let ax = norm_axis(OP, axis, s.len())?;
    let idx = int_indices(OP, indices)?;
    let n = s[ax];
    let idx: Vec<usize> = idx
        .iter()
        .map(|&v| check_index(OP, v, n))
        .collect::<Result<_>>()?;
    let outer = numel(&s[..ax]);
    let inner = numel(&s[ax + 1..]);
    let mut map = Vec::with_capacity(outer * idx.len() * inner);
    for o in 0..outer {
        for &k in &idx {
            map.extend((0..inner).map(|i| (o * n + k) * inner + i));
        }
    }
    let mut shape = s[..ax].to_vec();
    shape.extend(indices.shape());
    shape.extend(&s[ax + 1..]);
    Tensor::new(data.dtype(), shape, data.data().take(&map))
}

/// ONNX GatherElements: `out[i][j][k] = data[index[i][j][k]][j][k]` for axis 0, and so on.
pub fn gather_elements(data: &Tensor, indices: &Tensor, axis: i64) -> Result<Tensor> {
    const OP: &str = "GatherElements";
    let s = data.shape();
    let ax = norm_axis(OP, axis, s.len())?;
    let is = indices.shape();
    if is.len() != s.len() || (0..s.len()).any(|d| d != ax && is[d] > s[d]) {
        return Err(KernelError::shape(
            OP,
            format!("indices {is:?} do not fit data {s:?}"),
        ));
    }
    let idx = int_indices(OP, indices)?;
    let st = strides(s);
    let mut m = vec![0; s.len()];
    let map = (0..idx.len())
        .map(|p| {
            unravel(p, is, &mut m);
            m[ax] = check_index(OP, idx[p], s[ax])?;
            Ok(m.iter().zip(&st).map(|(a, b)| a * b).sum())
        })
        .collect::<Result<Vec<usize>>>()?;
    Tensor::new(data.dtype(), is.to_vec(), data.data().take(&map))
}

/// ONNX GatherND with `batch_dims`.
pub fn gather_nd(data: &Tensor, indices: &Tensor, batch_dims: usize) -> Result<Tensor> {
    const OP: &str = "GatherND";
    let s = data.shape();
    let is = indices.shape();
    let b = batch_dims;
    if is.is_empty() || b >= is.len() || b > s.len() || s[..b] != is[..b] {
        return Err(KernelError::shape(
            OP,
            format!("indices {is:?} with batch_dims {b} do not fit data {s:?}"),
        ));
    }
    let q = is[is.len() - 1];
    if b + q > s.len() {
        return Err(KernelError::shape(
            OP,
            format!("index depth {q} too large for data {s:?}"),
        ));
    }
    let idx = int_indices(OP, indices)?;
    let nbatch = numel(&s[..b]);
    let slice_shape = &s[b + q..];
    let slice = numel(slice_shape);
    let per_batch_data = numel(&s[b..]);
    let st = strides(&s[b..]);
    let tuples = numel(&is[..is.len() - 1]);
    let per_batch_tuples = tuples.checked_div(nbatch).unwrap_or(0);
    let mut map = Vec::with_capacity(tuples * slice);
    for t in 0..tuples {
        let batch = t.checked_div(per_batch_tuples).unwrap_or(0);
        let mut off = batch * per_batch_data;
        for j in 0..q {
            off += check_index(OP, idx[t * q + j], s[b + j])? * st[j];
        }
        map.extend(off..off + slice);
    }
    let mut shape = is[..is.len() - 1].to_vec();
    shape.extend(slice_shape);
    Tensor::new(data.dtype(), shape, data.data().take(&map))
}

/// ScatterElements / ScatterND reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScatterReduction {
    /// Overwrite.
    #[default]
    None,
    /// Add.
    Add,
    /// Multiply.
    Mul,
    /// Keep the maximum.
    Max,
    /// Keep the minimum.
    Min,
}

fn scatter_apply(
    op: &'static str,
    data: &Tensor,
    targets: &[usize],
    updates: &Tensor,
    red: ScatterReduction,
) -> Result<Tensor> {
    if updates.dtype() != data.dtype() {
        return Err(KernelError::DTypeMismatch {
            op,
            a: data.dtype(),
            b: updates.dtype(),
        });
    }
    if red == ScatterReduction::None {
        let mut d = data.data().clone();
        d.scatter(targets, updates.data());
        return Tensor::new(data.dtype(), data.shape().to_vec(), d);
    }
    let combine = |a: f64, b: f64| match red {
        ScatterReduction::Add => a + b,
        ScatterReduction::Mul => a * b,
        ScatterReduction::Max => a.max(b),
        ScatterReduction::Min => a.min(b),
        ScatterReduction::None => b,
    };
    if data.dtype().is_int() {
        let mut d = data.to_i128_vec()?;
        let u = updates.to_i128_vec()?;
        for (k, &t) in targets.iter().enumerate() {
            d[t] = match red {
                ScatterReduction::Add => d[t].wrapping_add(u[k]),
                ScatterReduction::Mul => d[t].wrapping_mul(u[k]),
                ScatterReduction::Max => d[t].max(u[k]),
                ScatterReduction::Min => d[t].min(u[k]),
                ScatterReduction::None => u[k],
            };
        }
        return Tensor::from_i128(data.dtype(), data.shape().to_vec(), d);
    }
    if !data.dtype().is_float() {
        return Err(KernelError::dtype(op, data.dtype()));
    }
    let mut d = data.to_f64_vec()?;
    let u = updates.to_f64_vec()?;
    for (k, &t) in targets.iter().enumerate() {
        d[t] = combine(d[t], u[k]);
    }
    Tensor::from_f64(data.dtype(), data.shape().to_vec(), d)
}

/// ONNX ScatterElements along `axis` with an optional reduction.
pub fn scatter_elements(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: i64,
    reduction: ScatterReduction,
) -> Result<Tensor> {
    const OP: &str = "ScatterElements";
    let s = data.shape();
    let ax = norm_axis(OP, axis, s.len())?;
    let is = indices.shape();
    if is != updates.shape() || is.len() != s.len() || (0..s.len()).any(|d| d != ax && is[d] > s[d])
    {
        return Err(KernelError::shape(
            OP,
            format!(
                "indices {is:?} / updates {:?} do not fit data {s:?}",
                updates.shape()
            ),
        ));
    }
    let idx = int_indices(OP, indices)?;
    let st = strides(s);
    let mut m = vec![0; s.len()];
    let targets = (0..idx.len())
        .map(|p| {
            unravel(p, is, &mut m);
            m[ax] = check_index(OP, idx[p], s[ax])?;
            Ok(m.iter().zip(&st).map(|(a, b)| a * b).sum())
        })
        .collect::<Result<Vec<usize>>>()?;
    scatter_apply(OP, data, &targets, updates, reduction)
}

/// ONNX ScatterND with an optional reduction.
pub fn scatter_nd(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    reduction: ScatterReduction,
) -> Result<Tensor> {
    const OP: &str = "ScatterND";
    let s = data.shape();
    let is = indices.shape();
    if is.is_empty() {
        return Err(KernelError::shape(OP, "indices must have rank >= 1"));
    }
    let q = is[is.len() - 1];
    if q > s.len() {
        return Err(KernelError::shape(
            OP,
            format!("index depth {q} too large for data {s:?}"),
        ));
    }
    let mut want = is[..is.len() - 1].to_vec();
    want.extend(&s[q..]);
    if updates.shape() != want.as_slice() {
        return Err(KernelError::shape(
            OP,
            format!("updates {:?} must be {want:?}", updates.shape()),
        ));
    }
    let idx = int_indices(OP, indices)?;
    let st = strides(s);
    let slice = numel(&s[q..]);
    let tuples = numel(&is[..is.len() - 1]);
    let mut targets = Vec::with_capacity(tuples * slice);
    for t in 0..tuples {
        let mut off = 0;
        for j in 0..q {
            off += check_index(OP, idx[t * q + j], s[j])? * st[j];
        }
        targets.extend(off..off + slice);
    }
    scatter_apply(OP, data, &targets, updates, reduction)
}

/// ONNX Compress: keeps the slices along `axis` (or of the flattened input) where `condition` is true.
pub fn compress(x: &Tensor, condition: &Tensor, axis: Option<i64>) -> Result<Tensor> {
    const OP: &str = "Compress";
    let cond = condition.to_bool_vec()?;
    let flat;
    let (src, ax) = match axis {
        Some(a) => (x, norm_axis(OP, a, x.rank())?),
        None => {
            flat = x.reshaped(vec![x.len()])?;
            (&flat, 0)
        }
    };
    let s = src.shape();
    if cond.len() > s[ax] {
        return Err(KernelError::shape(
            OP,
            format!("condition has {} entries for axis of {}", cond.len(), s[ax]),
        ));
    }
    let keep: Vec<i64> = cond
        .iter()
        .enumerate()
        .filter(|(_, &c)| c)
        .map(|(i, _)| i as i64)
        .collect();
    gather(src, &Tensor::vector(keep), ax as i64)
}

/// ONNX ReverseSequence: reverses the first `sequence_lens[b]` elements along `time_axis` for each batch `b`.
pub fn reverse_sequence(
    x: &Tensor,
    sequence_lens: &Tensor,
    batch_axis: usize,
    time_axis: usize,
) -> Result<Tensor> {
    const OP: &str = "ReverseSequence";
    let s = x.shape();
    if s.len() < 2 || batch_axis > 1 || time_axis > 1 || batch_axis == time_axis {
        return Err(KernelError::attr(
            OP,
            "time_axis",
            "batch_axis and time_axis must be 0 and 1 in some order",
        ));
    }
    let lens = sequence_lens.to_i64_vec()?;
    if lens.len() != s[batch_axis] {
        return Err(KernelError::shape(
            OP,
            "sequence_lens must have one entry per batch",
        ));
    }
    let st = strides(s);
    let mut m = vec![0; s.len()];
    let map = (0..x.len())
        .map(|p| {
            unravel(p, s, &mut m);
            let l = lens[m[batch_axis]];
            if l < 0 || l as usize > s[time_axis] {
                return Err(KernelError::IndexOutOfRange {
                    op: OP,
                    index: l,
                    size: s[time_axis],
                });
            }
            let t = m[time_axis];
            if t < l as usize {
                m[time_axis] = l as usize - 1 - t;
            }
            Ok(m.iter().zip(&st).map(|(a, b)| a * b).sum())
        })
        .collect::<Result<Vec<usize>>>()?;
    Tensor::new(x.dtype(), s.to_vec(), x.data().take(&map))
}

/// ONNX TensorScatter: writes `update` into a copy of the KV cache `past_cache` along `axis`
/// (not the batch axis), starting for batch entry `b` at `write_indices[b]` (default 0);
/// `circular` wraps positions around the cache length instead of rejecting them.
pub fn tensor_scatter(
    past_cache: &Tensor,
    update: &Tensor,
    write_indices: Option<&Tensor>,
    axis: i64,
    circular: bool,
) -> Result<Tensor> {
    const OP: &str = "TensorScatter";
    let cs = past_cache.shape();
    let us = update.shape();
    if cs.len() != us.len() || cs.is_empty() {
        return Err(KernelError::shape(
            OP,
            "past_cache and update must have the same rank",
        ));
    }
    if past_cache.dtype() != update.dtype() {
        return Err(KernelError::DTypeMismatch {
            op: OP,
            a: past_cache.dtype(),
            b: update.dtype(),
        });
    }
    let ax = norm_axis(OP, axis, cs.len())?;
    if ax == 0 {
        return Err(KernelError::attr(OP, "axis", "must not be the batch axis"));
    }
    if (0..cs.len()).any(|d| (d != ax && cs[d] != us[d]) || (d == ax && us[d] > cs[d])) {
        return Err(KernelError::shape(
            OP,
            format!("update {us:?} does not fit past_cache {cs:?}"),
        ));
    }
    let writes = match write_indices {
        Some(w) => w.to_i64_vec()?,
        None => vec![0; cs[0]],
    };
    let (outer, max_len, inner) = outer_axis_inner(cs, ax);
    let per_batch = (outer / cs[0].max(1)).max(1);
    let mut dst = Vec::with_capacity(update.len());
    for o in 0..outer {
        let start = writes.get(o / per_batch).copied().unwrap_or(0);
        for s in 0..us[ax] {
            let mut pos = start + s as i64;
            if circular {
                pos = pos.rem_euclid(max_len as i64);
            }
            if pos < 0 || pos as usize >= max_len {
                return Err(KernelError::shape(
                    OP,
                    format!("write position {pos} is outside the cache of length {max_len}"),
                ));
            }
            let base = (o * max_len + pos as usize) * inner;
            dst.extend(base..base + inner);
        }
    }
    let mut out = past_cache.data().clone();
    out.scatter(&dst, update.data());
    Tensor::new(past_cache.dtype(), cs.to_vec(), out)
}

/// Outputs of Unique.
#[derive(Clone, Debug, PartialEq)]
pub struct UniqueOutputs {
    /// The distinct elements (or slices along the axis).
    pub y: Tensor,
    /// Where each of them first occurs in the input.
    pub indices: Tensor,
    /// For each input element (or slice), its position in `y`.
    pub inverse_indices: Tensor,
    /// How often each of them occurs.
    pub counts: Tensor,
}

/// A sort key for one element, numeric or string.
#[derive(Clone, PartialEq, PartialOrd)]
enum Key {
    Num(f64),
    Str(String),
}

/// ONNX Unique: the distinct elements of the flattened `x`, or the distinct slices along `axis`,
/// in ascending order when `sorted`, else in order of first occurrence.
pub fn unique(x: &Tensor, axis: Option<i64>, sorted: bool) -> Result<UniqueOutputs> {
    let (src, ax) = match axis {
        Some(a) => (x.clone(), norm_axis("Unique", a, x.rank())?),
        None => (x.reshaped(vec![x.len()])?, 0),
    };
    let (outer, len, inner) = outer_axis_inner(src.shape(), ax);
    let keys: Vec<Key> = match src.data() {
        Data::Str(v) => v.iter().cloned().map(Key::Str).collect(),
        _ => src.to_f64_vec()?.into_iter().map(Key::Num).collect(),
    };
    let slice_key = |j: usize| -> Vec<Key> {
        (0..outer)
            .flat_map(|o| (0..inner).map(move |k| (o * len + j) * inner + k))
            .map(|f| keys[f].clone())
            .collect()
    };
    let all: Vec<Vec<Key>> = (0..len).map(slice_key).collect();
    // Distinct slices in order of first occurrence.
    let mut first: Vec<usize> = Vec::new();
    let mut inverse = vec![0usize; len];
    let mut counts: Vec<i64> = Vec::new();
    for j in 0..len {
        match first.iter().position(|&f| all[f] == all[j]) {
            Some(u) => {
                inverse[j] = u;
                counts[u] += 1;
            }
            None => {
                inverse[j] = first.len();
                first.push(j);
                counts.push(1);
            }
        }
    }
    let mut order: Vec<usize> = (0..first.len()).collect();
    if sorted {
        order.sort_by(|&a, &b| {
            all[first[a]]
                .partial_cmp(&all[first[b]])
                .unwrap_or(Ordering::Equal)
        });
    }
    let mut rank = vec![0usize; order.len()];
    for (r, &u) in order.iter().enumerate() {
        rank[u] = r;
    }
    let idx: Vec<i64> = order.iter().map(|&u| first[u] as i64).collect();
    let y = gather(&src, &Tensor::vector(idx.clone()), ax as i64)?;
    Ok(UniqueOutputs {
        y,
        indices: Tensor::vector(idx),
        inverse_indices: Tensor::vector(inverse.iter().map(|&u| rank[u] as i64).collect()),
        counts: Tensor::vector(order.iter().map(|&u| counts[u]).collect()),
    })
}

/// ONNX NonZero: int64 `[rank, count]` coordinates of the nonzero elements, row-major order.
pub fn non_zero(x: &Tensor) -> Result<Tensor> {
    let nz = x.to_bool_vec()?;
    let s = x.shape();
    let r = s.len();
    let hits: Vec<usize> = nz
        .iter()
        .enumerate()
        .filter(|(_, &b)| b)
        .map(|(i, _)| i)
        .collect();
    let mut out = vec![0i64; r * hits.len()];
    let mut m = vec![0; r];
    for (k, &h) in hits.iter().enumerate() {
        unravel(h, s, &mut m);
        for d in 0..r {
            out[d * hits.len() + k] = m[d] as i64;
        }
    }
    Tensor::from_vec(vec![r, hits.len()], out)
}

/// Attributes and scalar inputs of NonMaxSuppression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NmsAttrs {
    /// Boxes are `[x_center, y_center, width, height]` instead of corners.
    pub center_point_box: bool,
    /// Maximum boxes kept per batch and class (0 keeps none).
    pub max_output_boxes_per_class: i64,
    /// Suppress boxes whose IoU with a kept box exceeds this.
    pub iou_threshold: f32,
    /// Drop boxes scoring at or below this (`None`: keep all).
    pub score_threshold: Option<f32>,
}

/// ONNX NonMaxSuppression: boxes `[B, N, 4]`, scores `[B, C, N]`; returns int64 `[k, 3]` of (batch, class, box).
pub fn non_max_suppression(boxes: &Tensor, scores: &Tensor, a: NmsAttrs) -> Result<Tensor> {
    const OP: &str = "NonMaxSuppression";
    let (bs, ss) = (boxes.shape(), scores.shape());
    if bs.len() != 3 || bs[2] != 4 || ss.len() != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
        return Err(KernelError::shape(
            OP,
            format!("boxes {bs:?} and scores {ss:?} disagree"),
        ));
    }
    let (nb, nc, n) = (ss[0], ss[1], ss[2]);
    let bv = boxes.to_f64_vec()?;
    let sv = scores.to_f64_vec()?;
    let corners = |b: usize, i: usize| -> [f64; 4] {
        let p = &bv[(b * n + i) * 4..(b * n + i) * 4 + 4];
        if a.center_point_box {
            [
                p[0] - p[2] / 2.0,
                p[1] - p[3] / 2.0,
                p[0] + p[2] / 2.0,
                p[1] + p[3] / 2.0,
            ]
        } else {
            // Corners may come in any order: [y1, x1, y2, x2].
            [
                p[1].min(p[3]),
                p[0].min(p[2]),
                p[1].max(p[3]),
                p[0].max(p[2]),
            ]
        }
    };
    let iou = |p: [f64; 4], q: [f64; 4]| -> f64 {
        let w = (p[2].min(q[2]) - p[0].max(q[0])).max(0.0);
        let h = (p[3].min(q[3]) - p[1].max(q[1])).max(0.0);
        let inter = w * h;
        let union = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter;
        if union <= 0.0 {
            0.0
        } else {
            inter / union
        }
    };
    let max_out = a.max_output_boxes_per_class.max(0) as usize;
    let mut out = vec![];
    for b in 0..nb {
        for c in 0..nc {
            let sc = &sv[(b * nc + c) * n..(b * nc + c + 1) * n];
            let mut cand: Vec<usize> = (0..n)
                .filter(|&i| a.score_threshold.is_none_or(|t| sc[i] > t as f64))
                .collect();
            cand.sort_by(|&p, &q| {
                sc[q]
                    .partial_cmp(&sc[p])
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(p.cmp(&q))
            });
            let mut kept: Vec<usize> = vec![];
            for i in cand {
                if kept.len() >= max_out {
                    break;
                }
                if kept
                    .iter()
                    .all(|&k| iou(corners(b, k), corners(b, i)) <= a.iou_threshold as f64)
                {
                    kept.push(i);
                }
            }
            for k in kept {
                out.extend([b as i64, c as i64, k as i64]);
            }
        }
    }
    let k = out.len() / 3;
    Tensor::from_vec(vec![k, 3], out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::ar;

    fn i64s(shape: &[usize], v: &[i64]) -> Tensor {
        Tensor::from_vec(shape.to_vec(), v.to_vec()).unwrap()
    }

    #[test]
    fn gathers() {
        let x = ar(&[3, 2]);
        let g = gather(&x, &i64s(&[2, 2], &[0, 1, 1, 2]), 0).unwrap();
        assert_eq!(g.shape(), &[2, 2, 2]);
        assert_eq!(
            g.to_f32_vec().unwrap(),
            vec![0., 1., 2., 3., 2., 3., 4., 5.]
        );
        let g = gather(&x, &Tensor::scalar(-1i64), 1).unwrap();
        assert_eq!(g.shape(), &[3]);
        assert_eq!(g.to_f32_vec().unwrap(), vec![1., 3., 5.]);
        assert!(gather(&x, &Tensor::scalar(3i64), 0).is_err());
        // ONNX GatherElements doc: data [[1,2],[3,4]], indices [[0,0],[1,0]], axis 1 -> [[1,1],[4,3]]
        let d = Tensor::from_vec(vec![2, 2], vec![1f32, 2., 3., 4.]).unwrap();
        let g = gather_elements(&d, &i64s(&[2, 2], &[0, 0, 1, 0]), 1).unwrap();
        assert_eq!(g.to_f32_vec().unwrap(), vec![1., 1., 4., 3.]);
        // GatherND doc example 5: batch_dims 1, data [[[0,1],[2,3]],[[4,5],[6,7]]], indices [[1],[0]] -> [[2,3],[4,5]]
        let d = ar(&[2, 2, 2]);
        let g = gather_nd(&d, &i64s(&[2, 1], &[1, 0]), 1).unwrap();
        assert_eq!(g.shape(), &[2, 2]);
        assert_eq!(g.to_f32_vec().unwrap(), vec![2., 3., 4., 5.]);
        // Example 2: indices [[1],[0]] on [[0,1],[2,3]] -> [[2,3],[0,1]]
        let g = gather_nd(&ar(&[2, 2]), &i64s(&[2, 1], &[1, 0]), 0).unwrap();
        assert_eq!(g.to_f32_vec().unwrap(), vec![2., 3., 0., 1.]);
        let g = gather_nd(&ar(&[2, 2]), &i64s(&[2, 2], &[0, 0, 1, 1]), 0).unwrap();
        assert_eq!(g.to_f32_vec().unwrap(), vec![0., 3.]);
    }

    #[test]
    fn scatters() {
        // ONNX ScatterElements doc: data [[1,2,3,4,5]], indices [[1,3]], updates [[1.1,2.1]], axis 1
        let d = Tensor::from_vec(vec![1, 5], vec![1f32, 2., 3., 4., 5.]).unwrap();
        let u = Tensor::from_vec(vec![1, 2], vec![1.1f32, 2.1]).unwrap();
        let y =
            scatter_elements(&d, &i64s(&[1, 2], &[1, 3]), &u, 1, ScatterReduction::None).unwrap();
        assert_eq!(y.to_f32_vec().unwrap(), vec![1., 1.1, 3., 2.1, 5.]);
        let y =
            scatter_elements(&d, &i64s(&[1, 2], &[1, 1]), &u, 1, ScatterReduction::Add).unwrap();
        assert_eq!(y.to_f32_vec().unwrap(), vec![1., 5.2, 3., 4., 5.]);
        // ScatterND doc (example 1): data [1..8], indices [[4],[3],[1],[7]], updates [9,10,11,12]
        let d = Tensor::vector((1..=8).map(|v| v as f32).collect());
        let u = Tensor::vector(vec![9f32, 10., 11., 12.]);
        let y = scatter_nd(
            &d,
            &i64s(&[4, 1], &[4, 3, 1, 7]),
            &u,
            ScatterReduction::None,
        )
        .unwrap();
        assert_eq!(
            y.to_f32_vec().unwrap(),
            vec![1., 11., 3., 10., 9., 6., 7., 12.]
        );
        let y = scatter_nd(&d, &i64s(&[4, 1], &[4, 3, 1, 7]), &u, ScatterReduction::Mul).unwrap();
        assert_eq!(
            y.to_f32_vec().unwrap(),
            vec![1., 22., 3., 40., 45., 6., 7., 96.]
        );
        assert!(scatter_nd(
            &d,
            &i64s(&[1, 1], &[8]),
            &Tensor::vector(vec![1f32]),
            ScatterReduction::None
        )
        .is_err());
    }

    #[test]
    fn compress_and_reverse() {
        // ONNX Compress doc: [[1,2],[3,4],[5,6]], condition [0,1,1], axis 0 -> [[3,4],[5,6]]
        let x = Tensor::from_vec(vec![3, 2], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
        let c = Tensor::vector(vec![false, true, true]);
        assert_eq!(
            compress(&x, &c, Some(0)).unwrap().to_f32_vec().unwrap(),
            vec![3., 4., 5., 6.]
        );
        assert_eq!(
            compress(&x, &c, None).unwrap().to_f32_vec().unwrap(),
            vec![2., 3.]
        );
        // ReverseSequence doc (batch_axis 1, time_axis 0): lens [4,3,2,1] on 4x4 arange.
        let x = ar(&[4, 4]);
        let y = reverse_sequence(&x, &Tensor::vector(vec![4i64, 3, 2, 1]), 1, 0).unwrap();
        assert_eq!(
            y.to_f32_vec().unwrap(),
            vec![12., 9., 6., 3., 8., 5., 2., 7., 4., 1., 10., 11., 0., 13., 14., 15.]
        );
    }

    #[test]
    fn nonzero_and_nms() {
        let x = Tensor::from_vec(vec![2, 2], vec![1i32, 0, 1, 1]).unwrap();
        let nz = non_zero(&x).unwrap();
        assert_eq!(nz.shape(), &[2, 3]);
        assert_eq!(nz.as_i64().unwrap(), &[0, 1, 1, 0, 0, 1]);
        // ONNX nonmaxsuppression_suppress_by_IOU: 6 boxes, max 3, iou 0.5, score 0 -> boxes 3, 0, 5
        let boxes = Tensor::from_vec(
            vec![1, 6, 4],
            vec![
                0.0f32, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, -0.1, 1.0, 0.9, 0.0, 10.0, 1.0,
                11.0, 0.0, 10.1, 1.0, 11.1, 0.0, 100.0, 1.0, 101.0,
            ],
        )
        .unwrap();
        let scores =
            Tensor::from_vec(vec![1, 1, 6], vec![0.9f32, 0.75, 0.6, 0.95, 0.5, 0.3]).unwrap();
        let attrs = NmsAttrs {
            center_point_box: false,
            max_output_boxes_per_class: 3,
            iou_threshold: 0.5,
            score_threshold: Some(0.0),
        };
        let y = non_max_suppression(&boxes, &scores, attrs).unwrap();
        assert_eq!(y.as_i64().unwrap(), &[0, 0, 3, 0, 0, 0, 0, 0, 5]);
    }

    #[test]
    fn tensor_scatter_linear_and_circular() {
        // Cache [1, 4, 1] (batch, seq, feature); write two entries at position 3.
        let cache = ar(&[1, 4, 1]);
        let upd = Tensor::from_vec(vec![1, 2, 1], vec![10.0f32, 20.0]).unwrap();
        let at3 = Tensor::vector(vec![3i64]);
        assert!(tensor_scatter(&cache, &upd, Some(&at3), 1, false).is_err());
        let y = tensor_scatter(&cache, &upd, Some(&at3), 1, true).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[20.0, 1.0, 2.0, 10.0]);
        let y = tensor_scatter(&cache, &upd, None, -2, false).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[10.0, 20.0, 2.0, 3.0]);
    }

    #[test]
    fn unique_sorted_and_in_order() {
        let x = Tensor::vector(vec![2.0f32, 1.0, 1.0, 3.0, 4.0, 3.0]);
        let u = unique(&x, None, true).unwrap();
        assert_eq!(u.y.as_f32().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(u.indices.as_i64().unwrap(), &[1, 0, 3, 4]);
        assert_eq!(u.inverse_indices.as_i64().unwrap(), &[1, 0, 0, 2, 3, 2]);
        assert_eq!(u.counts.as_i64().unwrap(), &[2, 1, 2, 1]);
        let u = unique(&x, None, false).unwrap();
        assert_eq!(u.y.as_f32().unwrap(), &[2.0, 1.0, 3.0, 4.0]);
    }
}
