//! Recurrent layers: RNN, GRU and LSTM, forward, reverse or bidirectional, with `sequence_lens`.

use crate::{KernelError, Result, Tensor};

/// An activation function of the recurrent operators, with its alpha and beta.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RnnActivation {
    /// max(0, x).
    Relu,
    /// tanh(x).
    Tanh,
    /// 1 / (1 + e^-x).
    Sigmoid,
    /// alpha * x + beta.
    Affine(f32, f32),
    /// x if x >= 0 else alpha * x.
    LeakyRelu(f32),
    /// x if x > alpha else 0.
    ThresholdedRelu(f32),
    /// alpha * tanh(beta * x).
    ScaledTanh(f32, f32),
    /// max(0, min(1, alpha * x + beta)).
    HardSigmoid(f32, f32),
    /// x if x >= 0 else alpha * (e^x - 1).
    Elu(f32),
    /// x / (1 + |x|).
    Softsign,
    /// ln(1 + e^x).
    Softplus,
}

impl RnnActivation {
    /// Parses an ONNX activation name with its optional alpha and beta (ONNX defaults otherwise).
    pub fn parse(name: &str, alpha: Option<f32>, beta: Option<f32>) -> Option<RnnActivation> {
        Some(match name.to_ascii_lowercase().as_str() {
            "relu" => RnnActivation::Relu,
            "tanh" => RnnActivation::Tanh,
            "sigmoid" => RnnActivation::Sigmoid,
            "affine" => RnnActivation::Affine(alpha.unwrap_or(1.0), beta.unwrap_or(0.0)),
            "leakyrelu" => RnnActivation::LeakyRelu(alpha.unwrap_or(0.01)),
            "thresholdedrelu" => RnnActivation::ThresholdedRelu(alpha.unwrap_or(1.0)),
            "scaledtanh" => RnnActivation::ScaledTanh(alpha.unwrap_or(1.0), beta.unwrap_or(1.0)),
            "hardsigmoid" => RnnActivation::HardSigmoid(alpha.unwrap_or(0.2), beta.unwrap_or(0.5)),
            "elu" => RnnActivation::Elu(alpha.unwrap_or(1.0)),
            "softsign" => RnnActivation::Softsign,
            "softplus" => RnnActivation::Softplus,
            _ => return None,
        })
    }

    fn apply(self, x: f64) -> f64 {
        match self {
            RnnActivation::Relu => x.max(0.0),
            RnnActivation::Tanh => x.tanh(),
            RnnActivation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            RnnActivation::Affine(a, b) => a as f64 * x + b as f64,
            RnnActivation::LeakyRelu(a) => {
                if x >= 0.0 {
                    x
                } else {
                    a as f64 * x
                }
            }
            RnnActivation::ThresholdedRelu(a) => {
                if x > a as f64 {
                    x
                } else {
                    0.0
                }
            }
            RnnActivation::ScaledTanh(a, b) => a as f64 * (b as f64 * x).tanh(),
            RnnActivation::HardSigmoid(a, b) => (a as f64 * x + b as f64).clamp(0.0, 1.0),
            RnnActivation::Elu(a) => {
                if x >= 0.0 {
                    x
                } else {
                    a as f64 * x.exp_m1()
                }
            }
            RnnActivation::Softsign => x / (1.0 + x.abs()),
            RnnActivation::Softplus => x.exp().ln_1p(),
        }
    }
}

/// Direction of a recurrent operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Direction {
    /// First to last step.
    #[default]
    Forward,
    /// Last to first step.
    Reverse,
    /// Both, stacked on the direction axis.
    Bidirectional,
}

/// Which cell to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// Plain RNN, one gate.
    Rnn,
    /// GRU, gates z, r, h.
    Gru {
        /// Apply the reset gate after the recurrent product.
        linear_before_reset: bool,
    },
    /// LSTM, gates i, o, f, c.
    Lstm {
        /// Couple the input and forget gates (`f = 1 - i`).
        input_forget: bool,
    },
}

/// Attributes of RNN, GRU and LSTM.
#[derive(Clone, Debug, PartialEq)]
pub struct RnnAttrs {
    /// The cell.
    pub cell: CellKind,
    /// Hidden size.
    pub hidden_size: usize,
    /// Direction.
    pub direction: Direction,
    /// Activations per direction (RNN: 1, GRU: 2, LSTM: 3 each); empty means the defaults.
    pub activations: Vec<RnnActivation>,
    /// Clip gate inputs to `[-clip, clip]`.
    pub clip: Option<f32>,
    /// Inputs and outputs are batch-major (`layout = 1`).
    pub batch_major: bool,
}

