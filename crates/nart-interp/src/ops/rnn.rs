//! Attribute mapping for the recurrent operators RNN, GRU and LSTM of `nart_tensor::rnn`.

use nart_tensor::rnn::{self, CellKind, Direction, RnnActivation, RnnAttrs, RnnInputs};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{opt, req};
use crate::attrs::Node;

/// Gates per cell: the first dimension of `W` is `gates * hidden_size`.
fn gates(cell: CellKind) -> usize {
    match cell {
        CellKind::Rnn => 1,
        CellKind::Gru { .. } => 3,
        CellKind::Lstm { .. } => 4,
    }
}

/// The `activations` attribute, with `activation_alpha`/`activation_beta` handed out in order to
/// the activations that take them (ONNX's rule). Absent, it is empty: `nart_tensor::rnn` then
/// uses the cell's defaults for every direction (the schema's default list is written for two
/// directions and does not fit a one-direction op).
fn activations(op: &'static str, n: &Node) -> KResult<Vec<RnnActivation>> {
    if !n.has("activations") {
        return Ok(Vec::new());
    }
    let alphas: Vec<f32> = n
        .opt_floats("activation_alpha")?
        .unwrap_or_default()
        .into_iter()
        .map(|v| v as f32)
        .collect();
    let betas: Vec<f32> = n
        .opt_floats("activation_beta")?
        .unwrap_or_default()
        .into_iter()
        .map(|v| v as f32)
        .collect();
    let (mut alphas, mut betas) = (alphas.into_iter(), betas.into_iter());
    let mut out = Vec::new();
    for name in n.strings("activations")? {
        let lower = name.to_ascii_lowercase();
        let takes_alpha = matches!(
            lower.as_str(),
            "affine" | "leakyrelu" | "thresholdedrelu" | "scaledtanh" | "hardsigmoid" | "elu"
        );
        let takes_beta = matches!(lower.as_str(), "affine" | "scaledtanh" | "hardsigmoid");
        let alpha = if takes_alpha { alphas.next() } else { None };
        let beta = if takes_beta { betas.next() } else { None };
        out.push(RnnActivation::parse(&name, alpha, beta).ok_or_else(|| {
            KernelError::attr(op, "activations", format!("unknown activation '{name}'"))
        })?);
    }
    Ok(out)
}

/// RNN, GRU or LSTM (`op`).
pub(super) fn recurrent(op: &'static str, n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let cell = match op {
        "RNN" => CellKind::Rnn,
        "GRU" => CellKind::Gru {
            linear_before_reset: n.int_or("linear_before_reset", 0)? != 0,
        },
        _ => CellKind::Lstm {
            input_forget: n.int_or("input_forget", 0)? != 0,
        },
    };
    let x = req(n, i, 0)?;
    let w = req(n, i, 1)?;
    let r = req(n, i, 2)?;
    let hidden_size = match n.opt_int("hidden_size")? {
        Some(h) => h.max(0) as usize,
        None => w.shape().get(1).copied().unwrap_or(0) / gates(cell),
    };
    let direction = match n.str_or("direction", "forward")?.as_str() {
        "forward" => Direction::Forward,
        "reverse" => Direction::Reverse,
        "bidirectional" => Direction::Bidirectional,
        other => {
            return Err(KernelError::attr(
                op,
                "direction",
                format!("unknown direction '{other}'"),
            ))
        }
    };
    let attrs = RnnAttrs {
        cell,
        hidden_size,
        direction,
        activations: activations(op, n)?,
        clip: n.opt_float("clip")?.map(|c| c as f32),
        batch_major: n.int_or("layout", 0)? != 0,
    };
    let inputs = RnnInputs {
        b: opt(i, 3),
        sequence_lens: opt(i, 4),
        initial_h: opt(i, 5),
        initial_c: opt(i, 6),
        p: opt(i, 7),
    };
    let out = rnn::rnn(x, w, r, inputs, &attrs)?;
    let mut outs = vec![out.y, out.y_h];
    outs.extend(out.y_c);
    Ok(outs)
}
