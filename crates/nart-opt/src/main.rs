//! `nart-opt`: nart's `mlir-opt`, with every dialect and pass nart has.
//!
//! This binary is the only place that registers every dialect and pass; the tool itself is
//! the `nart_opt` library.

use std::process::ExitCode;

use nart_opt::Registrations;

fn main() -> ExitCode {
    nart_opt::main(
        "nart-opt",
        Registrations {
            dialects: vec![
                nart_dialect_func::register,
                nart_dialect_cf::register,
                nart_dialect_arith::register,
                nart_dialect_graph::register,
                nart_dialect_quant::register,
                nart_dialect_qnn::register,
                nart_quant::register,
                nart_dialect_target::register,
                nart_dialect_bufferization::register,
                nart_dialect_tensor::register,
                nart_dialect_linalg::register,
                nart_dialect_scf::register,
                nart_dialect_memref::register,
                nart_dialect_math::register,
                nart_dialect_vector::register,
            ],
            // The partitioner's passes know the builtin targets and, as mlir-opt links its
            // test passes, the test chips `test-int8` and `test-f32`.
            passes: vec![
                nart_transforms::register,
                nart_conversion::register,
                nart_graph_opt::register,
                nart_graph_fusion::register,
                nart_quant::register_passes,
                nart_target::testing::register_passes,
                nart_egraph::register,
                nart_bufferize::register,
                nart_dialect_linalg::register_passes,
                nart_linalg_lowering::register,
            ],
        },
    )
}
