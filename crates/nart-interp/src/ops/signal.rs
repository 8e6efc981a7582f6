//! Attribute mapping for the signal operators of `nart_tensor::signal`: DFT, STFT and the
//! window generators.

use nart_tensor::signal::{self, DftAttrs, WindowKind};
use nart_tensor::{DType, Result as KResult, Tensor};

use super::{one, opt, req};
use crate::attrs::Node;

/// The first value of an optional scalar input, if given and not empty.
fn first_i64(t: Option<&Tensor>) -> KResult<Option<i64>> {
    match t {
        Some(t) if !t.is_empty() => Ok(t.to_i64_vec()?.first().copied()),
        _ => Ok(None),
    }
}

pub(super) fn dft(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    // Opset 20 moved the axis from an attribute to input 2.
    let axis = match first_i64(opt(i, 2))? {
        Some(a) => a,
        None => n.int_or("axis", -2)?,
    };
    let a = DftAttrs {
        axis,
        inverse: n.int_or("inverse", 0)? != 0,
        onesided: n.int_or("onesided", 0)? != 0,
        dft_length: first_i64(opt(i, 1))?.map(|l| l.max(0) as usize),
    };
    one(signal::dft(req(n, i, 0)?, &a)?)
}

pub(super) fn stft(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let step = first_i64(Some(req(n, i, 1)?))?.unwrap_or(1).max(1) as usize;
    one(signal::stft(
        req(n, i, 0)?,
        step,
        opt(i, 2),
        first_i64(opt(i, 3))?.map(|l| l.max(1) as usize),
        n.int_or("onesided", 1)? != 0,
    )?)
}

/// HannWindow, HammingWindow and BlackmanWindow: the size is input 0.
pub(super) fn window(n: &Node, i: &[Option<&Tensor>], kind: WindowKind) -> KResult<Vec<Tensor>> {
    let size = first_i64(Some(req(n, i, 0)?))?.unwrap_or(0).max(0) as usize;
    one(signal::window(
        kind,
        size,
        n.int_or("periodic", 1)? != 0,
        n.dtype("output_datatype")?.unwrap_or(DType::F32),
    )?)
}
