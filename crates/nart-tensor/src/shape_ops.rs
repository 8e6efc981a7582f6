//! Data movement and shape operators: Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Expand, Concat,
//! Split, Slice, Tile, Pad, CenterCropPad, DepthToSpace, SpaceToDepth, Shape, Size, Range,
//! ConstantOfShape, Trilu, OneHot, EyeLike.
//!
//! Most of them compute, for each output element, the flat index of the input element it copies,
//! and then gather; this works for every element type, strings included.

use crate::layout::{broadcast_index, broadcast_shapes, norm_axes, norm_axis, strides, unravel};
use crate::tensor::{checked_alloc, checked_numel, elem_bytes, numel, Data, INDEX_BYTES};
use crate::{KernelError, Result, Tensor};

fn gather_flat(x: &Tensor, shape: Vec<usize>, idx: &[usize]) -> Result<Tensor> {
    Tensor::new(x.dtype(), shape, x.data().take(idx))
}

/// ONNX Transpose; `perm = None` reverses the axes.
pub fn transpose(x: &Tensor, perm: Option<&[i64]>) -> Result<Tensor> {
    const OP: &str = "Transpose";
    let r = x.rank();
    let perm: Vec<usize> = match perm {
        None => (0..r).rev().collect(),
        Some(p) => {
            if p.len() != r {
                return Err(KernelError::attr(
                    OP,
                    "perm",
                    format!("{p:?} has wrong length for rank {r}"),
                ));
            }
            norm_axes(OP, p, r)?
        }
    };
    let s = x.shape();
    let out: Vec<usize> = perm.iter().map(|&p| s[p]).collect();
    let ist = strides(s);
    let st: Vec<usize> = perm.iter().map(|&p| ist[p]).collect();
    let n = numel(&out);
    let mut idx = vec![0; r];
    let map: Vec<usize> = (0..n)
        .map(|i| {
            unravel(i, &out, &mut idx);
            idx.iter().zip(&st).map(|(a, b)| a * b).sum()
        })
        .collect();
    gather_flat(x, out, &map)
}

/// ONNX Reshape: 0 copies the input dimension (unless `allowzero`), -1 is inferred.
pub fn reshape(x: &Tensor, shape: &[i64], allowzero: bool) -> Result<Tensor> {
    const OP: &str = "Reshape";
    let mut out = Vec::with_capacity(shape.len());
    let mut infer = None;
    for (i, &d) in shape.iter().enumerate() {
        match d {
            -1 => {
                if infer.is_some() {
                    return Err(KernelError::attr(OP, "shape", "more than one -1"));
                }
                infer = Some(i);
                out.push(1);
            }
            0 if !allowzero => {
                let Some(&v) = x.shape().get(i) else {
                    return Err(KernelError::attr(
                        OP,
                        "shape",
                        format!("0 at {i} has no input dimension"),
                    ));
                };
                out.push(v);
            }
            d if d < 0 => {
                return Err(KernelError::attr(
                    OP,
                    "shape",
                    format!("invalid dimension {d}"),
                ))
            }
            d => out.push(d as usize),
        }
    }
    checked_numel(OP, &out)?;
    if let Some(i) = infer {
        let known = numel(&out);
        if known == 0 || !x.len().is_multiple_of(known) {
            return Err(KernelError::shape(
                OP,
                format!("cannot infer -1 reshaping {:?} to {shape:?}", x.shape()),
            ));
        }
        out[i] = x.len() / known;
    }
    if numel(&out) != x.len() {
        return Err(KernelError::shape(
            OP,
            format!("cannot reshape {:?} to {shape:?}", x.shape()),
        ));
    }
    x.reshaped(out)
}

/// ONNX Flatten to 2-D around `axis` (in `-rank..=rank`).
pub fn flatten(x: &Tensor, axis: i64) -> Result<Tensor> {
    let r = x.rank() as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a > r {
        return Err(KernelError::BadAxis {
            op: "Flatten",
            axis,
            rank: x.rank(),
        });
    }
    let a = a as usize;
    x.reshaped(vec![numel(&x.shape()[..a]), numel(&x.shape()[a..])])
}

/// ONNX Squeeze; `None` removes every size-1 axis.
pub fn squeeze(x: &Tensor, axes: Option<&[i64]>) -> Result<Tensor> {
    let s = x.shape();
    let drop: Vec<usize> = match axes {
        None => (0..s.len()).filter(|&i| s[i] == 1).collect(),
        Some(a) => {
            let a = norm_axes("Squeeze", a, s.len())?;
            if let Some(&bad) = a.iter().find(|&&i| s[i] != 1) {
                return Err(KernelError::shape(
                    "Squeeze",
                    format!("axis {bad} has size {}", s[bad]),
                ));
            }
            a
        }
    };
    let out = s
        .iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, &d)| d)
        .collect();
    x.reshaped(out)
}

