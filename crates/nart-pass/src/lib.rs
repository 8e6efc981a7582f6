//! nart's pass infrastructure, built the way MLIR's is.
//!
//! - A [`Pass`] declares itself once with [`declare_pass!`]: kebab-case argument, display
//!   name, summary, description, anchor op, options and statistics, kept in a [`PassInfo`].
//!   Its options are a struct declared with [`pass_options!`], whose fields are read as typed
//!   Rust values (`self.opts.max_iterations`); enum options are Rust enums ([`option_enum!`]).
//!   A pass crate needs nothing but this crate and `nart-ir` (see the example in [`declare`]).
//! - A [`PassRegistry`] maps arguments to constructors and generates `--list-passes`.
//! - Textual pipelines (`builtin.module(func.func(canonicalize{max-iterations=10},cse))`) are
//!   parsed in two phases, structure then registry lookup ([`parse_pipeline`]); errors point
//!   into the pipeline with a caret ([`PipelineError`]).
//! - A [`PassManager`] runs nested pipelines ([`OpPassManager`]) with instrumentation:
//!   verification after each pass, `--mlir-print-ir-*`-style dumps, timing and statistics
//!   reports in MLIR's layout.

#![deny(missing_docs)]

pub mod declare;
mod errors;
mod manager;
mod options;
mod pass;
mod pipeline;
mod registry;
mod report;

#[cfg(test)]
mod tests;

pub use errors::{OptionError, PassManagerError, PipelineError};
pub use manager::{
    fingerprint, Anchor, Instrumentation, IrPrintFilter, OpPassManager, PassManager,
};
#[doc(hidden)]
pub use options::__doc_text;
pub use options::{
    parse_enum_case, EnumCase, NoOptions, OptionDecl, OptionKind, OptionType, OptionValue,
    PassOptions,
};
pub use pass::{Pass, PassDecl, PassFailure, PassInfo, PassState, StatisticDecl};
pub use pipeline::{parse_pass_list, parse_pipeline, parse_structure, PipelineElement};
pub use registry::{PassCtor, PassRegistry, PipelineInfo};
pub use report::{banner, render_statistics, render_timing, StatEntry, TimingEntry};
