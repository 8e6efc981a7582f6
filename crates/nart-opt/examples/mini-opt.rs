//! `mini-opt`: a custom opt tool built on `nart_opt::main`, as a dialect or chip crate would
//! write one, knowing only the `func` dialect (besides `builtin`) and the `cse` pass.
//!
//! `tests/custom_tool.rs` runs it.

use std::process::ExitCode;

use nart_opt::Registrations;

fn main() -> ExitCode {
    nart_opt::main(
        "mini-opt",
        Registrations {
            dialects: vec![nart_dialect_func::register],
            passes: vec![|registry| {
                registry.register(|| Box::new(nart_transforms::CsePass::new()))
            }],
        },
    )
}