/// ONNX Unsqueeze; axes refer to the output rank.
pub fn unsqueeze(x: &Tensor, axes: &[i64]) -> Result<Tensor> {
    let r = x.rank() + axes.len();
    let a = norm_axes("Unsqueeze", axes, r)?;
    let mut it = x.shape().iter();
    let out = (0..r)
        .map(|i| {
            if a.contains(&i) {
                1
            } else {
                *it.next().unwrap_or(&1)
            }
        })
        .collect();
    x.reshaped(out)
}

/// ONNX Expand: bidirectional broadcast of `x` with `shape`.
pub fn expand(x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    if shape.iter().any(|&d| d < 0) {
        return Err(KernelError::attr(
            "Expand",
            "shape",
            format!("negative dimension in {shape:?}"),
        ));
    }
    let s: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let out = broadcast_shapes("Expand", x.shape(), &s)?;
    checked_alloc("Expand", &out, elem_bytes(x.dtype()) + INDEX_BYTES)?;
    let idx = broadcast_index(&out, x.shape());
    gather_flat(x, out, &idx)
}

/// ONNX Concat along `axis`.
pub fn concat(xs: &[&Tensor], axis: i64) -> Result<Tensor> {
    const OP: &str = "Concat";
    let Some(first) = xs.first() else {
        return Err(KernelError::Arity {
            op: OP,
            msg: "needs at least one input".into(),
        });
    };
    let r = first.rank();
    let ax = norm_axis(OP, axis, r)?;
    for t in xs {
        if t.dtype() != first.dtype() {
            return Err(KernelError::DTypeMismatch {
                op: OP,
                a: first.dtype(),
                b: t.dtype(),
            });
        }
        let ok = t.rank() == r && (0..r).all(|d| d == ax || t.shape()[d] == first.shape()[d]);
        if !ok {
            return Err(KernelError::shape(
                OP,
                format!("{:?} vs {:?} on axis {ax}", first.shape(), t.shape()),
            ));
        }
    }
    let outer = numel(&first.shape()[..ax]);
    let mut shape = first.shape().to_vec();
    shape[ax] = xs.iter().map(|t| t.shape()[ax]).sum();
    let all = Data::concat(&xs.iter().map(|t| t.data()).collect::<Vec<_>>());
    let mut idx = Vec::with_capacity(numel(&shape));
    let mut offsets = vec![0];
    for t in xs {
        offsets.push(offsets.last().copied().unwrap_or(0) + t.len());
    }
    for o in 0..outer {
        for (k, t) in xs.iter().enumerate() {
            let chunk = t.len().checked_div(outer).unwrap_or(0);
            idx.extend((0..chunk).map(|j| offsets[k] + o * chunk + j));
        }
    }
    Tensor::new(first.dtype(), shape, all.take(&idx))
}

/// ONNX Split along `axis`, by explicit sizes or into `num_outputs` parts (the last one may be smaller).
pub fn split(
    x: &Tensor,
    axis: i64,
    sizes: Option<&[i64]>,
    num_outputs: Option<usize>,
) -> Result<Vec<Tensor>> {
    const OP: &str = "Split";
    let ax = norm_axis(OP, axis, x.rank())?;
    let n = x.shape()[ax];
    let sizes: Vec<usize> = match (sizes, num_outputs) {
        (Some(s), _) => {
            if s.iter().any(|&v| v < 0) || s.iter().sum::<i64>() != n as i64 {
                return Err(KernelError::attr(
                    OP,
                    "split",
                    format!("{s:?} does not sum to {n}"),
                ));
            }
            s.iter().map(|&v| v as usize).collect()
        }
        (None, Some(k)) if k > 0 => {
            let chunk = n.div_ceil(k);
            (0..k)
                .map(|i| chunk.min(n.saturating_sub(i * chunk)))
                .collect()
        }
        _ => {
            return Err(KernelError::attr(
                OP,
                "num_outputs",
                "need split sizes or num_outputs > 0",
            ))
        }
    };
    let mut out = Vec::with_capacity(sizes.len());
    let mut start = 0i64;
    for s in sizes {
        let end = start + s as i64;
        out.push(slice(x, &[start], &[end], Some(&[ax as i64]), None)?);
        start = end;
    }
    Ok(out)
}

