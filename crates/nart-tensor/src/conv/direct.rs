//! Direct (stencil) convolution for grouped convolutions with few input channels per group.
//!
//! Depthwise convolutions (one input channel per group) spend most of their time in im2col when they go
//! through GEMM, because each tiny GEMM does only `prod(kernel)` multiply-adds per output.
//! This kernel instead copies each input channel once into a zero-padded buffer split by stride phase,
//! in which every kernel tap reads one contiguous run for the whole output plane; the output plane is
//! then accumulated in register-sized blocks over all taps, which vectorizes.
//!
//! Terms are accumulated in the same order as the GEMM reduction index `(c, k...)`, padding taps
//! included (as zeros), with fused multiply-adds exactly where the GEMM kernel of `matrixmultiply`
//! uses them (x86 with FMA), so on such machines the results are bit-identical to the im2col path.

use super::Geom;

/// An element type with a multiply-add, fused or not.
pub(super) trait DirectFloat:
    Copy + Default + std::ops::Add<Output = Self> + Send + Sync
{
    /// `a * b + c`, rounded once when `FUSED`.
    fn madd<const FUSED: bool>(a: Self, b: Self, c: Self) -> Self;
}

impl DirectFloat for f32 {
    #[inline(always)]
    fn madd<const FUSED: bool>(a: f32, b: f32, c: f32) -> f32 {
        if FUSED {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }
}

impl DirectFloat for f64 {
    #[inline(always)]
    fn madd<const FUSED: bool>(a: f64, b: f64, c: f64) -> f64 {
        if FUSED {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }
}

/// 2-D geometry of a direct convolution (a 1-D convolution is a 2-D one with height 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    kh: usize,
    kw: usize,
    sh: usize,
    sw: usize,
    dh: usize,
    dw: usize,
    ph: usize,
    pw: usize,
}

impl Plan {
    /// The plan of a 1-D or 2-D geometry; `None` for other ranks.
    pub(super) fn new(g: &Geom) -> Option<Plan> {
        match g.input.len() {
            1 => Some(Plan {
                h: 1,
                w: g.input[0],
                oh: 1,
                ow: g.out[0],
                kh: 1,
                kw: g.kernel[0],
                sh: 1,
                sw: g.strides[0],
                dh: 1,
                dw: g.dilations[0],
                ph: 0,
                pw: g.pad_begin[0],
            }),
            2 => Some(Plan {
                h: g.input[0],
                w: g.input[1],
                oh: g.out[0],
                ow: g.out[1],
                kh: g.kernel[0],
                kw: g.kernel[1],
                sh: g.strides[0],
                sw: g.strides[1],
                dh: g.dilations[0],
                dw: g.dilations[1],
                ph: g.pad_begin[0],
                pw: g.pad_begin[1],
            }),
            _ => None,
        }
    }
}

/// Whether a convolution with `cg` input channels per group and `group` groups should run directly.
pub(super) fn worthwhile(group: usize, cg: usize) -> bool {
    group > 1 && cg <= 4
}

/// Layout of the zero-padded, phase-split copy of one input channel.
///
/// Padded position `(q * sh + a, u * sw + b)` lives at `((a * sw + b) * ph + q) * pw + u`, so that
/// for every kernel tap, output `(r, o)` reads `tap_offset + r * pw + o`: each tap is one contiguous
/// run over the whole output plane (laid out with row length `pw`, the columns `ow..pw` are junk).
#[derive(Clone, Copy, Debug)]
struct Split {
    ph: usize,
    pw: usize,
}

impl Split {
    fn new(p: &Plan) -> Split {
        Split {
            ph: p.oh + (p.kh - 1) * p.dh / p.sh + 1,
            pw: p.ow + (p.kw - 1) * p.dw / p.sw,
        }
    }

    fn len(&self, p: &Plan) -> usize {
        p.sh * p.sw * self.ph * self.pw
    }

