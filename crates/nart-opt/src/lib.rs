//! nart's `mlir-opt` as a library: [`main`] is the whole `nart-opt` tool, and a dialect or chip
//! crate ships its own `*-opt` tool by calling it with its own [`Registrations`] (MLIR's
//! `MlirOptMain`).
//!
//! The tool reads MLIR text (or an ONNX model), verifies it, runs a pass pipeline
//! (`--pass-pipeline='builtin.module(...)'` or one flag per pass) and prints the result, with
//! mlir-opt's flags: `--split-input-file`, `--verify-diagnostics`, `--mlir-print-*`,
//! `--mlir-timing`, `--list-passes`, `--list-dialects` and the rest of `--help`.
//! It knows only the dialects and passes it is given, plus the `builtin` dialect every context
//! has; ONNX input registers the dialects the importer needs by itself.
//!
//! A chip vendor's tool is a `main.rs` of a few lines:
//!
//! ```no_run
//! use std::process::ExitCode;
//!
//! use nart_opt::Registrations;
//!
//! fn main() -> ExitCode {
//!     nart_opt::main(
//!         "acme-opt",
//!         Registrations {
//!             dialects: vec![nart_dialect_func::register],
//!             passes: vec![|registry| registry.register(|| Box::new(nart_transforms::CsePass::new()))],
//!         },
//!     )
//! }
//! ```
//!
//! `crates/nart-opt/examples/mini-opt.rs` is such a tool, and `tests/custom_tool.rs` checks it.

#![deny(missing_docs)]

use std::process::ExitCode;

use nart_ir::Context;
use nart_pass::PassRegistry;

mod cli;
mod driver;

/// What an opt tool knows besides the `builtin` dialect: the dialects to register in every
/// context it creates, and the passes to register in its pass registry (which `--list-passes`,
/// the pass flags and `--pass-pipeline` use).
///
/// Registration is explicit: a tool knows exactly what it lists here.
#[derive(Clone, Debug, Default)]
pub struct Registrations {
    /// Dialect registrations, such as `nart_dialect_func::register`, run in this order on every
    /// new context; `--list-dialects` lists them in this order after `builtin`.
    pub dialects: Vec<fn(&mut Context)>,
    /// Pass registrations, such as `nart_transforms::register`, run in this order on the tool's
    /// pass registry.
    pub passes: Vec<fn(&mut PassRegistry)>,
}

/// Runs the opt tool `name` on the process's command line and returns its exit code: 0 on
/// success, 1 when it reported errors (diagnostics, pipeline errors, bad flags, unreadable
/// input).
///
/// `name` is the tool's name in messages (`name: unknown command line argument ...`), in
/// `--help` and in `--version`, which prints it with nart's version.
/// `registrations` says which dialects and passes the tool knows; see [`Registrations`].
///
/// Arguments that are not UTF-8 are accepted where they are paths (the input file and `-o`);
/// elsewhere they are an error. Output that cannot be written (a full disk, a closed standard
/// output) is an error too.
pub fn main(name: &str, registrations: Registrations) -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    driver::main(name, &registrations, &args)
}
