//! Loss functions: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
//!
//! Both compute in f64 and round once to the input type.

use crate::{norm, DType, KernelError, Result, Tensor};

/// How a loss reduces its per-element values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LossReduction {
    /// Keep one loss per target element.
    None,
    /// Their sum.
    Sum,
    /// Their weighted mean (divided by the sum of the weights applied).
    #[default]
    Mean,
}

impl LossReduction {
    /// The reduction called `name` in ONNX's `reduction` attribute.
    pub fn parse(name: &str) -> Option<LossReduction> {
        Some(match name {
            "none" => LossReduction::None,
            "sum" => LossReduction::Sum,
            "mean" => LossReduction::Mean,
            _ => return None,
        })
    }
}

/// Attributes of the losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LossAttrs {
    /// How the per-element losses are reduced.
    pub reduction: LossReduction,
    /// A target class that contributes nothing (neither loss nor weight).
    pub ignore_index: Option<i64>,
}

/// Negative log-likelihood over log-probabilities `input [N, C, d...]` with `target [N, d...]`:
/// the output shape and values.
fn nll(
    op: &'static str,
    input: &[f64],
    in_shape: &[usize],
    target: &Tensor,
    weight: Option<&Tensor>,
    a: LossAttrs,
) -> Result<(Vec<usize>, Vec<f64>)> {
    if in_shape.len() < 2 {
        return Err(KernelError::shape(op, "input must have rank 2 or more"));
    }
    let (nb, c) = (in_shape[0], in_shape[1]);
    let inner: usize = in_shape[2..].iter().product();
    let mut tshape = vec![nb];
    tshape.extend_from_slice(&in_shape[2..]);
    if target.shape() != tshape.as_slice() {
        return Err(KernelError::shape(
            op,
            format!(
                "target shape {:?} does not fit input {in_shape:?}",
                target.shape()
            ),
        ));
    }
    let weight = weight.map(|w| w.to_f64_vec()).transpose()?;
    if weight.as_ref().is_some_and(|w| w.len() != c) {
        return Err(KernelError::shape(
            op,
            format!("weight must have {c} entries, one per class"),
        ));
    }
    let t = target.to_i64_vec()?;
    let mut loss = vec![0f64; nb * inner];
    let mut wsum = 0f64;
    for b in 0..nb {
        for k in 0..inner {
            let cls = t[b * inner + k];
            if Some(cls) == a.ignore_index {
                continue;
            }
            if cls < 0 || cls as usize >= c {
                return Err(KernelError::IndexOutOfRange {
                    op,
                    index: cls,
                    size: c,
                });
            }
            let w = weight.as_ref().map_or(1.0, |w| w[cls as usize]);
            loss[b * inner + k] = -input[(b * c + cls as usize) * inner + k] * w;
            wsum += w;
        }
    }
    Ok(match a.reduction {
        LossReduction::None => (tshape, loss),
        LossReduction::Sum => (vec![], vec![loss.iter().sum()]),
        LossReduction::Mean => (vec![], vec![loss.iter().sum::<f64>() / wsum]),
    })
}

/// ONNX NegativeLogLikelihoodLoss: `input [N, C, d...]` log-probabilities, `target [N, d...]`
/// class indices, optional per-class `weight [C]`.
pub fn nll_loss(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    a: LossAttrs,
) -> Result<Tensor> {
    const OP: &str = "NegativeLogLikelihoodLoss";
    let (shape, v) = nll(
        OP,
        &input.float_values(OP)?,
        input.shape(),
        target,
        weight,
        a,
    )?;
    Tensor::from_f64(input.dtype(), shape, v)
}

/// ONNX SoftmaxCrossEntropyLoss: the loss of `scores [N, C, d...]` against `labels [N, d...]`,
/// and the log-probabilities (LogSoftmax over axis 1).
pub fn softmax_cross_entropy_loss(
    scores: &Tensor,
    labels: &Tensor,
    weight: Option<&Tensor>,
    a: LossAttrs,
) -> Result<(Tensor, Tensor)> {
    const OP: &str = "SoftmaxCrossEntropyLoss";
    if !scores.dtype().is_float() {
        return Err(KernelError::dtype(OP, scores.dtype()));
    }
    let logp = norm::log_softmax(&scores.cast(DType::F64)?, 1)?;
    let (shape, v) = nll(OP, &logp.to_f64_vec()?, scores.shape(), labels, weight, a)?;
    Ok((
        Tensor::from_f64(scores.dtype(), shape, v)?,
        logp.cast(scores.dtype())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{close, f};

    #[test]
    fn nll_reductions_weights_and_ignore_index() {
        // input [2, 3] log-probabilities, targets [2, 0].
        let x = f(&[2, 3], [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
        let t = Tensor::vector(vec![2i64, 0]);
        let none = LossAttrs {
            reduction: LossReduction::None,
            ignore_index: None,
        };
        let y = nll_loss(&x, &t, None, none).unwrap();
        close(y.as_f32().unwrap(), &[3.0, 4.0], 1e-6);
        let w = f(&[3], [1.0, 1.0, 2.0]);
        let y = nll_loss(&x, &t, Some(&w), LossAttrs::default()).unwrap();
        // (3 * 2 + 4 * 1) / (2 + 1)
        close(y.as_f32().unwrap(), &[10.0 / 3.0], 1e-6);
        let ignore = LossAttrs {
            reduction: LossReduction::Sum,
            ignore_index: Some(0),
        };
        let y = nll_loss(&x, &t, None, ignore).unwrap();
        close(y.as_f32().unwrap(), &[3.0], 1e-6);
        let bad = Tensor::vector(vec![3i64, 0]);
        assert!(nll_loss(&x, &bad, None, none).is_err());
    }

    #[test]
    fn softmax_cross_entropy_of_equal_scores() {
        let x = f(&[1, 2], [0.0, 0.0]);
        let t = Tensor::vector(vec![1i64]);
        let (loss, logp) = softmax_cross_entropy_loss(&x, &t, None, LossAttrs::default()).unwrap();
        close(loss.as_f32().unwrap(), &[std::f32::consts::LN_2], 1e-6);
        close(logp.as_f32().unwrap(), &[-std::f32::consts::LN_2; 2], 1e-6);
    }
}