/// ONNX Slice with clamping and negative steps.
pub fn slice(
    x: &Tensor,
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> Result<Tensor> {
    const OP: &str = "Slice";
    let r = x.rank();
    let s = x.shape();
    if starts.len() != ends.len() {
        return Err(KernelError::attr(
            OP,
            "ends",
            "starts and ends differ in length",
        ));
    }
    let axes: Vec<usize> = match axes {
        Some(a) => norm_axes(OP, a, r)?,
        None => (0..starts.len()).collect(),
    };
    if axes.len() != starts.len() || axes.iter().any(|&a| a >= r) {
        return Err(KernelError::attr(OP, "axes", "axes do not match starts"));
    }
    let steps: Vec<i64> = steps
        .map(|s| s.to_vec())
        .unwrap_or_else(|| vec![1; starts.len()]);
    if steps.len() != starts.len() || steps.contains(&0) {
        return Err(KernelError::attr(
            OP,
            "steps",
            "steps must be nonzero and match starts",
        ));
    }
    let mut begin = vec![0i64; r];
    let mut step = vec![1i64; r];
    let mut out: Vec<usize> = s.to_vec();
    for (k, &a) in axes.iter().enumerate() {
        let d = s[a] as i64;
        let st = steps[k];
        let fix = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
        let (b, e) = if st > 0 {
            (fix(starts[k]).clamp(0, d), fix(ends[k]).clamp(0, d))
        } else {
            (
                fix(starts[k]).clamp(-1, d - 1),
                fix(ends[k]).clamp(-1, d - 1),
            )
        };
        let (b2, e2, st2) = (b as i128, e as i128, st as i128);
        let len = if st > 0 {
            (e2 - b2 + st2 - 1).div_euclid(st2)
        } else {
            (b2 - e2 - st2 - 1).div_euclid(-st2)
        };
        out[a] = len.max(0) as usize;
        begin[a] = b;
        step[a] = st;
    }
    let ist = strides(s);
    let n = numel(&out);
    let mut idx = vec![0; r];
    let map: Vec<usize> = (0..n)
        .map(|i| {
            unravel(i, &out, &mut idx);
            (0..r)
                .map(|d| (begin[d] + idx[d] as i64 * step[d]) as usize * ist[d])
                .sum()
        })
        .collect();
    gather_flat(x, out, &map)
}

/// ONNX Tile.
pub fn tile(x: &Tensor, repeats: &[i64]) -> Result<Tensor> {
    let r = x.rank();
    if repeats.len() != r || repeats.iter().any(|&v| v < 0) {
        return Err(KernelError::attr(
            "Tile",
            "repeats",
            format!("{repeats:?} for rank {r}"),
        ));
    }
    let s = x.shape();
    let out: Vec<usize> = s
        .iter()
        .zip(repeats)
        .map(|(&d, &k)| d.saturating_mul(k as usize))
        .collect();
    checked_alloc("Tile", &out, elem_bytes(x.dtype()) + INDEX_BYTES)?;
    let ist = strides(s);
    let mut idx = vec![0; r];
    let map: Vec<usize> = (0..numel(&out))
        .map(|i| {
            unravel(i, &out, &mut idx);
            (0..r).map(|d| (idx[d] % s[d]) * ist[d]).sum()
        })
        .collect();
    gather_flat(x, out, &map)
}

/// ONNX Pad modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PadMode {
    /// Fill with a constant.
    #[default]
    Constant,
    /// Mirror without repeating the edge.
    Reflect,
    /// Repeat the edge.
    Edge,
    /// Wrap around.
    Wrap,
}