    /// Offset of kernel tap `(i, j)` in the split buffer.
    fn tap(&self, p: &Plan, i: usize, j: usize) -> usize {
        let (a, qa) = ((i * p.dh) % p.sh, (i * p.dh) / p.sh);
        let (b, ub) = ((j * p.dw) % p.sw, (j * p.dw) / p.sw);
        ((a * p.sw + b) * self.ph + qa) * self.pw + ub
    }

    /// Writes the padded, phase-split copy of input plane `x` (`h x w`) into `buf`.
    fn fill<T: Copy + Default>(&self, p: &Plan, x: &[T], buf: &mut [T]) {
        let zero = T::default();
        for a in 0..p.sh {
            for b in 0..p.sw {
                // Input column of split column u is u * sw + b - pw_pad: valid for u in lo..hi.
                let off = b as isize - p.pw as isize;
                let lo = if off >= 0 {
                    0
                } else {
                    ((-off) as usize).div_ceil(p.sw).min(self.pw)
                };
                let hi = if (p.w as isize) - 1 - off < 0 {
                    0
                } else {
                    ((((p.w as isize) - 1 - off) as usize) / p.sw + 1).min(self.pw)
                }
                .max(lo);
                for q in 0..self.ph {
                    let start = ((a * p.sw + b) * self.ph + q) * self.pw;
                    let dst = &mut buf[start..start + self.pw];
                    let ih = (q * p.sh + a) as isize - p.ph as isize;
                    if ih < 0 || ih >= p.h as isize || lo == hi {
                        dst.fill(zero);
                        continue;
                    }
                    let row = &x[ih as usize * p.w..(ih as usize + 1) * p.w];
                    dst[..lo].fill(zero);
                    dst[hi..].fill(zero);
                    let first = (lo as isize * p.sw as isize + off) as usize;
                    gather(&mut dst[lo..hi], &row[first..], p.sw);
                }
            }
        }
    }
}

/// `dst[k] = src[k * step]` for every `k` of `dst`; `src` must be long enough.
pub(crate) fn gather<T: Copy>(dst: &mut [T], src: &[T], step: usize) {
    fn fixed<T: Copy, const S: usize>(dst: &mut [T], src: &[T]) {
        // Whole chunks of S (which vectorize as a deinterleave), then the last element.
        let n = dst.len();
        let full = (src.len() / S).min(n);
        for (d, c) in dst[..full].iter_mut().zip(src.chunks_exact(S)) {
            *d = c[0];
        }
        for (k, d) in dst.iter_mut().enumerate().skip(full) {
            *d = src[k * S];
        }
    }
    let n = dst.len();
    if n == 0 {
        return;
    }
    let src = &src[..((n - 1) * step + 1).max(src.len().min(n * step))];
    match step {
        1 => dst.copy_from_slice(src),
        2 => fixed::<T, 2>(dst, src),
        3 => fixed::<T, 3>(dst, src),
        4 => fixed::<T, 4>(dst, src),
        _ => {
            for (k, d) in dst.iter_mut().enumerate() {
                *d = src[k * step];
            }
        }
    }
}

/// Direct grouped convolution: `x [n, c, h, w]`, `w [m, c / group, kh, kw]`, into `y [n, m, oh, ow]`,
/// which must hold zeros.
#[allow(clippy::too_many_arguments)]
pub(super) fn conv<T: DirectFloat>(
    x: &[T],
    w: &[T],
    y: &mut [T],
    n: usize,
    c: usize,
    m: usize,
    group: usize,
    p: &Plan,
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports the features the function is compiled for.
            unsafe { conv_fma(x, w, y, n, c, m, group, p) };
            return;
        }
    }
    body::<T, false>(x, w, y, n, c, m, group, p)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn conv_fma<T: DirectFloat>(
    x: &[T],
    w: &[T],
    y: &mut [T],
    n: usize,
    c: usize,
    m: usize,
    group: usize,
    p: &Plan,
) {
    body::<T, true>(x, w, y, n, c, m, group, p)
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn body<T: DirectFloat, const FUSED: bool>(
    x: &[T],
    w: &[T],
    y: &mut [T],
    n: usize,
    c: usize,
    m: usize,
    group: usize,
    p: &Plan,
) {
    let cg = c / group;
    let mg = m / group;
    let (isz, osz, ksz) = (p.h * p.w, p.oh * p.ow, p.kh * p.kw);
    if osz == 0 || mg == 0 {
        return;
    }
    let sp = Split::new(p);
    let mut buf = vec![T::default(); sp.len(p)];
    let mut acc = vec![T::default(); p.oh * sp.pw];
    let offs: Vec<usize> = (0..p.kh)
        .flat_map(|i| (0..p.kw).map(move |j| (i, j)))
        .map(|(i, j)| sp.tap(p, i, j))
        .collect();
    let mut taps: Vec<(usize, T)> = Vec::with_capacity(ksz);
    for b in 0..n {
        for gi in 0..group {
            for ocl in 0..mg {
                let oc = gi * mg + ocl;
                acc.fill(T::default());
                for ic in 0..cg {
                    let ch = b * c + gi * cg + ic;
                    // With one input channel per group the split copy serves every output channel.
                    if ocl == 0 || cg > 1 {
                        sp.fill(p, &x[ch * isz..(ch + 1) * isz], &mut buf);
                    }
                    let wk = &w[(oc * cg + ic) * ksz..(oc * cg + ic + 1) * ksz];
                    taps.clear();
                    taps.extend(offs.iter().copied().zip(wk.iter().copied()));
                    accumulate::<T, FUSED>(&mut acc, &buf, &taps);
                }
                let yp = &mut y[(b * m + oc) * osz..(b * m + oc + 1) * osz];
                for (dst, src) in yp.chunks_exact_mut(p.ow).zip(acc.chunks_exact(sp.pw)) {
                    dst.copy_from_slice(&src[..p.ow]);
                }
            }
        }
    }
}

/// Output positions per register block.
const BLOCK: usize = 32;

/// `acc[q] += sum over taps (offset, weight) of weight * buf[offset + q]`, taps in order.
#[inline(always)]
fn accumulate<T: DirectFloat, const FUSED: bool>(acc: &mut [T], buf: &[T], taps: &[(usize, T)]) {
    let len = acc.len();
    let full = len / BLOCK * BLOCK;
    for q0 in (0..full).step_by(BLOCK) {
        let mut r = [T::default(); BLOCK];
        r.copy_from_slice(&acc[q0..q0 + BLOCK]);
        for &(off, wv) in taps {
            let xs = &buf[off + q0..off + q0 + BLOCK];
            for k in 0..BLOCK {
                r[k] = T::madd::<FUSED>(wv, xs[k], r[k]);
            }
        }
        acc[q0..q0 + BLOCK].copy_from_slice(&r);
    }
    // Small planes (7x7, 14x14) leave a long tail: blocks of 8, then single positions.
    const SMALL: usize = 8;
    let mid = full + (len - full) / SMALL * SMALL;
    for q0 in (full..mid).step_by(SMALL) {
        let mut r = [T::default(); SMALL];
        r.copy_from_slice(&acc[q0..q0 + SMALL]);
        for &(off, wv) in taps {
            let xs = &buf[off + q0..off + q0 + SMALL];
            for k in 0..SMALL {
                r[k] = T::madd::<FUSED>(wv, xs[k], r[k]);
            }
        }
        acc[q0..q0 + SMALL].copy_from_slice(&r);
    }
    for &(off, wv) in taps {
        let xs = &buf[off + mid..off + len];
        for (o, &a) in acc[mid..].iter_mut().zip(xs) {
            *o = T::madd::<FUSED>(wv, a, *o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_every_step() {
        let src: Vec<u32> = (0..40).collect();
        for step in 1..6 {
            for n in 0..8 {
                for extra in 0..step {
                    let len = if n == 0 {
                        0
                    } else {
                        (n - 1) * step + 1 + extra
                    };
                    let mut dst = vec![0; n];
                    gather(&mut dst, &src[..len], step);
                    let want: Vec<u32> = (0..n as u32).map(|k| k * step as u32).collect();
                    assert_eq!(dst, want, "step {step} n {n} extra {extra}");
                }
            }
        }
    }
}
