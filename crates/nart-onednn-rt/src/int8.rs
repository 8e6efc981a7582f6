//! Exact int8 on oneDNN: what oneDNN is trusted with, and the requantization the runtime does
//! itself.
//!
//! oneDNN computes `Σ x·w` for `u8`/`s8` inputs and `s8` weights into an `s32` result; nart
//! takes the zero points and the bias out of it and requantizes it exactly as
//! `nart_tensor::qnn` does (a 31-bit fixed-point multiplier and one rounding), never with
//! oneDNN's `f32` output scales, which round differently. Two properties of oneDNN 2.6's int8
//! kernels decide when its sums are exact, and [`exactness`] checks both from the weights:
//!
//! - Its kernels convert the `s32` accumulators to `f32` before the output stage (bias,
//!   scales, post-ops) and back, even for an `s32` result, so a sum is exact only while it
//!   stays below `2^24` in magnitude. With `|x| ≤ 255` that holds for every input when
//!   `255 · Σ|w| < 2^24` for each output channel's weights.
//! - Without VNNI (AVX2 or AVX-512 without `vpdpbusd`), `u8 × s8` products are summed in
//!   pairs by `vpmaddubsw` into saturating 16-bit lanes, so a pair can saturate unless
//!   `|w| ≤ 64` (`2 · 255 · 64 = 32640`); for `s8` inputs oneDNN also scales the weights by
//!   one half there. So without VNNI only `u8` inputs with 7-bit weights are exact.

use nart_tensor::qnn::{rounding_shift, FixedMultiplier, Rounding};

use crate::program::{Elem, Requant};

/// The largest magnitude an `f32` holds every integer up to.
const F32_EXACT: i64 = 1 << 24;

/// The largest input magnitude (`u8`'s 255; `s8` inputs are shifted into `u8` by oneDNN).
const MAX_INPUT: i64 = 255;

/// The largest weight magnitude that cannot saturate `vpmaddubsw` with `u8` inputs.
const MAX_WEIGHT_WITHOUT_VNNI: i8 = 64;

/// Whether oneDNN's sums for `q` (weights `[channels, per]` row-major for a convolution,
/// `[K, N]` for a matmul when `columns`) and inputs of type `src` are exact on a CPU with
/// (`vnni`) or without VNNI; the reason when they are not.
pub fn exactness(q: &Requant, src: Elem, columns: bool, vnni: bool) -> Result<(), String> {
    let c = q.channels();
    if c == 0 || !q.weights.len().is_multiple_of(c) {
        return Err("the weights do not split into output channels".into());
    }
    let mut bound = vec![0i64; c];
    for (i, &w) in q.weights.iter().enumerate() {
        let ch = if columns {
            i % c
        } else {
            i / (q.weights.len() / c)
        };
        bound[ch] += i64::from(w).abs();
    }
    if let Some((ch, &b)) = bound
        .iter()
        .enumerate()
        .find(|(_, b)| **b * MAX_INPUT >= F32_EXACT)
    {
        return Err(format!(
            "output channel {ch} may sum to {} (255 · Σ|w|), past 2^24, where oneDNN's \
             int8 kernels compute in f32",
            b * MAX_INPUT
        ));
    }
    if !vnni {
        if src != Elem::U8 {
            return Err("an i8 input without VNNI (oneDNN halves the weights there)".into());
        }
        if let Some(w) = q
            .weights
            .iter()
            .find(|&&w| !(-MAX_WEIGHT_WITHOUT_VNNI..=MAX_WEIGHT_WITHOUT_VNNI).contains(&w))
        {
            return Err(format!(
                "weight {w} outside [-64, 64] without VNNI (pairs of u8 × s8 products \
                 saturate at 16 bits)"
            ));
        }
    }
    Ok(())
}

