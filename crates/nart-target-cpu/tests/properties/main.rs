//! Property tests of the cpu target (issue 12): every graph op `convert-graph-to-linalg`
//! lowers, on shapes, attributes and values a seeded generator draws, compiled through the
//! whole pipeline and LLVM, run, and compared with the reference interpreter by
//! `nart_target_cpu::testing` (floats within a bound scaled to the reduction length,
//! integers and pure data movement exactly).
//!
//! Each test draws its cases into one batch, one function, so one compilation covers them.
//! A failure prints the seed, the case (shapes, attributes, the case alone as MLIR) and the
//! first differing element; `NART_PROP_SEED=SEED cargo nextest run -p nart-target-cpu --test
//! properties NAME` replays it, and `NART_PROP_CASES=N` draws more cases.
//!
//! | file | ops |
//! |---|---|
//! | `elementwise.rs` | `Add`, `Sub`, `Mul`, `Div` (f32 and integers, broadcasting), `Relu`, `LeakyRelu`, `Clip`, `Sigmoid`, `Tanh`, `Exp`, `Erf` |
//! | `products.rs` | `MatMul`, `Gemm`, `graph.fused_matmul`, `graph.fused_gemm` |
//! | `windows.rs` | `Conv`, `graph.fused_conv`, `MaxPool`, `AveragePool`, `GlobalAveragePool` |
//! | `norm.rs` | `Softmax`, `BatchNormalization` |
//! | `data.rs` | `Reshape`, `Flatten`, `Squeeze`, `Unsqueeze`, `Transpose`, `Concat` |
//! | `chains.rs` | random programs of several of these ops (buffers kept alive, arena reuse) |

mod chains;
mod data;
mod elementwise;
mod norm;
mod products;
mod windows;

use nart_target_cpu::testing::{Case, Gen, Val};
use nart_tensor::Tensor;

/// `t` as an argument, or (one time in four) as a constant, so that both the code's inputs
/// and its constant globals are exercised.
pub fn input(k: &mut Case, g: &mut Gen, t: Tensor) -> Val {
    if g.chance(1, 4) {
        k.constant(&t)
    } else {
        k.arg(t)
    }
}

/// A dimension: usually `1..=small`, one time in five `9..=40`, past the widths the
/// generated loops are vectorized by, so that their remainders run too.
pub fn dim(g: &mut Gen, small: usize) -> usize {
    if g.chance(1, 5) {
        g.size(9, 40)
    } else {
        g.size(1, small)
    }
}

/// An activation of the fused ops with its parameters: the `activation` and
/// `activation_params` properties, and its name for descriptions.
pub fn activation(g: &mut Gen) -> (String, String) {
    let (kw, params): (&str, Vec<f32>) = match g.size(0, 6) {
        0 => ("none", vec![]),
        1 => ("relu", vec![]),
        2 => ("leaky_relu", vec![g.f32(-0.5, 1.5)]),
        3 => {
            let lo = g.f32(-1.0, 0.5);
            ("clip", vec![lo, lo + g.f32(0.0, 2.0)])
        }
        4 => ("sigmoid", vec![]),
        5 => ("tanh", vec![]),
        _ => ("hard_sigmoid", vec![g.f32(0.05, 1.0), g.f32(-0.5, 1.0)]),
    };
    let mut props = format!("activation = #graph.activation<{kw}>");
    if !params.is_empty() {
        let p: Vec<String> = params
            .iter()
            .map(|&x| nart_target_cpu::testing::f32_literal(x))
            .collect();
        props += &format!(", activation_params = array<f32: {}>", p.join(", "));
    }
    (props, format!("{kw}{params:?}"))
}
