//! CausalConvWithState: a causal depthwise 1-D convolution that carries its last inputs as
//! state from one call to the next (Mamba, Gated DeltaNet).

use crate::elementwise::swish;
use crate::{DType, KernelError, Result, Tensor};

/// ONNX CausalConvWithState: `x [B, C, L]` convolved per channel with `w [C, 1, K]` over the
/// `K - 1` inputs of `past_state [B, C, K - 1]` (default zeros) followed by `x`, plus `bias [C]`,
/// with a fused SiLU when `silu`; out `y [B, C, L]` and the new state (the last `K - 1` inputs).
///
/// The output rounds to the input type, and the SiLU computes in f32 as ONNX's reference does.
pub fn causal_conv_with_state(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    past_state: Option<&Tensor>,
    silu: bool,
) -> Result<(Tensor, Tensor)> {
    const OP: &str = "CausalConvWithState";
    let (xs, ws) = (x.shape(), w.shape());
    if xs.len() != 3 || ws.len() != 3 || ws[0] != xs[1] || ws[1] != 1 || ws[2] == 0 {
        return Err(KernelError::shape(
            OP,
            format!("input {xs:?} and weight {ws:?} must be [b, c, l] and [c, 1, k]"),
        ));
    }
    let (b, c, l, kk) = (xs[0], xs[1], xs[2], ws[2]);
    let dt = x.dtype();
    let xv = x.float_values(OP)?;
    let wv = w.float_values(OP)?;
    let bias = bias.map(|t| t.float_values(OP)).transpose()?;
    let pv = match past_state {
        Some(p) => {
            if p.shape() != [b, c, kk - 1] {
                return Err(KernelError::shape(
                    OP,
                    format!("past_state {:?} must be {:?}", p.shape(), [b, c, kk - 1]),
                ));
            }
            p.float_values(OP)?
        }
        None => vec![0.0; b * c * (kk - 1)],
    };
    let pl = l + kk - 1;
    let mut y = vec![0.0; b * c * l];
    let mut state = vec![0.0; b * c * (kk - 1)];
    let mut padded = vec![0.0; pl];
    for bi in 0..b {
        for ci in 0..c {
            let row = bi * c + ci;
            padded[..kk - 1].copy_from_slice(&pv[row * (kk - 1)..(row + 1) * (kk - 1)]);
            padded[kk - 1..].copy_from_slice(&xv[row * l..(row + 1) * l]);
            let wr = &wv[ci * kk..(ci + 1) * kk];
            for t in 0..l {
                let mut s: f64 = (0..kk).map(|j| padded[t + j] * wr[j]).sum();
                if let Some(bv) = &bias {
                    s += bv.get(ci).copied().unwrap_or(0.0);
                }
                let mut o = dt.round(s);
                if silu {
                    o = swish(DType::F32, 1.0, o);
                }
                y[row * l + t] = o;
            }
            state[row * (kk - 1)..(row + 1) * (kk - 1)].copy_from_slice(&padded[pl - (kk - 1)..]);
        }
    }
    Ok((
        Tensor::from_f64(dt, vec![b, c, l], y)?,
        Tensor::from_f64(dt, vec![b, c, kk - 1], state)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::f;

    #[test]
    fn keeps_the_last_inputs_as_state() {
        let x = f(&[1, 1, 3], [1.0, 2.0, 3.0]);
        let w = f(&[1, 1, 2], [1.0, 1.0]);
        let (y, state) = causal_conv_with_state(&x, &w, None, None, false).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[1.0, 3.0, 5.0]);
        assert_eq!(state.as_f32().unwrap(), &[3.0]);
        let past = f(&[1, 1, 1], [10.0]);
        let (y, _) = causal_conv_with_state(&x, &w, None, Some(&past), false).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[11.0, 3.0, 5.0]);
    }
}