/// The requantization of one integer op's `s32` sums, run by the runtime after the primitive.
pub struct Requantize {
    /// The buffer holding the sums (`s32`, channels innermost).
    pub acc: usize,
    /// The buffer the stored results go to (8-bit, the same order).
    pub out: usize,
    /// Elements.
    pub n: usize,
    /// Output channels (the innermost dim).
    pub channels: usize,
    /// Positions the corrections differ over (1, or the output's spatial positions).
    pub spatial: usize,
    /// `bias − Zx·Σ w` per (position, channel), `spatial × channels`.
    pub corr: Vec<i32>,
    /// The multiplier of each channel (or one for all), or, with `position_mults`, the
    /// multipliers those index.
    pub mults: Vec<FixedMultiplier>,
    /// Empty, or for each of the `spatial` positions the index of its multiplier in `mults`
    /// (an average pooling's windows differ in their position counts at the borders).
    pub position_mults: Vec<u32>,
    /// The result's zero point.
    pub zero_point: i32,
    /// The clamp.
    pub lo: i32,
    /// The clamp.
    pub hi: i32,
    /// How ties round.
    pub rounding: Rounding,
    /// Whether results are `s8` (else `u8`).
    pub signed: bool,
}

impl Requantize {
    /// Writes the stored results of `acc` into `out`.
    pub fn apply(&self, acc: &[i32], out: &mut [u8]) {
        let (c, s) = (self.channels, self.spatial);
        for (i, (&a, y)) in acc.iter().zip(out.iter_mut()).take(self.n).enumerate() {
            let ch = i % c;
            let pos = (i / c) % s;
            let total = a.wrapping_add(self.corr[pos * c + ch]);
            let at = match self.position_mults.get(pos) {
                Some(&j) => j as usize,
                None if self.mults.len() == 1 => 0,
                None => ch,
            };
            let m = self.mults[at];
            let r = (i128::from(self.zero_point) + m.apply(i128::from(total), self.rounding))
                .clamp(i128::from(self.lo), i128::from(self.hi)) as i32;
            *y = if self.signed { r as i8 as u8 } else { r as u8 };
        }
    }
}

/// `qnn.add` computed by the runtime (oneDNN's int8 binary ops scale and round in `f32`):
/// `clamp(Zy + round((qa − Za)·fa + (qb − Zb)·fb, shift))`, the exact sum of both fixed-point
/// products at their common shift rounded once, as `nart_tensor::qnn::add` does.
pub struct Add {
    /// The operands' buffers (row-major, 8-bit).
    pub inputs: [usize; 2],
    /// The result's buffer (row-major, 8-bit).
    pub out: usize,
    /// Elements.
    pub n: usize,
    /// Whether each operand, then the result, is `s8` (else `u8`).
    pub signed: [bool; 3],
    /// The operands' zero points.
    pub zero_points: [i32; 2],
    /// The operands' multipliers at the common shift.
    pub factors: [i128; 2],
    /// The common right shift.
    pub shift: i32,
    /// The result's zero point.
    pub zero_point: i32,
    /// The clamp.
    pub lo: i32,
    /// The clamp.
    pub hi: i32,
    /// How ties round.
    pub rounding: Rounding,
}

impl Add {
    /// Writes the sums of `a` and `b` into `out`.
    pub fn apply(&self, a: &[u8], b: &[u8], out: &mut [u8]) {
        let value = |x: u8, signed: bool| {
            if signed {
                i128::from(x as i8)
            } else {
                i128::from(x)
            }
        };
        let [za, zb] = self.zero_points.map(i128::from);
        let [fa, fb] = self.factors;
        for ((&x, &y), o) in a.iter().zip(b).zip(out.iter_mut()).take(self.n) {
            let p = (value(x, self.signed[0]) - za) * fa + (value(y, self.signed[1]) - zb) * fb;
            let r = (i128::from(self.zero_point) + rounding_shift(p, self.shift, self.rounding))
                .clamp(i128::from(self.lo), i128::from(self.hi)) as i32;
            *o = if self.signed[2] {
                r as i8 as u8
            } else {
                r as u8
            };
        }
    }
}

/// `quant.qcast`, `quant.dcast` or `qnn.requantize` computed by the runtime, as
/// `nart_tensor::qnn`'s `quantize`, `dequantize` (for `f32`) and `requantize` (per tensor)
/// do.
pub struct Cast {
    /// The operand's buffer (row-major).
    pub input: usize,
    /// The result's buffer (row-major).
    pub out: usize,
    /// Elements.
    pub n: usize,
    /// Which way, and with what.
    pub kind: CastKind,
}