/// ONNX Pad; `pads` holds begins then ends for `axes` (all axes by default); negative pads crop.
pub fn pad(
    x: &Tensor,
    pads: &[i64],
    mode: PadMode,
    value: Option<&Tensor>,
    axes: Option<&[i64]>,
) -> Result<Tensor> {
    const OP: &str = "Pad";
    let r = x.rank();
    let axes: Vec<usize> = match axes {
        Some(a) => norm_axes(OP, a, r)?,
        None => (0..r).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(KernelError::attr(
            OP,
            "pads",
            format!("expected {} values, got {}", 2 * axes.len(), pads.len()),
        ));
    }
    let mut pb = vec![0i64; r];
    let mut pe = vec![0i64; r];
    for (k, &a) in axes.iter().enumerate() {
        pb[a] = pads[k];
        pe[a] = pads[axes.len() + k];
    }
    let s = x.shape();
    let mut out = vec![0usize; r];
    for d in 0..r {
        let o = s[d] as i64 + pb[d] + pe[d];
        if o < 0 {
            return Err(KernelError::attr(
                OP,
                "pads",
                "pads remove more than the whole axis",
            ));
        }
        out[d] = o as usize;
        checked_alloc(OP, &out, elem_bytes(x.dtype()) + 2 * INDEX_BYTES)?;
        if mode != PadMode::Constant && s[d] == 0 && o > 0 {
            return Err(KernelError::shape(
                OP,
                "cannot reflect, edge or wrap pad an empty axis",
            ));
        }
    }
    let fill = match value {
        Some(v) => {
            if v.len() != 1 || v.dtype() != x.dtype() {
                return Err(KernelError::attr(
                    OP,
                    "constant_value",
                    "must be a scalar of the input type",
                ));
            }
            v.data().clone()
        }
        None => Tensor::zeros(x.dtype(), vec![1]).data().clone(),
    };
    let ist = strides(s);
    let mut idx = vec![0; r];
    let map: Vec<Option<usize>> = (0..numel(&out))
        .map(|i| {
            unravel(i, &out, &mut idx);
            let mut off = 0;
            for d in 0..r {
                let n = s[d] as i64;
                let mut c = idx[d] as i64 - pb[d];
                if c < 0 || c >= n {
                    c = match mode {
                        PadMode::Constant => return None,
                        PadMode::Edge => c.clamp(0, n - 1),
                        PadMode::Wrap => c.rem_euclid(n),
                        PadMode::Reflect => {
                            if n == 1 {
                                0
                            } else {
                                let p = 2 * (n - 1);
                                let m = c.rem_euclid(p);
                                if m < n {
                                    m
                                } else {
                                    p - m
                                }
                            }
                        }
                    };
                }
                off += c as usize * ist[d];
            }
            Some(off)
        })
        .collect();
    Tensor::new(x.dtype(), out, x.data().take_or(&map, &fill))
}

/// ONNX DepthToSpace; `crd` selects mode CRD instead of DCR.
pub fn depth_to_space(x: &Tensor, blocksize: usize, crd: bool) -> Result<Tensor> {
    let s = x.shape();
    if s.len() != 4 || blocksize == 0 || !s[1].is_multiple_of(blocksize * blocksize) {
        return Err(KernelError::shape(
            "DepthToSpace",
            format!("input {s:?} with blocksize {blocksize}"),
        ));
    }
    let (n, c, h, w, b) = (s[0], s[1], s[2], s[3], blocksize);
    let c2 = c / (b * b);
    let (tmp, perm): (Vec<usize>, [i64; 6]) = if crd {
        (vec![n, c2, b, b, h, w], [0, 1, 4, 2, 5, 3])
    } else {
        (vec![n, b, b, c2, h, w], [0, 3, 4, 1, 5, 2])
    };
    let t = transpose(&x.reshaped(tmp)?, Some(&perm))?;
    t.into_shape(vec![n, c2, h * b, w * b])
}

/// ONNX SpaceToDepth; `crd` selects mode CRD (opset 28: output channel `(c * b + bh) * b + bw`)
/// instead of DCR (`(bh * b + bw) * C + c`).
pub fn space_to_depth(x: &Tensor, blocksize: usize, crd: bool) -> Result<Tensor> {
    let s = x.shape();
    let b = blocksize;
    if s.len() != 4 || b == 0 || !s[2].is_multiple_of(b) || !s[3].is_multiple_of(b) {
        return Err(KernelError::shape(
            "SpaceToDepth",
            format!("input {s:?} with blocksize {b}"),
        ));
    }
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let perm: [i64; 6] = if crd {
        [0, 1, 3, 5, 2, 4]
    } else {
        [0, 3, 5, 1, 2, 4]
    };
    let t = transpose(&x.reshaped(vec![n, c, h / b, b, w / b, b])?, Some(&perm))?;
    t.into_shape(vec![n, c * b * b, h / b, w / b])
}

/// ONNX CenterCropPad: crops or pads (with zeros) each of `axes` (default all) to `shape`,
/// keeping the center; an odd difference leaves the extra element at the end.
pub fn center_crop_pad(x: &Tensor, shape: &[i64], axes: Option<&[i64]>) -> Result<Tensor> {
    const OP: &str = "CenterCropPad";
    let all: Vec<i64> = (0..x.rank() as i64).collect();
    let axes = axes.filter(|a| !a.is_empty()).unwrap_or(&all);
    if axes.len() != shape.len() {
        return Err(KernelError::shape(OP, "shape and axes differ in length"));
    }
    let mut cur = x.clone();
    for (&a, &t) in axes.iter().zip(shape) {
        let ax = norm_axis(OP, a, x.rank())?;
        let d = cur.shape()[ax] as i64;
        if d > t {
            let start = (d - t) / 2;
            cur = slice(&cur, &[start], &[start + t], Some(&[ax as i64]), None)?;
        } else if d < t {
            let before = (t - d) / 2;
            let mut pads = vec![0i64; 2 * cur.rank()];
            pads[ax] = before;
            pads[ax + cur.rank()] = t - d - before;
            cur = pad(&cur, &pads, PadMode::Constant, None, None)?;
        }
    }
    Ok(cur)
}

