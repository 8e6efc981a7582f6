//! nart's pass infrastructure, built the way MLIR's is.
//!
//! - A [`Pass`] declares itself once in a static [`PassInfo`]: kebab-case argument, display
//!   name, summary, description, anchor op, typed options ([`OptionDecl`]) and statistics.
//! - A [`PassRegistry`] maps arguments to constructors and generates `--list-passes`.
//! - Textual pipelines (`builtin.module(func.func(canonicalize{max-iterations=10},cse))`) are
//!   parsed in two phases, structure then registry lookup ([`parse_pipeline`]); errors point
//!   into the pipeline with a caret ([`PipelineError`]).
//! - A [`PassManager`] runs nested pipelines ([`OpPassManager`]) with instrumentation:
//!   verification after each pass, `--mlir-print-ir-*`-style dumps, timing and statistics
//!   reports in MLIR's layout.

#![deny(missing_docs)]

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
pub use options::{EnumCase, OptionDecl, OptionKind, OptionValue, PassOptions};
pub use pass::{Pass, PassFailure, PassInfo, PassState, StatisticDecl};
pub use pipeline::{parse_pass_list, parse_pipeline, parse_structure, PipelineElement};
pub use registry::{PassCtor, PassRegistry};
pub use report::{banner, render_statistics, render_timing, StatEntry, TimingEntry};
