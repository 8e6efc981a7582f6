//! The dispatch table from ONNX operator name to kernel, and helpers kernels share.
//!
//! Kernels come in three kinds: tensor kernels (tensors in, tensors out: almost every op), value
//! kernels (sequences and optionals), and region kernels (If, Loop, Scan), which run nested
//! blocks through the interpreter.
//! Tensor kernels call `nart-tensor` and only map attributes and operands onto its functions,
//! except for the operators it does not have yet, which live in `extra`, and the operators added
//! after opset 21, which live in `modern`; `rnn` reads the recurrent operators' attributes.

use std::sync::Arc;

use nart_tensor::{KernelError, Result as KResult, Tensor};

use crate::attrs::Node;
use crate::error::Result;
use crate::interp::{Env, Step};
use crate::value::Val;

mod control;
mod elementwise;
mod extra;
mod modern;
mod nn;
mod rnn;
pub(crate) mod shape;

/// Tensors in, tensors out.
pub(crate) type TensorKernel = fn(&Node, &[Option<&Tensor>]) -> KResult<Vec<Tensor>>;
/// Values (tensors, sequences, optionals) in and out.
pub(crate) type ValueKernel = fn(&Node, &[Option<&Val>]) -> KResult<Vec<Val>>;
/// Ops with regions, run through the interpreter.
pub(crate) type RegionKernel = fn(&Step, &mut Env, Vec<Option<Arc<Val>>>) -> Result<Vec<Val>>;

/// How an op runs.
#[derive(Clone, Copy)]
pub(crate) enum Kernel {
    /// A tensor kernel.
    Tensor(TensorKernel),
    /// A value kernel.
    Value(ValueKernel),
    /// A region kernel.
    Region(RegionKernel),
    /// No kernel: planning reports the op as unsupported.
    Missing,
}

/// The kernel of ONNX operator `name`.
pub(crate) fn lookup(name: &str) -> Option<Kernel> {
    if let Some(k) = control::lookup(name) {
        return Some(k);
    }
    if let Some(k) = elementwise::lookup(name) {
        return Some(Kernel::Tensor(k));
    }
    if name == "BatchNormalization" {
        return Some(Kernel::Tensor(batch_norm));
    }
    nn::lookup(name)
        .or_else(|| nn::lookup_more(name))
        .or_else(|| extra::lookup(name))
        .or_else(|| rnn::lookup(name))
        .or_else(|| shape::lookup(name))
        .or_else(|| modern::lookup(name))
        .map(Kernel::Tensor)
}

/// BatchNormalization: inference mode in `nart-tensor`, training mode here.
fn batch_norm(node: &Node, ins: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    if node.int_or("training_mode", 0)? != 0 {
        let k = extra::lookup("BatchNormalization")
            .expect("extra has training-mode BatchNormalization");
        return k(node, ins);
    }
    let k = nn::lookup_more("BatchNormalization").expect("nn has BatchNormalization");
    k(node, ins)
}

/// Every ONNX operator name the interpreter has a kernel for, sorted.
pub fn supported_ops() -> Vec<&'static str> {
    nart_dialect_graph::SCHEMAS
        .iter()
        .map(|s| s.name)
        .filter(|n| lookup(n).is_some())
        .collect()
}

/// Input `i`, which must be present.
pub(crate) fn req<'a>(node: &Node, ins: &[Option<&'a Tensor>], i: usize) -> KResult<&'a Tensor> {
    ins.get(i)
        .copied()
        .flatten()
        .ok_or_else(|| KernelError::Arity {
            op: node.onnx,
            msg: format!("input #{i} is required"),
        })
}

/// Input `i` if present.
pub(crate) fn opt<'a>(ins: &[Option<&'a Tensor>], i: usize) -> Option<&'a Tensor> {
    ins.get(i).copied().flatten()
}

/// Wraps one tensor as a kernel result.
pub(crate) fn one(t: Tensor) -> KResult<Vec<Tensor>> {
    Ok(vec![t])
}