/// The direction of a [`Cast`].
pub enum CastKind {
    /// `f32` to 8-bit: `clamp(Z + round_half_even(x / S), lo, hi)`, the division in `f32`,
    /// NaN giving `Z`.
    Quantize {
        /// The scale.
        scale: f32,
        /// The zero point.
        zero_point: i32,
        /// The clamp.
        lo: i32,
        /// The clamp.
        hi: i32,
        /// Whether the result is `s8` (else `u8`).
        signed: bool,
    },
    /// 8-bit to 8-bit: `clamp(Zy + M ⊗ (q − Zx), lo, hi)`.
    Requantize {
        /// The operand's zero point.
        src_zero_point: i32,
        /// The multiplier.
        multiplier: FixedMultiplier,
        /// The result's zero point.
        zero_point: i32,
        /// The clamp.
        lo: i32,
        /// The clamp.
        hi: i32,
        /// How ties round.
        rounding: Rounding,
        /// Whether the operand, then the result, is `s8` (else `u8`).
        signed: [bool; 2],
    },
    /// 8-bit to `f32`: `(q − Z) · S` in `f32`.
    Dequantize {
        /// The scale.
        scale: f32,
        /// The zero point.
        zero_point: i32,
        /// Whether the operand is `s8` (else `u8`).
        signed: bool,
    },
}

impl Cast {
    /// Quantizes `x` into the bytes `out`.
    pub fn quantize(&self, x: &[f32], out: &mut [u8]) {
        let CastKind::Quantize {
            scale,
            zero_point,
            lo,
            hi,
            signed,
        } = self.kind
        else {
            return;
        };
        for (&v, o) in x.iter().zip(out.iter_mut()).take(self.n) {
            let d = v / scale;
            let r = if d.is_nan() {
                f64::from(zero_point)
            } else {
                f64::from(d).round_ties_even() + f64::from(zero_point)
            };
            let q = r.clamp(f64::from(lo), f64::from(hi)) as i32;
            *o = if signed { q as i8 as u8 } else { q as u8 };
        }
    }

    /// Requantizes the bytes `x` into `out`.
    pub fn requantize(&self, x: &[u8], out: &mut [u8]) {
        let CastKind::Requantize {
            src_zero_point,
            multiplier,
            zero_point,
            lo,
            hi,
            rounding,
            signed,
        } = self.kind
        else {
            return;
        };
        for (&b, o) in x.iter().zip(out.iter_mut()).take(self.n) {
            let q = if signed[0] {
                i128::from(b as i8)
            } else {
                i128::from(b)
            };
            let r = (i128::from(zero_point)
                + multiplier.apply(q - i128::from(src_zero_point), rounding))
            .clamp(i128::from(lo), i128::from(hi)) as i32;
            *o = if signed[1] { r as i8 as u8 } else { r as u8 };
        }
    }

    /// Dequantizes the bytes `x` into `out`.
    pub fn dequantize(&self, x: &[u8], out: &mut [f32]) {
        let CastKind::Dequantize {
            scale,
            zero_point,
            signed,
        } = self.kind
        else {
            return;
        };
        let z = zero_point as f32;
        for (&b, o) in x.iter().zip(out.iter_mut()).take(self.n) {
            let q = if signed {
                f32::from(b as i8)
            } else {
                f32::from(b)
            };
            *o = (q - z) * scale;
        }
    }
}

/// The window of a convolution, for its corrections.
pub struct ConvWindow<'a> {
    /// The input's spatial dims.
    pub input: &'a [i64],
    /// The output's spatial dims.
    pub output: &'a [i64],
    /// The kernel's spatial dims.
    pub kernel: &'a [i64],
    /// Strides.
    pub strides: &'a [i64],
    /// Dilations (1 = dense).
    pub dilations: &'a [i64],
    /// Padding before.
    pub pads_begin: &'a [i64],
    /// Padding after.
    pub pads_end: &'a [i64],
}

