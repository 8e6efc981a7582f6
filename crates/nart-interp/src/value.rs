//! Run-time values: tensors, sequences of tensors, and empty optionals.

use nart_tensor::Tensor;

/// A value flowing between ops at run time.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A tensor.
    Tensor(Tensor),
    /// An ONNX sequence of tensors.
    Seq(Vec<Tensor>),
    /// An ONNX optional without a value.
    Empty,
}

impl Val {
    /// The tensor inside, if this is one.
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Val::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// A short description for messages.
    pub fn describe(&self) -> String {
        match self {
            Val::Tensor(t) => format!("tensor<{:?}x{}>", t.shape(), t.dtype()),
            Val::Seq(v) => format!("sequence of {} tensors", v.len()),
            Val::Empty => "empty optional".into(),
        }
    }
}

impl From<Tensor> for Val {
    fn from(t: Tensor) -> Val {
        Val::Tensor(t)
    }
}