/// Optional inputs of the recurrent operators.
#[derive(Clone, Copy, Debug, Default)]
pub struct RnnInputs<'a> {
    /// Biases `[dirs, 2 * gates * hidden]` (W biases then R biases).
    pub b: Option<&'a Tensor>,
    /// Valid steps per batch entry.
    pub sequence_lens: Option<&'a Tensor>,
    /// Initial hidden state `[dirs, batch, hidden]`.
    pub initial_h: Option<&'a Tensor>,
    /// LSTM initial cell state `[dirs, batch, hidden]`.
    pub initial_c: Option<&'a Tensor>,
    /// LSTM peepholes `[dirs, 3 * hidden]` (i, o, f).
    pub p: Option<&'a Tensor>,
}

/// Outputs of the recurrent operators.
#[derive(Clone, Debug, PartialEq)]
pub struct RnnOutputs {
    /// All hidden states `[seq, dirs, batch, hidden]` (batch-major: `[batch, seq, dirs, hidden]`).
    pub y: Tensor,
    /// Last hidden state `[dirs, batch, hidden]` (batch-major: `[batch, dirs, hidden]`).
    pub y_h: Tensor,
    /// LSTM last cell state, shaped like `y_h`.
    pub y_c: Option<Tensor>,
}

fn opt_vec(op: &'static str, name: &str, t: Option<&Tensor>, n: usize) -> Result<Option<Vec<f64>>> {
    match t {
        None => Ok(None),
        Some(t) if t.len() == n => Ok(Some(t.to_f64_vec()?)),
        Some(t) => Err(KernelError::shape(
            op,
            format!("{name} has {} elements, expected {n}", t.len()),
        )),
    }
}

