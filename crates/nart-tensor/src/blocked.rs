//! Blocked channel layouts (`nchw<b>c`, e.g. oneDNN's `nChw8c`): a channels-first tensor
//! `[N, C, spatial...]` stored as `[N, ceil(C/b), spatial..., b]`, channel `c` at block `c / b`
//! and lane `c % b`, the lanes past `C` zero; and convolution weights blocked along both
//! channel axes (`OIhw8i8o`). The values go through `f64`, which is exact for every float type
//! and for integers up to 2^53.

use crate::layout::{strides, unravel};
use crate::{KernelError, Result, Tensor};

const OP: &str = "blocked layout";

/// A tensor of shape `shape` whose element at each index is `x`'s element at `src(index)`, or
/// zero where `src` gives `None`.
fn gather(
    x: &Tensor,
    shape: Vec<usize>,
    src: impl Fn(&[usize]) -> Option<usize>,
) -> Result<Tensor> {
    let xs = x.to_f64_vec()?;
    let n: usize = shape.iter().product();
    let mut idx = vec![0; shape.len()];
    let mut out = Vec::with_capacity(n);
    for flat in 0..n {
        unravel(flat, &shape, &mut idx);
        out.push(src(&idx).map_or(0.0, |k| xs[k]));
    }
    Tensor::from_f64(x.dtype(), shape, out)
}

fn check_block(b: usize) -> Result<()> {
    if b == 0 {
        return Err(KernelError::attr(
            OP,
            "layout",
            "the block size must be positive",
        ));
    }
    Ok(())
}

/// `[N, C, spatial...]` → `[N, ceil(C/b), spatial..., b]`, the tail lanes zero.
pub fn to_blocked(x: &Tensor, b: usize) -> Result<Tensor> {
    check_block(b)?;
    let s = x.shape();
    if s.len() < 3 {
        return Err(KernelError::shape(
            OP,
            format!("{s:?} is not [N, C, spatial...]"),
        ));
    }
    let (c, r) = (s[1], s.len());
    let mut shape = vec![s[0], c.div_ceil(b)];
    shape.extend(&s[2..]);
    shape.push(b);
    let st = strides(s);
    gather(x, shape, |i| {
        let ch = i[1] * b + i[r];
        (ch < c).then(|| i[0] * st[0] + ch * st[1] + (2..r).map(|k| i[k] * st[k]).sum::<usize>())
    })
}

/// `[N, B, spatial..., b]` → `[N, channels, spatial...]` (`channels <= B * b`), the lanes past
/// `channels` dropped.
pub fn from_blocked(x: &Tensor, channels: usize) -> Result<Tensor> {
    let s = x.shape();
    let r = s.len();
    if r < 4 || channels > s[1] * s[r - 1] {
        return Err(KernelError::shape(
            OP,
            format!("{s:?} is not [N, B, spatial..., b] with {channels} channels or more"),
        ));
    }
    let b = s[r - 1];
    let mut shape = vec![s[0], channels];
    shape.extend(&s[2..r - 1]);
    let st = strides(s);
    gather(x, shape, |i| {
        let (blk, lane) = (i[1] / b, i[1] % b);
        Some(i[0] * st[0] + blk * st[1] + (2..r - 1).map(|k| i[k] * st[k]).sum::<usize>() + lane)
    })
}

/// A convolution weight `[M, K, k...]` (`K` input channels per group) blocked as
/// `[ceil(M/b), ceil(K/bi), k..., bi, b]`: output channel `o` and input channel `i` at
/// `[o / b, i / bi, k..., i % bi, o % b]`, zero past `M` and `K`.
pub fn block_weight(w: &Tensor, b: usize, bi: usize) -> Result<Tensor> {
    check_block(b)?;
    check_block(bi)?;
    let s = w.shape();
    if s.len() < 3 {
        return Err(KernelError::shape(OP, format!("{s:?} is not [M, K, k...]")));
    }
    let (m, k, r) = (s[0], s[1], s.len());
    let mut shape = vec![m.div_ceil(b), k.div_ceil(bi)];
    shape.extend(&s[2..]);
    shape.extend([bi, b]);
    let st = strides(s);
    gather(w, shape, |i| {
        let (o, ic) = (i[0] * b + i[r + 1], i[1] * bi + i[r]);
        (o < m && ic < k)
            .then(|| o * st[0] + ic * st[1] + (2..r).map(|d| i[d] * st[d]).sum::<usize>())
    })
}

/// The inverse of [`block_weight`] with the padding kept: `[Mb, Kb, k..., bi, b]` →
/// `[Mb * b, Kb * bi, k...]`.
pub fn unblock_weight(w: &Tensor) -> Result<Tensor> {
    let s = w.shape();
    let r = s.len();
    if r < 5 {
        return Err(KernelError::shape(
            OP,
            format!("{s:?} is not a blocked weight [Mb, Kb, k..., bi, b]"),
        ));
    }
    let (bi, b) = (s[r - 2], s[r - 1]);
    let mut shape = vec![s[0] * b, s[1] * bi];
    shape.extend(&s[2..r - 2]);
    let st = strides(s);
    gather(w, shape, |i| {
        let spatial: usize = (2..r - 2).map(|d| i[d] * st[d]).sum();
        Some(
            (i[0] / b) * st[0] + (i[1] / bi) * st[1] + spatial + (i[1] % bi) * st[r - 2] + i[0] % b,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_pad_and_round_trip() {
        // [1, 3, 2] blocked by 2: channels 0,1 in block 0, channel 2 and a zero in block 1.
        let x = Tensor::from_vec(vec![1, 3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let b = to_blocked(&x, 2).unwrap();
        assert_eq!(b.shape(), &[1, 2, 2, 2]);
        assert_eq!(
            b.as_f32().unwrap(),
            &[1.0, 3.0, 2.0, 4.0, 5.0, 0.0, 6.0, 0.0]
        );
        assert_eq!(from_blocked(&b, 3).unwrap(), x);
        assert!(from_blocked(&b, 5).is_err());
        assert!(to_blocked(&x, 0).is_err());
    }

    #[test]
    fn weights_block_and_unblock() {
        // [M=3, K=2, k=1] by (b=2, bi=2): padded to [4, 2, 1].
        let w = Tensor::from_vec(vec![3, 2, 1], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let wb = block_weight(&w, 2, 2).unwrap();
        assert_eq!(wb.shape(), &[2, 1, 1, 2, 2]);
        // [ob, ib, k, ii, oo] = w[ob*2+oo, ii].
        assert_eq!(
            wb.as_f32().unwrap(),
            &[1.0, 3.0, 2.0, 4.0, 5.0, 0.0, 6.0, 0.0]
        );
        let back = unblock_weight(&wb).unwrap();
        assert_eq!(back.shape(), &[4, 2, 1]);
        assert_eq!(
            back.as_f32().unwrap(),
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0]
        );
    }
}
