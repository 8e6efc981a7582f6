//! Signal processing: DFT, STFT and the window generators HannWindow, HammingWindow and
//! BlackmanWindow.
//!
//! Transforms compute in f64 by direct summation and round once to the input type.

use std::f64::consts::PI;

use crate::layout::{norm_axis, outer_axis_inner};
use crate::{DType, KernelError, Result, Tensor};

/// Attributes of DFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DftAttrs {
    /// The transformed axis; negative counts from the end of the full shape, the trailing
    /// real/imaginary axis included (default -2).
    pub axis: i64,
    /// The inverse transform (scaled by `1 / n`).
    pub inverse: bool,
    /// Keep only the non-negative frequencies (forward), or take them as input (inverse).
    pub onesided: bool,
    /// The transform length (default: the axis length; `2 * (len - 1)` for a one-sided inverse).
    pub dft_length: Option<usize>,
}

impl Default for DftAttrs {
    fn default() -> Self {
        DftAttrs {
            axis: -2,
            inverse: false,
            onesided: false,
            dft_length: None,
        }
    }
}

/// ONNX DFT: `x [..., 1 or 2]` (real, or real and imaginary parts) along one axis; the output
/// ends in 2 (complex), or in 1 for a one-sided inverse (real).
pub fn dft(x: &Tensor, a: &DftAttrs) -> Result<Tensor> {
    const OP: &str = "DFT";
    let s = x.shape().to_vec();
    let r = s.len();
    if r < 2 || !(s[r - 1] == 1 || s[r - 1] == 2) {
        return Err(KernelError::shape(
            OP,
            format!("input must end in a dimension of 1 or 2, got {s:?}"),
        ));
    }
    let axis = if a.axis < 0 {
        a.axis + r as i64
    } else {
        a.axis
    };
    let ax = norm_axis(OP, axis, r - 1)?;
    let len = s[ax];
    let nfft = match a.dft_length {
        Some(n) => n,
        None if a.inverse && a.onesided => 2 * len.saturating_sub(1),
        None => len,
    };
    let xv = x.float_values(OP)?;
    if a.inverse && a.onesided {
        return irfft(x.dtype(), &s, &xv, ax, nfft);
    }
    let out_len = if a.onesided { nfft / 2 + 1 } else { nfft };
    let complex_in = s[r - 1] == 2;
    let (outer, _, inner) = outer_axis_inner(&s[..r - 1], ax);
    let mut y = vec![0f64; outer * out_len * inner * 2];
    let sign = if a.inverse { 1.0 } else { -1.0 };
    for o in 0..outer {
        for k in 0..inner {
            for f in 0..out_len {
                let (mut re, mut im) = (0.0, 0.0);
                for t in 0..nfft.min(len) {
                    let base = ((o * len + t) * inner + k) * s[r - 1];
                    let (xr, xi) = (xv[base], if complex_in { xv[base + 1] } else { 0.0 });
                    let ang = sign * 2.0 * PI * (f * t) as f64 / nfft as f64;
                    re += xr * ang.cos() - xi * ang.sin();
                    im += xr * ang.sin() + xi * ang.cos();
                }
                if a.inverse {
                    re /= nfft as f64;
                    im /= nfft as f64;
                }
                let at = ((o * out_len + f) * inner + k) * 2;
                y[at] = re;
                y[at + 1] = im;
            }
        }
    }
    let mut shape = s;
    shape[ax] = out_len;
    shape[r - 1] = 2;
    Tensor::from_f64(x.dtype(), shape, y)
}

/// The inverse of a one-sided DFT: Hermitian-symmetric spectrum in, `nfft` real values out.
fn irfft(dt: DType, s: &[usize], xv: &[f64], ax: usize, nfft: usize) -> Result<Tensor> {
    let r = s.len();
    let len = s[ax];
    let complex_in = s[r - 1] == 2;
    let (outer, _, inner) = outer_axis_inner(&s[..r - 1], ax);
    let mut y = vec![0f64; outer * nfft * inner];
    let half = nfft / 2;
    for o in 0..outer {
        for k in 0..inner {
            for t in 0..nfft {
                let mut acc = 0.0;
                for f in 0..=half.min(len.saturating_sub(1)) {
                    let base = ((o * len + f) * inner + k) * s[r - 1];
                    let xr = xv[base];
                    let xi = if complex_in { xv[base + 1] } else { 0.0 };
                    let ang = 2.0 * PI * (f * t) as f64 / nfft as f64;
                    let edge = f == 0 || (nfft.is_multiple_of(2) && f == half);
                    acc += if edge {
                        xr * ang.cos()
                    } else {
                        2.0 * (xr * ang.cos() - xi * ang.sin())
                    };
                }
                y[(o * nfft + t) * inner + k] = acc / nfft as f64;
            }
        }
    }
    let mut shape = s.to_vec();
    shape[ax] = nfft;
    shape[r - 1] = 1;
    Tensor::from_f64(dt, shape, y)
}