/// Runs ONNX RNN, GRU or LSTM: `x [seq, batch, input]`, `w [dirs, gates * hidden, input]`, `r [dirs, gates * hidden, hidden]`.
pub fn rnn(
    x: &Tensor,
    w: &Tensor,
    r: &Tensor,
    inputs: RnnInputs<'_>,
    a: &RnnAttrs,
) -> Result<RnnOutputs> {
    let op = match a.cell {
        CellKind::Rnn => "RNN",
        CellKind::Gru { .. } => "GRU",
        CellKind::Lstm { .. } => "LSTM",
    };
    let gates = match a.cell {
        CellKind::Rnn => 1,
        CellKind::Gru { .. } => 3,
        CellKind::Lstm { .. } => 4,
    };
    if !x.dtype().is_float() {
        return Err(KernelError::dtype(op, x.dtype()));
    }
    let dirs = if a.direction == Direction::Bidirectional {
        2
    } else {
        1
    };
    let h = a.hidden_size;
    if x.rank() != 3 || w.rank() != 3 || r.rank() != 3 {
        return Err(KernelError::shape(op, "X, W and R must be 3-D"));
    }
    let (seq, batch, isz) = if a.batch_major {
        (x.shape()[1], x.shape()[0], x.shape()[2])
    } else {
        (x.shape()[0], x.shape()[1], x.shape()[2])
    };
    if w.shape() != [dirs, gates * h, isz] || r.shape() != [dirs, gates * h, h] {
        return Err(KernelError::shape(
            op,
            format!(
                "W {:?} / R {:?} do not fit {dirs} directions, hidden {h}, input {isz}",
                w.shape(),
                r.shape()
            ),
        ));
    }
    let n_act = match a.cell {
        CellKind::Rnn => 1,
        CellKind::Gru { .. } => 2,
        CellKind::Lstm { .. } => 3,
    };
    let acts: Vec<RnnActivation> = if a.activations.is_empty() {
        let d = match a.cell {
            CellKind::Rnn => vec![RnnActivation::Tanh],
            CellKind::Gru { .. } => vec![RnnActivation::Sigmoid, RnnActivation::Tanh],
            CellKind::Lstm { .. } => vec![
                RnnActivation::Sigmoid,
                RnnActivation::Tanh,
                RnnActivation::Tanh,
            ],
        };
        d.repeat(dirs)
    } else if a.activations.len() == n_act * dirs {
        a.activations.clone()
    } else if a.activations.len() == n_act {
        a.activations.repeat(dirs)
    } else {
        return Err(KernelError::attr(
            op,
            "activations",
            format!("expected {} entries", n_act * dirs),
        ));
    };
    let xv = x.to_f64_vec()?;
    let wv = w.to_f64_vec()?;
    let rv = r.to_f64_vec()?;
    let bv = opt_vec(op, "B", inputs.b, dirs * 2 * gates * h)?
        .unwrap_or_else(|| vec![0.0; dirs * 2 * gates * h]);
    let lens: Vec<usize> = match inputs.sequence_lens {
        Some(t) => {
            let v = t.to_i64_vec()?;
            if v.len() != batch || v.iter().any(|&l| l < 0 || l as usize > seq) {
                return Err(KernelError::shape(
                    op,
                    "sequence_lens must have one value in 0..=seq per batch",
                ));
            }
            v.into_iter().map(|l| l as usize).collect()
        }
        None => vec![seq; batch],
    };
    let h0 = opt_vec(op, "initial_h", inputs.initial_h, dirs * batch * h)?
        .unwrap_or_else(|| vec![0.0; dirs * batch * h]);
    let c0 = opt_vec(op, "initial_c", inputs.initial_c, dirs * batch * h)?
        .unwrap_or_else(|| vec![0.0; dirs * batch * h]);
    let pv = opt_vec(op, "P", inputs.p, dirs * 3 * h)?.unwrap_or_else(|| vec![0.0; dirs * 3 * h]);
    let clip = |v: f64| match a.clip {
        Some(c) => v.clamp(-(c as f64), c as f64),
        None => v,
    };
    let xat = |t: usize, b: usize, k: usize| {
        if a.batch_major {
            xv[(b * seq + t) * isz + k]
        } else {
            xv[(t * batch + b) * isz + k]
        }
    };
    let mut y = vec![0f64; seq * dirs * batch * h];
    let mut yh = vec![0f64; dirs * batch * h];
    let mut yc = vec![0f64; dirs * batch * h];
    for d in 0..dirs {
        let reverse = a.direction == Direction::Reverse || d == 1;
        let wd = &wv[d * gates * h * isz..(d + 1) * gates * h * isz];
        let rd = &rv[d * gates * h * h..(d + 1) * gates * h * h];
        let wb = &bv[d * 2 * gates * h..d * 2 * gates * h + gates * h];
        let rb = &bv[d * 2 * gates * h + gates * h..(d + 1) * 2 * gates * h];
        let pd = &pv[d * 3 * h..(d + 1) * 3 * h];
        let act = &acts[d * n_act..(d + 1) * n_act];
        for b in 0..batch {
            let mut hs: Vec<f64> = h0[(d * batch + b) * h..(d * batch + b + 1) * h].to_vec();
            let mut cs: Vec<f64> = c0[(d * batch + b) * h..(d * batch + b + 1) * h].to_vec();
            let len = lens[b];
            for step in 0..len {
                let t = if reverse { len - 1 - step } else { step };
                // Gate pre-activations from the input and from the hidden state, kept apart for GRU.
                let mut gx = vec![0f64; gates * h];
                let mut gh = vec![0f64; gates * h];
                for g in 0..gates * h {
                    gx[g] = (0..isz)
                        .map(|k| wd[g * isz + k] * xat(t, b, k))
                        .sum::<f64>()
                        + wb[g];
                    gh[g] = (0..h).map(|k| rd[g * h + k] * hs[k]).sum::<f64>() + rb[g];
                }
                let new_h: Vec<f64> = match a.cell {
                    CellKind::Rnn => (0..h).map(|j| act[0].apply(clip(gx[j] + gh[j]))).collect(),
                    CellKind::Gru {
                        linear_before_reset,
                    } => {
                        let z: Vec<f64> =
                            (0..h).map(|j| act[0].apply(clip(gx[j] + gh[j]))).collect();
                        let rr: Vec<f64> = (0..h)
                            .map(|j| act[0].apply(clip(gx[h + j] + gh[h + j])))
                            .collect();
                        let cand: Vec<f64> = if linear_before_reset {
                            (0..h)
                                .map(|j| act[1].apply(clip(gx[2 * h + j] + rr[j] * gh[2 * h + j])))
                                .collect()
                        } else {
                            let rh: Vec<f64> = (0..h).map(|k| rr[k] * hs[k]).collect();
                            (0..h)
                                .map(|j| {
                                    let rec: f64 = (0..h)
                                        .map(|k| rd[(2 * h + j) * h + k] * rh[k])
                                        .sum::<f64>()
                                        + rb[2 * h + j];
                                    act[1].apply(clip(gx[2 * h + j] + rec))
                                })
                                .collect()
                        };
                        (0..h)
                            .map(|j| (1.0 - z[j]) * cand[j] + z[j] * hs[j])
                            .collect()
                    }
                    CellKind::Lstm { input_forget } => {
                        let (pi, po, pf) = (&pd[..h], &pd[h..2 * h], &pd[2 * h..]);
                        let mut out = vec![0f64; h];
                        for j in 0..h {
                            let i = act[0].apply(clip(gx[j] + gh[j] + pi[j] * cs[j]));
                            let f = if input_forget {
                                1.0 - i
                            } else {
                                act[0].apply(clip(gx[2 * h + j] + gh[2 * h + j] + pf[j] * cs[j]))
                            };
                            let c = act[1].apply(clip(gx[3 * h + j] + gh[3 * h + j]));
                            let cn = f * cs[j] + i * c;
                            let o = act[0].apply(clip(gx[h + j] + gh[h + j] + po[j] * cn));
                            out[j] = o * act[2].apply(cn);
                            cs[j] = cn;
                        }
                        out
                    }
                };
                hs = new_h;
                let yo = if a.batch_major {
                    ((b * seq + t) * dirs + d) * h
                } else {
                    ((t * dirs + d) * batch + b) * h
                };
                y[yo..yo + h].copy_from_slice(&hs);
            }
            let ho = if a.batch_major {
                (b * dirs + d) * h
            } else {
                (d * batch + b) * h
            };
            yh[ho..ho + h].copy_from_slice(&hs);
            yc[ho..ho + h].copy_from_slice(&cs);
        }
    }
    let (ys, hs) = if a.batch_major {
        (vec![batch, seq, dirs, h], vec![batch, dirs, h])
    } else {
        (vec![seq, dirs, batch, h], vec![dirs, batch, h])
    };
    let dt = x.dtype();
    Ok(RnnOutputs {
        y: Tensor::from_f64(dt, ys, y)?,
        y_h: Tensor::from_f64(dt, hs.clone(), yh)?,
        y_c: match a.cell {
            CellKind::Lstm { .. } => Some(Tensor::from_f64(dt, hs, yc)?),
            _ => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::close;

    #[test]
    fn cells_match_onnx_doc_examples() {
        // ONNX RNN doc (defaults): X = [[[1, 2]], [[3, 4]], [[5, 6]]] as [3, 1, 2], hidden 4, W = R = 0.1.
        // Y_h = [[[0.9637, ...]]]: tanh(0.1*(5+6) + 0.1*4*h) with h from the previous steps.
        let x = Tensor::from_vec(vec![3, 1, 2], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
        let w = Tensor::from_vec(vec![1, 4, 2], vec![0.1f32; 8]).unwrap();
        let r = Tensor::from_vec(vec![1, 4, 4], vec![0.1f32; 16]).unwrap();
        let a = RnnAttrs {
            cell: CellKind::Rnn,
            hidden_size: 4,
            direction: Direction::Forward,
            activations: vec![],
            clip: None,
            batch_major: false,
        };
        let out = rnn(&x, &w, &r, RnnInputs::default(), &a).unwrap();
        let mut hv = 0f64;
        for t in 0..3 {
            hv = (0.1 * (2 * t + 1 + 2 * t + 2) as f64 + 0.4 * hv).tanh();
        }
        close(out.y_h.as_f32().unwrap(), &[hv as f32; 4], 1e-5);
        assert_eq!(out.y.shape(), &[3, 1, 1, 4]);
        // onnx.reference GRU and LSTM on the same X, hidden 3, W = R = 0.1, default attributes:
        // Y_h = [0.41052598] * 3 (GRU) and [0.60042989] * 3 (LSTM).
        let wg = Tensor::from_vec(vec![1, 9, 2], vec![0.1f32; 18]).unwrap();
        let rg = Tensor::from_vec(vec![1, 9, 3], vec![0.1f32; 27]).unwrap();
        let g = RnnAttrs {
            cell: CellKind::Gru {
                linear_before_reset: false,
            },
            hidden_size: 3,
            ..a.clone()
        };
        let out = rnn(&x, &wg, &rg, RnnInputs::default(), &g).unwrap();
        close(out.y_h.as_f32().unwrap(), &[GRU_YH; 3], 1e-5);
        let wl = Tensor::from_vec(vec![1, 12, 2], vec![0.1f32; 24]).unwrap();
        let rl = Tensor::from_vec(vec![1, 12, 3], vec![0.1f32; 36]).unwrap();
        let l = RnnAttrs {
            cell: CellKind::Lstm {
                input_forget: false,
            },
            hidden_size: 3,
            ..a.clone()
        };
        let out = rnn(&x, &wl, &rl, RnnInputs::default(), &l).unwrap();
        close(out.y_h.as_f32().unwrap(), &[LSTM_YH; 3], 1e-5);
        assert!(out.y_c.is_some());
        assert!(rnn(&x, &wl, &rg, RnnInputs::default(), &l).is_err());
    }

    const GRU_YH: f32 = 0.410_525_98;
    const LSTM_YH: f32 = 0.600_429_9;
}