/// The corrections `bias[c] − Zx · Σ w[c, ·]` of a convolution (weights `[C, per]`, `per` =
/// input channels per group × kernel positions): one row when no window reaches padding or
/// `Zx = 0`, else one per output position, the sum over the kernel positions inside the input
/// (padded positions stand for real zeros, which oneDNN's zero padding already leaves out).
/// Returns `(spatial, corr)`.
pub fn conv_corrections(q: &Requant, win: &ConvWindow<'_>) -> (usize, Vec<i32>) {
    let c = q.channels();
    let per = q.weights.len() / c;
    let zx = q.src_zero_point;
    let padded = win.pads_begin.iter().chain(win.pads_end).any(|&p| p != 0);
    if zx == 0 || !padded {
        let corr = (0..c)
            .map(|ch| {
                let s = q.weights[ch * per..(ch + 1) * per]
                    .iter()
                    .fold(0i32, |s, &w| s.wrapping_add(i32::from(w)));
                q.bias[ch].wrapping_sub(zx.wrapping_mul(s))
            })
            .collect();
        return (1, corr);
    }
    let nk: usize = win.kernel.iter().map(|&k| k as usize).product();
    let cin = per / nk.max(1);
    // The weight sum of each channel at each kernel position, over its input channels.
    let mut wk = vec![0i32; c * nk];
    for ch in 0..c {
        for ci in 0..cin {
            for k in 0..nk {
                let w = i32::from(q.weights[ch * per + ci * nk + k]);
                wk[ch * nk + k] = wk[ch * nk + k].wrapping_add(w);
            }
        }
    }
    let sp = win.output.len();
    let no: usize = win.output.iter().map(|&d| d as usize).product();
    let mut corr = Vec::with_capacity(no * c);
    let (mut oc, mut kc) = (vec![0i64; sp], vec![0i64; sp]);
    let mut inside = vec![false; nk];
    for o in 0..no {
        unravel(o, win.output, &mut oc);
        for (k, inside) in inside.iter_mut().enumerate() {
            unravel(k, win.kernel, &mut kc);
            *inside = (0..sp).all(|d| {
                let pos = oc[d] * win.strides[d] + kc[d] * win.dilations[d] - win.pads_begin[d];
                (0..win.input[d]).contains(&pos)
            });
        }
        for ch in 0..c {
            let s = (0..nk)
                .filter(|&k| inside[k])
                .fold(0i32, |s, k| s.wrapping_add(wk[ch * nk + k]));
            corr.push(q.bias[ch].wrapping_sub(zx.wrapping_mul(s)));
        }
    }
    (no, corr)
}

/// For each output position of `win` (row-major), how many of its window's positions lie
/// inside the input.
pub fn window_counts(win: &ConvWindow<'_>) -> Vec<usize> {
    let sp = win.output.len();
    let no: usize = win.output.iter().map(|&d| d as usize).product();
    let nk: usize = win.kernel.iter().map(|&k| k as usize).product();
    let (mut oc, mut kc) = (vec![0i64; sp], vec![0i64; sp]);
    (0..no)
        .map(|o| {
            unravel(o, win.output, &mut oc);
            (0..nk)
                .filter(|&k| {
                    unravel(k, win.kernel, &mut kc);
                    (0..sp).all(|d| {
                        let pos =
                            oc[d] * win.strides[d] + kc[d] * win.dilations[d] - win.pads_begin[d];
                        (0..win.input[d]).contains(&pos)
                    })
                })
                .count()
        })
        .collect()
}

/// The corrections `bias[j] − Zx · Σ_k w[k, j]` of a matmul (weights `[K, N]`).
pub fn matmul_corrections(q: &Requant) -> Vec<i32> {
    let n = q.channels();
    let mut sums = vec![0i32; n];
    for (i, &w) in q.weights.iter().enumerate() {
        sums[i % n] = sums[i % n].wrapping_add(i32::from(w));
    }
    (0..n)
        .map(|j| q.bias[j].wrapping_sub(q.src_zero_point.wrapping_mul(sums[j])))
        .collect()
}

/// The multipliers of `q`.
pub fn multipliers(q: &Requant) -> Vec<FixedMultiplier> {
    q.multipliers
        .iter()
        .map(|&(m, shift)| FixedMultiplier { m, shift })
        .collect()
}