/// ONNX Shape with optional `start` and `end` (clamped, negative from the back).
pub fn shape_of(x: &Tensor, start: i64, end: Option<i64>) -> Tensor {
    let r = x.rank() as i64;
    let fix = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let (a, b) = (fix(start), fix(end.unwrap_or(r)));
    let v: Vec<i64> = if a < b {
        x.shape()[a..b].iter().map(|&d| d as i64).collect()
    } else {
        vec![]
    };
    Tensor::vector(v)
}

/// ONNX Size (int64 scalar).
pub fn size(x: &Tensor) -> Tensor {
    Tensor::scalar(x.len() as i64)
}

/// ONNX Range: `start, start + delta, ...` below `limit` (above for negative delta), of the inputs' type.
pub fn range(start: &Tensor, limit: &Tensor, delta: &Tensor) -> Result<Tensor> {
    const OP: &str = "Range";
    let dt = start.dtype();
    if limit.dtype() != dt || delta.dtype() != dt {
        return Err(KernelError::DTypeMismatch {
            op: OP,
            a: dt,
            b: limit.dtype(),
        });
    }
    if start.len() != 1 || limit.len() != 1 || delta.len() != 1 {
        return Err(KernelError::shape(OP, "inputs must be scalars"));
    }
    if dt.is_int() {
        let (s, l, d) = (
            start.to_i128_vec()?[0],
            limit.to_i128_vec()?[0],
            delta.to_i128_vec()?[0],
        );
        if d == 0 {
            return Err(KernelError::attr(OP, "delta", "must be nonzero"));
        }
        let n = ((l - s) as f64 / d as f64).ceil().max(0.0) as usize;
        checked_alloc(OP, &[n], elem_bytes(dt) + std::mem::size_of::<i128>())?;
        let v = (0..n).map(|i| s + i as i128 * d).collect();
        return Tensor::from_i128(dt, vec![n], v);
    }
    if !dt.is_float() {
        return Err(KernelError::dtype(OP, dt));
    }
    let (s, l, d) = (
        start.to_f64_vec()?[0],
        limit.to_f64_vec()?[0],
        delta.to_f64_vec()?[0],
    );
    if d == 0.0 || !d.is_finite() {
        return Err(KernelError::attr(OP, "delta", "must be finite and nonzero"));
    }
    let n = ((l - s) / d).ceil().max(0.0);
    if !n.is_finite() || n > crate::tensor::MAX_ELEMENTS as f64 {
        return Err(KernelError::attr(OP, "limit", "range too long"));
    }
    checked_alloc(
        OP,
        &[n as usize],
        elem_bytes(dt) + std::mem::size_of::<f64>(),
    )?;
    let v = (0..n as usize).map(|i| s + i as f64 * d).collect();
    Tensor::from_f64(dt, vec![n as usize], v)
}

/// ONNX ConstantOfShape; `value` is a one-element tensor (default f32 zero).
pub fn constant_of_shape(shape: &[i64], value: Option<&Tensor>) -> Result<Tensor> {
    if shape.iter().any(|&d| d < 0) {
        return Err(KernelError::attr(
            "ConstantOfShape",
            "input",
            format!("negative dimension in {shape:?}"),
        ));
    }
    let s: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let per_elem = value.map_or(4, |v| elem_bytes(v.dtype())) + INDEX_BYTES;
    checked_alloc("ConstantOfShape", &s, per_elem)?;
    let v = match value {
        Some(v) if v.len() == 1 => v.clone(),
        Some(_) => {
            return Err(KernelError::attr(
                "ConstantOfShape",
                "value",
                "must have one element",
            ))
        }
        None => Tensor::scalar(0f32),
    };
    let n = numel(&s);
    Tensor::new(v.dtype(), s, v.data().take(&vec![0; n]))
}

/// ONNX Trilu on the last two axes: keep `j - i >= k` (upper) or `j - i <= k` (lower).
pub fn trilu(x: &Tensor, k: i64, upper: bool) -> Result<Tensor> {
    let s = x.shape();
    if s.len() < 2 {
        return Err(KernelError::shape("Trilu", "input must have rank >= 2"));
    }
    let (h, w) = (s[s.len() - 2], s[s.len() - 1]);
    let fill = Tensor::zeros(x.dtype(), vec![1]);
    let map: Vec<Option<usize>> = (0..x.len())
        .map(|p| {
            let (i, j) = (((p / w.max(1)) % h.max(1)) as i64, (p % w.max(1)) as i64);
            let keep = if upper { j - i >= k } else { j - i <= k };
            keep.then_some(p)
        })
        .collect();
    Tensor::new(x.dtype(), s.to_vec(), x.data().take_or(&map, fill.data()))
}