/// ONNX STFT: `signal [batch, length, 1 or 2]`, frames `frame_step` apart, each multiplied by
/// `window` (length `frame_length`, default all ones); out `[batch, frames, bins, 2]`.
pub fn stft(
    signal: &Tensor,
    frame_step: usize,
    window: Option<&Tensor>,
    frame_length: Option<usize>,
    onesided: bool,
) -> Result<Tensor> {
    const OP: &str = "STFT";
    let s = signal.shape();
    if s.len() != 3 || !(s[2] == 1 || s[2] == 2) {
        return Err(KernelError::shape(
            OP,
            format!("signal must be [batch, length, 1 or 2], got {s:?}"),
        ));
    }
    let step = frame_step.max(1);
    let window = window.map(|w| w.to_f64_vec()).transpose()?;
    let flen = match (frame_length, &window) {
        (Some(l), _) => l.max(1),
        (None, Some(w)) => w.len(),
        (None, None) => {
            return Err(KernelError::Arity {
                op: OP,
                msg: "needs a window or a frame_length".into(),
            })
        }
    };
    if window.as_ref().is_some_and(|w| w.len() < flen) {
        return Err(KernelError::shape(
            OP,
            "the window is shorter than frame_length",
        ));
    }
    let (batch, len, comp) = (s[0], s[1], s[2]);
    if flen > len {
        return Err(KernelError::shape(
            OP,
            "frame_length exceeds the signal length",
        ));
    }
    let frames = 1 + (len - flen) / step;
    let bins = if onesided { flen / 2 + 1 } else { flen };
    let xv = signal.float_values(OP)?;
    let mut out = vec![0f64; batch * frames * bins * 2];
    for b in 0..batch {
        for f in 0..frames {
            for k in 0..bins {
                let (mut re, mut im) = (0.0, 0.0);
                for t in 0..flen {
                    let at = (b * len + f * step + t) * comp;
                    let wt = window.as_ref().map_or(1.0, |w| w[t]);
                    let (xr, xi) = (xv[at] * wt, if comp == 2 { xv[at + 1] * wt } else { 0.0 });
                    let ang = -2.0 * PI * (k * t) as f64 / flen as f64;
                    re += xr * ang.cos() - xi * ang.sin();
                    im += xr * ang.sin() + xi * ang.cos();
                }
                let at = ((b * frames + f) * bins + k) * 2;
                out[at] = re;
                out[at + 1] = im;
            }
        }
    }
    Tensor::from_f64(signal.dtype(), vec![batch, frames, bins, 2], out)
}

/// A window function of ONNX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowKind {
    /// `0.5 - 0.5 cos(2 pi k / N)`.
    Hann,
    /// `25/46 - 21/46 cos(2 pi k / N)`.
    Hamming,
    /// `0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N)`.
    Blackman,
}

/// ONNX HannWindow, HammingWindow and BlackmanWindow: `size` values of type `dtype`; `periodic`
/// divides by `size` (the window of a longer periodic signal), otherwise by `size - 1`.
pub fn window(kind: WindowKind, size: usize, periodic: bool, dtype: DType) -> Result<Tensor> {
    let n = if periodic {
        size as f64
    } else {
        size as f64 - 1.0
    };
    let v = (0..size)
        .map(|k| {
            let x = 2.0 * PI * k as f64 / n;
            match kind {
                WindowKind::Hann => 0.5 - 0.5 * x.cos(),
                WindowKind::Hamming => 25.0 / 46.0 - 21.0 / 46.0 * x.cos(),
                WindowKind::Blackman => 0.42 - 0.5 * x.cos() + 0.08 * (2.0 * x).cos(),
            }
        })
        .collect();
    Tensor::from_f64(dtype, vec![size], v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{close, f};

    #[test]
    fn dft_of_an_impulse_is_flat_and_inverts() {
        let x = f(&[4, 1], [1.0, 0.0, 0.0, 0.0]);
        let y = dft(&x, &DftAttrs::default()).unwrap();
        assert_eq!(y.shape(), &[4, 2]);
        close(y.as_f32().unwrap(), &[1., 0., 1., 0., 1., 0., 1., 0.], 1e-6);
        let back = dft(
            &y,
            &DftAttrs {
                inverse: true,
                ..DftAttrs::default()
            },
        )
        .unwrap();
        close(
            back.as_f32().unwrap(),
            &[1., 0., 0., 0., 0., 0., 0., 0.],
            1e-6,
        );
        let half = dft(
            &x,
            &DftAttrs {
                onesided: true,
                ..DftAttrs::default()
            },
        )
        .unwrap();
        assert_eq!(half.shape(), &[3, 2]);
    }

    #[test]
    fn windows() {
        let w = window(WindowKind::Hann, 4, true, DType::F32).unwrap();
        close(w.as_f32().unwrap(), &[0.0, 0.5, 1.0, 0.5], 1e-6);
        let w = window(WindowKind::Hann, 3, false, DType::F32).unwrap();
        close(w.as_f32().unwrap(), &[0.0, 1.0, 0.0], 1e-6);
    }

    #[test]
    fn stft_frames() {
        let x = f(&[1, 4, 1], [1.0, 1.0, 1.0, 1.0]);
        let y = stft(&x, 2, None, Some(2), true).unwrap();
        assert_eq!(y.shape(), &[1, 2, 2, 2]);
        close(y.as_f32().unwrap(), &[2., 0., 0., 0., 2., 0., 0., 0.], 1e-6);
    }
}
