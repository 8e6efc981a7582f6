//! The recurrent operators RNN, GRU and LSTM, computed in f64 (not in `nart-tensor` yet).

use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{opt, req, TensorKernel};
use crate::attrs::Node;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Rnn,
    Gru,
    Lstm,
}

impl Kind {
    fn gates(self) -> usize {
        match self {
            Kind::Rnn => 1,
            Kind::Gru => 3,
            Kind::Lstm => 4,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Rnn => "RNN",
            Kind::Gru => "GRU",
            Kind::Lstm => "LSTM",
        }
    }

    fn default_acts(self) -> &'static [&'static str] {
        match self {
            Kind::Rnn => &["Tanh"],
            Kind::Gru => &["Sigmoid", "Tanh"],
            Kind::Lstm => &["Sigmoid", "Tanh", "Tanh"],
        }
    }
}

#[derive(Clone, Copy)]
struct Act {
    kind: u8,
    alpha: f64,
    beta: f64,
}

impl Act {
    fn parse(
        op: &'static str,
        name: &str,
        alphas: &mut std::slice::Iter<f64>,
        betas: &mut std::slice::Iter<f64>,
    ) -> KResult<Act> {
        let take = |it: &mut std::slice::Iter<f64>, d: f64| it.next().copied().unwrap_or(d);
        let (kind, alpha, beta) = match name.to_ascii_lowercase().as_str() {
            "relu" => (0, 0.0, 0.0),
            "tanh" => (1, 0.0, 0.0),
            "sigmoid" => (2, 0.0, 0.0),
            "affine" => (3, take(alphas, 1.0), take(betas, 0.0)),
            "leakyrelu" => (4, take(alphas, 0.01), 0.0),
            "thresholdedrelu" => (5, take(alphas, 1.0), 0.0),
            "scaledtanh" => (6, take(alphas, 1.0), take(betas, 1.0)),
            "hardsigmoid" => (7, take(alphas, 0.2), take(betas, 0.5)),
            "elu" => (8, take(alphas, 1.0), 0.0),
            "softsign" => (9, 0.0, 0.0),
            "softplus" => (10, 0.0, 0.0),
            _ => {
                return Err(KernelError::attr(
                    op,
                    "activations",
                    format!("unknown activation '{name}'"),
                ))
            }
        };
        Ok(Act { kind, alpha, beta })
    }

    fn apply(self, x: f64) -> f64 {
        let (a, b) = (self.alpha, self.beta);
        match self.kind {
            0 => x.max(0.0),
            1 => x.tanh(),
            2 => 1.0 / (1.0 + (-x).exp()),
            3 => a * x + b,
            4 => {
                if x >= 0.0 {
                    x
                } else {
                    a * x
                }
            }
            5 => {
                if x > a {
                    x
                } else {
                    0.0
                }
            }
            6 => a * (b * x).tanh(),
            7 => (a * x + b).clamp(0.0, 1.0),
            8 => {
                if x >= 0.0 {
                    x
                } else {
                    a * (x.exp() - 1.0)
                }
            }
            9 => x / (1.0 + x.abs()),
            _ => (x.exp() + 1.0).ln(),
        }
    }
}

/// `out[j] = sum_k a[k] * w[row0 + j][k]` for `j < n`, rows of length `len`.
fn matvec(a: &[f64], w: &[f64], row0: usize, n: usize, len: usize, out: &mut [f64]) {
    for j in 0..n {
        let row = &w[(row0 + j) * len..(row0 + j + 1) * len];
        out[j] += a.iter().zip(row).map(|(x, y)| x * y).sum::<f64>();
    }
}