/// ONNX OneHot: `values = [off, on]`, depth from a scalar, new axis at `axis`; negative indices count from the back.
pub fn one_hot(indices: &Tensor, depth: &Tensor, values: &Tensor, axis: i64) -> Result<Tensor> {
    const OP: &str = "OneHot";
    if values.len() != 2 || depth.len() != 1 {
        return Err(KernelError::shape(
            OP,
            "values must have 2 elements and depth 1",
        ));
    }
    let d = depth.to_f64_vec()?[0];
    if d < 1.0 {
        return Err(KernelError::attr(OP, "depth", "must be positive"));
    }
    let d = d as i64;
    let r = indices.rank() + 1;
    let ax = norm_axis(OP, axis, r)?;
    let mut out = indices.shape().to_vec();
    out.insert(ax, d as usize);
    checked_alloc(OP, &out, elem_bytes(values.dtype()) + INDEX_BYTES)?;
    let idx = indices.to_f64_vec()?;
    let (outer, inner) = (numel(&out[..ax]), numel(&out[ax + 1..]));
    let mut map = vec![0usize; numel(&out)];
    for o in 0..outer {
        for i in 0..inner {
            let mut v = idx[o * inner + i] as i64;
            if v < 0 {
                v += d;
            }
            for k in 0..d as usize {
                map[(o * d as usize + k) * inner + i] = (v == k as i64) as usize;
            }
        }
    }
    Tensor::new(values.dtype(), out, values.data().take(&map))
}

/// ONNX EyeLike: ones where `j - i == k` in a 2-D tensor of `x`'s shape, of `dtype` (default `x`'s type).
pub fn eye_like(x: &Tensor, k: i64, dtype: Option<crate::DType>) -> Result<Tensor> {
    let s = x.shape();
    if s.len() != 2 {
        return Err(KernelError::shape("EyeLike", "input must be 2-D"));
    }
    let w = s[1] as i64;
    let v: Vec<i128> = (0..x.len() as i64)
        .map(|p| (p % w.max(1) - p / w.max(1) == k) as i128)
        .collect();
    Tensor::from_i128(dtype.unwrap_or(x.dtype()), s.to_vec(), v)
}

