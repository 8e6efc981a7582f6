//! Shape arithmetic shared by the kernels: strides, broadcasting and axis normalization.

use crate::{KernelError, Result};

/// Row-major strides of a shape, in elements.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The numpy broadcast of two shapes; an error when a broadcast shape is too large to allocate
/// an index map for (see [`crate::with_max_bytes`]), since every kernel that broadcasts builds one.
pub fn broadcast_shapes(op: &'static str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let r = a.len().max(b.len());
    let mut out = vec![0; r];
    for (i, o) in out.iter_mut().enumerate() {
        let da = if i + a.len() >= r {
            a[i + a.len() - r]
        } else {
            1
        };
        let db = if i + b.len() >= r {
            b[i + b.len() - r]
        } else {
            1
        };
        *o = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(KernelError::Broadcast {
                op,
                a: a.to_vec(),
                b: b.to_vec(),
            });
        };
    }
    crate::tensor::checked_alloc(op, &out, crate::tensor::INDEX_BYTES)?;
    Ok(out)
}

/// The numpy broadcast of many shapes.
pub fn broadcast_all(op: &'static str, shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = vec![];
    for s in shapes {
        out = broadcast_shapes(op, &out, s)?;
    }
    Ok(out)
}

/// For every element of `out` (row-major), the flat index of the element of `input` it reads
/// when `input` is broadcast to `out`; `input` must be broadcastable to `out`.
pub fn broadcast_index(out: &[usize], input: &[usize]) -> Vec<usize> {
    let n: usize = out.iter().product();
    let r = out.len();
    let off = r - input.len();
    let in_strides = strides(input);
    // Stride of each output axis in the input (0 where broadcast).
    let st: Vec<usize> = (0..r)
        .map(|i| {
            if i < off || input[i - off] == 1 {
                0
            } else {
                in_strides[i - off]
            }
        })
        .collect();
    if input == out {
        return (0..n).collect();
    }
    let mut res = Vec::with_capacity(n);
    let mut idx = vec![0usize; r];
    let mut cur = 0usize;
    for _ in 0..n {
        res.push(cur);
        for ax in (0..r).rev() {
            idx[ax] += 1;
            cur += st[ax];
            if idx[ax] < out[ax] {
                break;
            }
            cur -= st[ax] * idx[ax];
            idx[ax] = 0;
        }
    }
    res
}

/// Maps a possibly negative axis into `0..rank`.
pub fn norm_axis(op: &'static str, axis: i64, rank: usize) -> Result<usize> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    if a < 0 || a >= rank as i64 {
        return Err(KernelError::BadAxis { op, axis, rank });
    }
    Ok(a as usize)
}

/// Normalizes a list of axes, rejecting duplicates.
pub fn norm_axes(op: &'static str, axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = norm_axis(op, a, rank)?;
        if out.contains(&n) {
            return Err(KernelError::attr(op, "axes", format!("axis {a} repeated")));
        }
        out.push(n);
    }
    Ok(out)
}

/// Splits a shape around `axis` into (outer, axis size, inner) element counts.
pub fn outer_axis_inner(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// Decomposes a flat index into a multi-index.
pub fn unravel(mut flat: usize, shape: &[usize], out: &mut [usize]) {
    for i in (0..shape.len()).rev() {
        let d = shape[i].max(1);
        out[i] = flat % d;
        flat /= d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(
            broadcast_shapes("t", &[2, 1, 3], &[4, 1]).unwrap(),
            vec![2, 4, 3]
        );
        assert!(broadcast_shapes("t", &[2, 3], &[4]).is_err());
        assert_eq!(broadcast_index(&[2, 3], &[3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(broadcast_index(&[2, 3], &[2, 1]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(broadcast_index(&[2, 2], &[]), vec![0, 0, 0, 0]);
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(norm_axis("t", -1, 3).unwrap(), 2);
        assert!(norm_axis("t", 3, 3).is_err());
    }
}