fn recurrent(kind: Kind, n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let op = kind.name();
    let x = req(n, i, 0)?;
    let dt = x.dtype();
    let layout = n.int_or("layout", 0)?;
    let xs = x.shape();
    if xs.len() != 3 {
        return Err(KernelError::shape(op, format!("X must be 3-D, got {xs:?}")));
    }
    let (seq, batch, input) = if layout == 0 {
        (xs[0], xs[1], xs[2])
    } else {
        (xs[1], xs[0], xs[2])
    };
    let w = req(n, i, 1)?;
    let hidden = match n.opt_int("hidden_size")? {
        Some(h) => h.max(0) as usize,
        None => w.shape().get(1).copied().unwrap_or(0) / kind.gates(),
    };
    let g = kind.gates();
    let dir = n.str_or("direction", "forward")?;
    let ndir = if dir == "bidirectional" { 2 } else { 1 };
    if w.shape() != [ndir, g * hidden, input] {
        return Err(KernelError::shape(
            op,
            format!("W shape {:?} does not fit", w.shape()),
        ));
    }
    let wv = w.to_f64_vec()?;
    let rv = req(n, i, 2)?.to_f64_vec()?;
    if rv.len() != ndir * g * hidden * hidden {
        return Err(KernelError::shape(op, "R has the wrong size"));
    }
    let bv = match opt(i, 3) {
        Some(b) => b.to_f64_vec()?,
        None => vec![0.0; ndir * 2 * g * hidden],
    };
    let lens: Vec<usize> = match opt(i, 4) {
        Some(l) => l
            .to_i64_vec()?
            .into_iter()
            .map(|v| (v.max(0) as usize).min(seq))
            .collect(),
        None => vec![seq; batch],
    };
    let xv = x.to_f64_vec()?;
    let xat = |t: usize, b: usize| -> &[f64] {
        let off = if layout == 0 {
            (t * batch + b) * input
        } else {
            (b * seq + t) * input
        };
        &xv[off..off + input]
    };
    // Initial states in [dir][batch][hidden] order.
    let state_in = |k: usize| -> KResult<Vec<f64>> {
        match opt(i, k) {
            None => Ok(vec![0.0; ndir * batch * hidden]),
            Some(t) => {
                let v = t.to_f64_vec()?;
                if layout == 0 {
                    return Ok(v);
                }
                let mut o = vec![0.0; v.len()];
                for d in 0..ndir {
                    for b in 0..batch {
                        for h in 0..hidden {
                            o[(d * batch + b) * hidden + h] = v[(b * ndir + d) * hidden + h];
                        }
                    }
                }
                Ok(o)
            }
        }
    };
    let h0 = state_in(5)?;
    let c0 = if kind == Kind::Lstm {
        state_in(6)?
    } else {
        Vec::new()
    };
    let pv = match (kind, opt(i, 7)) {
        (Kind::Lstm, Some(p)) => p.to_f64_vec()?,
        _ => vec![0.0; ndir * 3 * hidden],
    };
    let names = n.strings("activations")?;
    let alphas = n.opt_floats("activation_alpha")?.unwrap_or_default();
    let betas = n.opt_floats("activation_beta")?.unwrap_or_default();
    let (mut ia, mut ib) = (alphas.iter(), betas.iter());
    let per_dir = kind.default_acts().len();
    let mut acts = Vec::new();
    for d in 0..ndir {
        for k in 0..per_dir {
            let name = names
                .get(d * per_dir + k)
                .map_or(kind.default_acts()[k], String::as_str);
            acts.push(Act::parse(op, name, &mut ia, &mut ib)?);
        }
    }
    let clip = n.opt_float("clip")?;
    let cl = |v: f64| clip.map_or(v, |c| v.clamp(-c, c));
    let lbr = n.int_or("linear_before_reset", 0)? != 0;
    let input_forget = n.int_or("input_forget", 0)? != 0;

    let mut y = vec![0.0; seq * ndir * batch * hidden];
    let mut yh = vec![0.0; ndir * batch * hidden];
    let mut yc = vec![0.0; ndir * batch * hidden];
    for d in 0..ndir {
        let reverse = dir == "reverse" || d == 1;
        let wd = &wv[d * g * hidden * input..(d + 1) * g * hidden * input];
        let rd = &rv[d * g * hidden * hidden..(d + 1) * g * hidden * hidden];
        let wb = &bv[d * 2 * g * hidden..d * 2 * g * hidden + g * hidden];
        let rb = &bv[d * 2 * g * hidden + g * hidden..(d + 1) * 2 * g * hidden];
        let p = &pv[d * 3 * hidden..(d + 1) * 3 * hidden];
        let a = &acts[d * per_dir..(d + 1) * per_dir];
        for b in 0..batch {
            let mut h: Vec<f64> =
                h0[(d * batch + b) * hidden..(d * batch + b + 1) * hidden].to_vec();
            let mut c: Vec<f64> = if kind == Kind::Lstm {
                c0[(d * batch + b) * hidden..(d * batch + b + 1) * hidden].to_vec()
            } else {
                Vec::new()
            };
            let len = lens[b];
            for step in 0..len {
                let t = if reverse { len - 1 - step } else { step };
                let xt = xat(t, b);
                // xw[k*hidden + j]: input projection of gate k plus its W bias; hr: recurrent projection plus R bias.
                let mut xw = wb.to_vec();
                matvec(xt, wd, 0, g * hidden, input, &mut xw);
                let mut hr = rb.to_vec();
                matvec(&h, rd, 0, g * hidden, hidden, &mut hr);
                match kind {
                    Kind::Rnn => {
                        for j in 0..hidden {
                            h[j] = a[0].apply(cl(xw[j] + hr[j]));
                        }
                    }
                    Kind::Gru => {
                        let (f, gg) = (a[0], a[1]);
                        let z: Vec<f64> = (0..hidden).map(|j| f.apply(cl(xw[j] + hr[j]))).collect();
                        let r: Vec<f64> = (0..hidden)
                            .map(|j| f.apply(cl(xw[hidden + j] + hr[hidden + j])))
                            .collect();
                        let hh: Vec<f64> = if lbr {
                            (0..hidden)
                                .map(|j| {
                                    gg.apply(cl(xw[2 * hidden + j] + r[j] * hr[2 * hidden + j]))
                                })
                                .collect()
                        } else {
                            let rh: Vec<f64> = (0..hidden).map(|j| r[j] * h[j]).collect();
                            let mut proj = rb[2 * hidden..3 * hidden].to_vec();
                            matvec(&rh, rd, 2 * hidden, hidden, hidden, &mut proj);
                            (0..hidden)
                                .map(|j| gg.apply(cl(xw[2 * hidden + j] + proj[j])))
                                .collect()
                        };
                        for j in 0..hidden {
                            h[j] = (1.0 - z[j]) * hh[j] + z[j] * h[j];
                        }
                    }
                    Kind::Lstm => {
                        let (f, gg, hh) = (a[0], a[1], a[2]);
                        for j in 0..hidden {
                            let ig = f.apply(cl(xw[j] + hr[j] + p[j] * c[j]));
                            let fg = if input_forget {
                                1.0 - ig
                            } else {
                                f.apply(cl(xw[2 * hidden + j]
                                    + hr[2 * hidden + j]
                                    + p[2 * hidden + j] * c[j]))
                            };
                            let cg = gg.apply(cl(xw[3 * hidden + j] + hr[3 * hidden + j]));
                            c[j] = fg * c[j] + ig * cg;
                            let og =
                                f.apply(cl(xw[hidden + j] + hr[hidden + j] + p[hidden + j] * c[j]));
                            h[j] = og * hh.apply(c[j]);
                        }
                    }
                }
                for j in 0..hidden {
                    y[((t * ndir + d) * batch + b) * hidden + j] = h[j];
                }
            }
            yh[(d * batch + b) * hidden..(d * batch + b + 1) * hidden].copy_from_slice(&h);
            if kind == Kind::Lstm {
                yc[(d * batch + b) * hidden..(d * batch + b + 1) * hidden].copy_from_slice(&c);
            }
        }
    }
    let (y, yshape, states_shape) = if layout == 0 {
        (y, vec![seq, ndir, batch, hidden], vec![ndir, batch, hidden])
    } else {
        let mut o = vec![0.0; y.len()];
        for t in 0..seq {
            for d in 0..ndir {
                for b in 0..batch {
                    for j in 0..hidden {
                        o[((b * seq + t) * ndir + d) * hidden + j] =
                            y[((t * ndir + d) * batch + b) * hidden + j];
                    }
                }
            }
        }
        (o, vec![batch, seq, ndir, hidden], vec![batch, ndir, hidden])
    };
    let to_layout = |v: Vec<f64>| -> Vec<f64> {
        if layout == 0 {
            return v;
        }
        let mut o = vec![0.0; v.len()];
        for d in 0..ndir {
            for b in 0..batch {
                for j in 0..hidden {
                    o[(b * ndir + d) * hidden + j] = v[(d * batch + b) * hidden + j];
                }
            }
        }
        o
    };
    let mut outs = vec![
        Tensor::from_f64(dt, yshape, y)?,
        Tensor::from_f64(dt, states_shape.clone(), to_layout(yh))?,
    ];
    if kind == Kind::Lstm {
        outs.push(Tensor::from_f64(dt, states_shape, to_layout(yc))?);
    }
    Ok(outs)
}

/// The kernel of a recurrent operator.
pub(super) fn lookup(name: &str) -> Option<TensorKernel> {
    Some(match name {
        "RNN" => |n, i| recurrent(Kind::Rnn, n, i),
        "GRU" => |n, i| recurrent(Kind::Gru, n, i),
        "LSTM" => |n, i| recurrent(Kind::Lstm, n, i),
        _ => return None,
    })
}