/// The dtype-agnostic identity of ONNX Identity.
pub fn identity(x: &Tensor) -> Tensor {
    x.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::ar;
    use crate::DType;

    fn vals(t: &Tensor) -> Vec<f32> {
        t.to_f32_vec().unwrap()
    }

    #[test]
    fn transpose_reshape_family() {
        let x = ar(&[2, 3]);
        let t = transpose(&x, None).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(vals(&t), vec![0., 3., 1., 4., 2., 5.]);
        let t = transpose(&ar(&[2, 3, 4]), Some(&[1, 2, 0])).unwrap();
        assert_eq!(t.shape(), &[3, 4, 2]);
        assert_eq!(&vals(&t)[..4], &[0., 12., 1., 13.]);
        assert!(transpose(&x, Some(&[0, 0])).is_err());
        assert_eq!(
            reshape(&ar(&[2, 3, 4]), &[0, -1], false).unwrap().shape(),
            &[2, 12]
        );
        assert_eq!(
            reshape(&Tensor::zeros(DType::F32, vec![0, 3]), &[3, 0], true)
                .unwrap()
                .shape(),
            &[3, 0]
        );
        assert!(reshape(&x, &[4, -1], false).is_err());
        assert_eq!(flatten(&ar(&[2, 3, 4]), -1).unwrap().shape(), &[6, 4]);
        assert_eq!(flatten(&ar(&[2, 3, 4]), 0).unwrap().shape(), &[1, 24]);
        assert_eq!(squeeze(&ar(&[1, 3, 1]), None).unwrap().shape(), &[3]);
        assert!(squeeze(&ar(&[1, 3, 1]), Some(&[1])).is_err());
        assert_eq!(
            unsqueeze(&ar(&[3, 4]), &[0, -1]).unwrap().shape(),
            &[1, 3, 4, 1]
        );
        let e = expand(&ar(&[3, 1]), &[2, 1, 2]).unwrap();
        assert_eq!(e.shape(), &[2, 3, 2]);
        assert_eq!(&vals(&e)[..6], &[0., 0., 1., 1., 2., 2.]);
    }

    #[test]
    fn concat_split_slice() {
        let a = ar(&[2, 2]);
        let b = ar(&[2, 1]);
        let c = concat(&[&a, &b], 1).unwrap();
        assert_eq!(c.shape(), &[2, 3]);
        assert_eq!(vals(&c), vec![0., 1., 0., 2., 3., 1.]);
        assert!(concat(&[&a, &ar(&[3, 1])], 1).is_err());
        let parts = split(&ar(&[5]), 0, None, Some(3)).unwrap();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            vec![2, 2, 1]
        );
        let parts = split(&ar(&[2, 6]), 1, Some(&[2, 4]), None).unwrap();
        assert_eq!(vals(&parts[1]), vec![2., 3., 4., 5., 8., 9., 10., 11.]);
        // ONNX slice_neg_steps: x = arange(20*10*5).reshape(20,10,5), starts [20,10,4], ends [0,0,1], steps [-1,-3,-2]
        let x = ar(&[20, 10, 5]);
        let s = slice(
            &x,
            &[20, 10, 4],
            &[0, 0, 1],
            Some(&[0, 1, 2]),
            Some(&[-1, -3, -2]),
        )
        .unwrap();
        assert_eq!(s.shape(), &[19, 3, 2]);
        // x[20:0:-1, 10:0:-3, 4:1:-2][0, 0] = x[19, 9, 4:1:-2] = [999, 997]
        assert_eq!(&vals(&s)[..2], &[999., 997.]);
        let s = slice(&ar(&[10]), &[-3], &[i64::MAX], None, None).unwrap();
        assert_eq!(vals(&s), vec![7., 8., 9.]);
        let s = slice(&ar(&[10]), &[-1], &[i64::MIN], None, Some(&[-4])).unwrap();
        assert_eq!(vals(&s), vec![9., 5., 1.]);
        let strings = Tensor::vector(vec!["a".to_string(), "b".into(), "c".into()]);
        let s = slice(&strings, &[1], &[3], None, None).unwrap();
        assert_eq!(
            s.as_slice::<String>().unwrap(),
            &["b".to_string(), "c".into()]
        );
    }

    #[test]
    fn tile_pad() {
        let t = tile(&ar(&[2]), &[3]).unwrap();
        assert_eq!(vals(&t), vec![0., 1., 0., 1., 0., 1.]);
        let x = Tensor::from_vec(vec![3, 2], vec![1f32, 1.2, 2.3, 3.4, 4.5, 5.7]).unwrap();
        // ONNX Pad doc, constant mode pads [0, 2, 0, 0]: [[0, 0, 1, 1.2], [0, 0, 2.3, 3.4], [0, 0, 4.5, 5.7]]
        let p = pad(&x, &[0, 2, 0, 0], PadMode::Constant, None, None).unwrap();
        assert_eq!(
            vals(&p),
            vec![0., 0., 1., 1.2, 0., 0., 2.3, 3.4, 0., 0., 4.5, 5.7]
        );
        // reflect: [[1, 1.2, 1, 1.2], [2.3, 3.4, 2.3, 3.4], [4.5, 5.7, 4.5, 5.7]]
        let p = pad(&x, &[0, 2, 0, 0], PadMode::Reflect, None, None).unwrap();
        assert_eq!(
            vals(&p),
            vec![1., 1.2, 1., 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7, 4.5, 5.7]
        );
        // edge: [[1, 1, 1, 1.2], ...]
        let p = pad(&x, &[0, 2, 0, 0], PadMode::Edge, None, None).unwrap();
        assert_eq!(&vals(&p)[..4], &[1., 1., 1., 1.2]);
        // wrap with pads [2, 1, 1, 1] (onnx wrap_pad): first row [3.4, 2.3, 3.4, 2.3]
        let p = pad(&x, &[2, 1, 1, 1], PadMode::Wrap, None, None).unwrap();
        assert_eq!(p.shape(), &[6, 4]);
        assert_eq!(&vals(&p)[..4], &[3.4, 2.3, 3.4, 2.3]);
        let p = pad(
            &x,
            &[-1, 0, 0, 0],
            PadMode::Constant,
            Some(&Tensor::scalar(9f32)),
            None,
        )
        .unwrap();
        assert_eq!(p.shape(), &[2, 2]);
        let p = pad(
            &ar(&[2]),
            &[1, 1],
            PadMode::Constant,
            Some(&Tensor::scalar(9f32)),
            Some(&[0]),
        )
        .unwrap();
        assert_eq!(vals(&p), vec![9., 0., 1., 9.]);
    }

    #[test]
    fn hostile_inputs_give_errors() {
        let x = ar(&[2, 3]);
        assert!(reshape(&x, &[i64::MAX, 2], false).is_err());
        assert!(expand(&x, &[1 << 40, 1 << 40, 3]).is_err());
        assert!(tile(&x, &[i64::MAX, 2]).is_err());
        assert!(constant_of_shape(&[1 << 41], None).is_err());
        let s = slice(&x, &[i64::MIN], &[i64::MAX], Some(&[1]), Some(&[i64::MAX])).unwrap();
        assert_eq!(s.shape(), &[2, 1]);
        let s = slice(
            &x,
            &[i64::MAX],
            &[i64::MIN],
            Some(&[1]),
            Some(&[i64::MIN + 1]),
        )
        .unwrap();
        assert_eq!(vals(&s), vec![2., 5.]);
        assert!(pad(&x, &[0, -4, 0, 0], PadMode::Constant, None, None).is_err());
        assert!(Tensor::from_raw_bytes(DType::F32, vec![usize::MAX, 2], &[]).is_err());
    }

    #[test]
    fn depth_space() {
        // ONNX DepthToSpace DCR example: x = arange(48).reshape(1, 8, 2, 3), blocksize 2; first row
        // [0, 12, 1, 13, 2, 14]; CRD first row [0, 6, 1, 7, 2, 8].
        let x = ar(&[1, 8, 2, 3]);
        let y = depth_to_space(&x, 2, false).unwrap();
        assert_eq!(y.shape(), &[1, 2, 4, 6]);
        assert_eq!(&vals(&y)[..6], &[0., 12., 1., 13., 2., 14.]);
        let y = depth_to_space(&x, 2, true).unwrap();
        assert_eq!(&vals(&y)[..6], &[0., 6., 1., 7., 2., 8.]);
        for crd in [false, true] {
            let back = space_to_depth(&depth_to_space(&x, 2, crd).unwrap(), 2, crd).unwrap();
            assert_eq!(back, x);
        }
        // CenterCropPad: crop 5 -> 3 keeps [1, 2, 3]; pad 2 -> 5 puts the extra zero at the end.
        let y = center_crop_pad(&ar(&[5]), &[3], None).unwrap();
        assert_eq!(vals(&y), [1., 2., 3.]);
        let y = center_crop_pad(&ar(&[2]), &[5], Some(&[0])).unwrap();
        assert_eq!(vals(&y), [0., 0., 1., 0., 0.]);
    }

    #[test]
    fn generators() {
        let x = ar(&[2, 3, 4]);
        assert_eq!(shape_of(&x, 0, None).as_i64().unwrap(), &[2, 3, 4]);
        assert_eq!(shape_of(&x, -1, None).as_i64().unwrap(), &[4]);
        assert_eq!(shape_of(&x, 1, Some(-1)).as_i64().unwrap(), &[3]);
        assert_eq!(size(&x).as_i64().unwrap(), &[24]);
        let r = range(
            &Tensor::scalar(10i32),
            &Tensor::scalar(4i32),
            &Tensor::scalar(-3i32),
        )
        .unwrap();
        assert_eq!(r.as_slice::<i32>().unwrap(), &[10, 7]);
        let r = range(
            &Tensor::scalar(1f32),
            &Tensor::scalar(2f32),
            &Tensor::scalar(0.25f32),
        )
        .unwrap();
        assert_eq!(vals(&r), vec![1., 1.25, 1.5, 1.75]);
        let c = constant_of_shape(&[2, 2], Some(&Tensor::vector(vec![7i64]))).unwrap();
        assert_eq!(c.as_i64().unwrap(), &[7; 4]);
        let e = eye_like(&ar(&[2, 3]), 1, Some(DType::I32)).unwrap();
        assert_eq!(e.as_slice::<i32>().unwrap(), &[0, 1, 0, 0, 0, 1]);
        let t = trilu(&ar(&[3, 3]), 0, true).unwrap();
        assert_eq!(vals(&t), vec![0., 1., 2., 0., 4., 5., 0., 0., 8.]);
        let t = trilu(&ar(&[3, 3]), -1, false).unwrap();
        assert_eq!(vals(&t), vec![0., 0., 0., 3., 0., 0., 6., 7., 0.]);
        let o = one_hot(
            &Tensor::vector(vec![1i64, -1, 5]),
            &Tensor::scalar(3i64),
            &Tensor::vector(vec![0f32, 2.]),
            -1,
        )
        .unwrap();
        assert_eq!(o.shape(), &[3, 3]);
        assert_eq!(vals(&o), vec![0., 2., 0., 0., 0., 2., 0., 0., 0.]);
    }
}
