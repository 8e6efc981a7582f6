//! What the model tests of `nart-graph-opt` share: a context that imports ONNX and runs the
//! interpreter, and seeded inputs of a model's declared shapes.

#![allow(dead_code)]

use nart_interp::Interpreter;
use nart_ir::Context;
use nart_tensor::{DType, Tensor};

/// A context with the importer's dialects and the interpreter's kernels.
pub fn context() -> Context {
    let mut ctx = Context::new();
    nart_onnx::register_dialects(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

/// Seeded inputs of the declared shapes, with `dynamic` for the dynamic dimensions: floats in
/// [-1, 1), integers in [0, 16).
pub fn inputs(interp: &Interpreter, seed: u64, dynamic: usize) -> Vec<Tensor> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    interp
        .inputs()
        .iter()
        .map(|spec| {
            let shape: Vec<usize> = spec
                .shape
                .as_ref()
                .expect("model inputs are ranked")
                .iter()
                .map(|d| d.unwrap_or(dynamic))
                .collect();
            let n: usize = shape.iter().product();
            let dtype = spec.dtype.expect("model inputs have an element type");
            let values: Vec<f64> = (0..n)
                .map(|_| match dtype {
                    DType::F32 | DType::F64 | DType::F16 => (next() % 2000) as f64 / 1000.0 - 1.0,
                    _ => (next() % 16) as f64,
                })
                .collect();
            Tensor::from_f64(dtype, shape, values).expect("an input tensor")
        })
        .collect()
}
