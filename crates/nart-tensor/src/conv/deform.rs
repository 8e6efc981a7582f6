//! DeformConv: 2-D convolution whose taps are shifted by learned offsets and scaled by an
//! optional mask, sampling the input bilinearly.

use super::ConvAttrs;
use crate::{KernelError, Result, Tensor};

/// `v`, or `len` copies of `dflt` when empty.
fn or_default(attr: &'static str, v: &[usize], dflt: usize, len: usize) -> Result<Vec<i64>> {
    if v.is_empty() {
        return Ok(vec![dflt as i64; len]);
    }
    if v.len() != len {
        return Err(KernelError::attr(
            "DeformConv",
            attr,
            format!("expected {len} values, got {v:?}"),
        ));
    }
    Ok(v.iter().map(|&x| x as i64).collect())
}

/// The bilinear sample of the `ih x iw` plane at `(h, w)`, zero outside.
fn sample(plane: &[f64], ih: usize, iw: usize, h: f64, w: f64) -> f64 {
    let (h0, w0) = (h.floor(), w.floor());
    let mut acc = 0.0;
    for (dh, wh) in [(0.0, 1.0 - (h - h0)), (1.0, h - h0)] {
        for (dw, ww) in [(0.0, 1.0 - (w - w0)), (1.0, w - w0)] {
            let (y, x) = (h0 + dh, w0 + dw);
            if y >= 0.0 && x >= 0.0 && (y as usize) < ih && (x as usize) < iw {
                acc += wh * ww * plane[y as usize * iw + x as usize];
            }
        }
    }
    acc
}

/// ONNX DeformConv (2-D): `x [N, C, H, W]`, weights `w [OC, C / group, kH, kW]`, offsets
/// `[N, offset_group * kH * kW * 2, oH, oW]` (dy, dx per tap), optional bias `[OC]` and mask
/// `[N, offset_group * kH * kW, oH, oW]`; `attrs.auto_pad` and `attrs.kernel_shape` are not used.
pub fn deform_conv(
    x: &Tensor,
    w: &Tensor,
    offset: &Tensor,
    bias: Option<&Tensor>,
    mask: Option<&Tensor>,
    attrs: &ConvAttrs,
    offset_group: usize,
) -> Result<Tensor> {
    const OP: &str = "DeformConv";
    let (xs, ws, os) = (x.shape(), w.shape(), offset.shape());
    if xs.len() != 4 || ws.len() != 4 || os.len() != 4 {
        return Err(KernelError::shape(
            OP,
            "only 2-D deformable convolution is supported",
        ));
    }
    let (nb, ic, ih, iw) = (xs[0], xs[1], xs[2], xs[3]);
    let (oc, icg, kh, kw) = (ws[0], ws[1], ws[2], ws[3]);
    let (oh, ow) = (os[2], os[3]);
    let (group, og) = (attrs.group.max(1), offset_group.max(1));
    let dil = or_default("dilations", &attrs.dilations, 1, 2)?;
    let pads = or_default("pads", &attrs.pads, 0, 4)?;
    let st = or_default("strides", &attrs.strides, 1, 2)?;
    let taps = og * kh * kw;
    if ic != icg * group
        || oc % group != 0
        || ic % og != 0
        || os[1] != taps * 2
        || os[0] != nb
        || bias.is_some_and(|b| b.len() != oc)
        || mask.is_some_and(|m| m.len() != nb * taps * oh * ow)
    {
        return Err(KernelError::shape(
            OP,
            format!("X {xs:?}, W {ws:?} and offset {os:?} do not fit"),
        ));
    }
    let (xv, wv, ov) = (x.float_values(OP)?, w.to_f64_vec()?, offset.to_f64_vec()?);
    let mv = mask.map(|m| m.to_f64_vec()).transpose()?;
    let bv = bias.map(|b| b.to_f64_vec()).transpose()?;
    let (ocg, icog) = (oc / group, ic / og);
    let mut out = vec![0f64; nb * oc * oh * ow];
    for b in 0..nb {
        for o in 0..oc {
            let g = o / ocg;
            for y in 0..oh {
                for xx in 0..ow {
                    let mut acc = bv.as_ref().map_or(0.0, |bv| bv[o]);
                    for c in g * icg..(g + 1) * icg {
                        let ogi = c / icog;
                        let plane = &xv[(b * ic + c) * ih * iw..(b * ic + c + 1) * ih * iw];
                        for a in 0..kh {
                            for k in 0..kw {
                                let kk = (ogi * kh + a) * kw + k;
                                let at = |ch: usize| ((b * os[1] + ch) * oh + y) * ow + xx;
                                let (dh, dw) = (ov[at(kk * 2)], ov[at(kk * 2 + 1)]);
                                let h =
                                    (y as i64 * st[0] - pads[0] + a as i64 * dil[0]) as f64 + dh;
                                let wc =
                                    (xx as i64 * st[1] - pads[1] + k as i64 * dil[1]) as f64 + dw;
                                let m = mv
                                    .as_ref()
                                    .map_or(1.0, |m| m[((b * taps + kk) * oh + y) * ow + xx]);
                                acc += wv[((o * icg + (c - g * icg)) * kh + a) * kw + k]
                                    * m
                                    * sample(plane, ih, iw, h, wc);
                            }
                        }
                    }
                    out[((b * oc + o) * oh + y) * ow + xx] = acc;
                }
            }
        }
    }
    Tensor::from_f64(x.dtype(), vec![nb, oc, oh, ow], out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{ar, f};

    #[test]
    fn zero_offsets_make_a_plain_convolution_and_offsets_shift_taps() {
        // 1x1 kernel of weight 1 over a 2x2 image.
        let x = ar(&[1, 1, 2, 2]);
        let w = f(&[1, 1, 1, 1], [1.0]);
        let zero = f(&[1, 2, 2, 2], [0.0; 8]);
        let y = deform_conv(&x, &w, &zero, None, None, &ConvAttrs::default(), 1).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[0.0, 1.0, 2.0, 3.0]);
        // dx = 0.5 everywhere: halfway to the right neighbour, zero beyond the edge.
        let half = f(&[1, 2, 2, 2], [0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5]);
        let y = deform_conv(&x, &w, &half, None, None, &ConvAttrs::default(), 1).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[0.5, 0.5, 2.5, 1.5]);
    }
}