/// The coordinates of row-major index `i` in `dims`.
fn unravel(mut i: usize, dims: &[i64], out: &mut [i64]) {
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1) as usize;
        out[d] = (i % n) as i64;
        i /= n;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn requant(weights: Vec<i8>, channels: usize) -> Requant {
        Requant {
            weight_dims: vec![weights.len() as i64],
            weights: Arc::new(weights),
            bias: vec![0; channels],
            src_zero_point: 3,
            multipliers: vec![(1 << 30, 1)],
            zero_point: 0,
            lo: 0,
            hi: 255,
            rounding: Rounding::HalfEven,
        }
    }

    #[test]
    fn sums_past_2_pow_24_are_refused() {
        // 255 · 127 · 518 = 16 774 830 < 2^24; one more weight passes it.
        let ok = requant(vec![127; 518], 1);
        assert_eq!(exactness(&ok, Elem::U8, false, true), Ok(()));
        let big = requant(vec![127; 519], 1);
        let e = exactness(&big, Elem::U8, false, true).unwrap_err();
        assert!(e.contains("2^24"), "{e}");
    }

    #[test]
    fn without_vnni_only_u8_inputs_and_7_bit_weights() {
        let q = requant(vec![64, -64, 3], 1);
        assert_eq!(exactness(&q, Elem::U8, false, false), Ok(()));
        assert!(exactness(&q, Elem::S8, false, false).is_err());
        let q = requant(vec![65, 0, 3], 1);
        assert!(exactness(&q, Elem::U8, false, false)
            .unwrap_err()
            .contains("65"));
        assert_eq!(exactness(&q, Elem::S8, false, true), Ok(()));
    }

    #[test]
    fn padded_corrections_count_the_kernel_positions_inside() {
        // One channel, a 1-D kernel of 3 ones over 4 inputs, padding 1 on both sides: the
        // first and last outputs see 2 inputs, the middle ones 3.
        let mut q = requant(vec![1, 1, 1], 1);
        q.bias = vec![10];
        let win = ConvWindow {
            input: &[4],
            output: &[4],
            kernel: &[3],
            strides: &[1],
            dilations: &[1],
            pads_begin: &[1],
            pads_end: &[1],
        };
        let (s, corr) = conv_corrections(&q, &win);
        assert_eq!(s, 4);
        assert_eq!(corr, vec![10 - 3 * 2, 10 - 3 * 3, 10 - 3 * 3, 10 - 3 * 2]);
    }

    #[test]
    fn window_counts_leave_padding_out() {
        // A 2-D window of 2 × 3 over 3 × 3 inputs, stride 2, one padded row and column
        // before: the first output row's windows lose their padded row, the first column's
        // their padded column.
        let win = ConvWindow {
            input: &[3, 3],
            output: &[2, 2],
            kernel: &[2, 3],
            strides: &[2, 2],
            dilations: &[1, 1],
            pads_begin: &[1, 1],
            pads_end: &[0, 1],
        };
        assert_eq!(window_counts(&win), vec![2, 2, 4, 4]);
    }

    #[test]
    fn position_multipliers_override_the_channels() {
        // Two positions, one channel: M = 1/2 at the first, M = 1/4 at the second.
        let r = Requantize {
            acc: 0,
            out: 0,
            n: 2,
            channels: 1,
            spatial: 2,
            corr: vec![0, 0],
            mults: vec![
                FixedMultiplier {
                    m: 1 << 30,
                    shift: 0,
                },
                FixedMultiplier {
                    m: 1 << 30,
                    shift: -1,
                },
            ],
            position_mults: vec![0, 1],
            zero_point: 0,
            lo: 0,
            hi: 255,
            rounding: Rounding::HalfEven,
            signed: false,
        };
        let mut out = [0u8; 2];
        r.apply(&[40, 40], &mut out);
        assert_eq!(out, [20, 10]);
    }

    #[test]
    fn requantize_applies_the_fixed_multiplier_and_clamps() {
        // M = 0.5: (m, shift) = (2^30, 0); totals 7 → 3.5 → 4 (ties to even), 5 → 2.5 → 2.
        let r = Requantize {
            acc: 0,
            out: 0,
            n: 3,
            channels: 1,
            spatial: 1,
            corr: vec![1],
            mults: vec![FixedMultiplier {
                m: 1 << 30,
                shift: 0,
            }],
            position_mults: Vec::new(),
            zero_point: 100,
            lo: 0,
            hi: 103,
            rounding: Rounding::HalfEven,
            signed: false,
        };
        let mut out = [0u8; 3];
        r.apply(&[6, 4, 100], &mut out);
        assert_eq!(out, [103, 102, 103]);
    }
}
