//! The lit-style test runner behind `nart-lit`.
//!
//! A suite is described by a `lit.toml` (see [`Config`]); tests are files with a configured
//! suffix whose `RUN:` lines are shell commands run through `bash -c` with `set -o pipefail`,
//! after lit's `%s %S %p %t %T %%` substitutions and after tool names are replaced by the
//! binaries of the current cargo build.
//! `XFAIL:`, `REQUIRES:` and `UNSUPPORTED:` take lit's boolean feature expressions.

pub mod config;
pub mod features;
pub mod runner;
pub mod script;

pub use config::Config;
pub use runner::{run_suite, Options, Outcome, Summary, TestResult};
