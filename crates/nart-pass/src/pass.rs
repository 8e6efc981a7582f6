//! The [`Pass`] trait and what a pass declares about itself ([`PassInfo`], [`PassDecl`]), the
//! state a pass runs with ([`PassState`]) and how it fails ([`PassFailure`]).

use indexmap::IndexMap;

use nart_ir::{Context, Diagnostic, Op};

use crate::options::{OptionDecl, PassOptions};
/// A named counter a pass declares (MLIR's `Statistic`).
#[derive(Clone, Copy, Debug)]
pub struct StatisticDecl {
    /// Name, e.g. `num-cse'd`.
    pub name: &'static str,
    /// Description, e.g. `Number of operations CSE'd`.
    pub desc: &'static str,
}

/// Everything a pass declares once (MLIR's `Passes.td` record).
#[derive(Debug)]
pub struct PassInfo {
    /// Kebab-case command-line name, e.g. `cse`.
    pub argument: &'static str,
    /// Display name used in IR dump headers and reports, e.g. `CSE`.
    pub name: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Longer description in Markdown.
    pub description: &'static str,
    /// The op name the pass runs on, or `None` for any op.
    pub anchor: Option<&'static str>,
    /// Options.
    pub options: &'static [OptionDecl],
    /// Statistics.
    pub statistics: &'static [StatisticDecl],
}

/// Why a pass failed: the diagnostics it reported (it may report none; the pass manager then
/// adds one at the op's location).
#[derive(Debug, Clone, Default, thiserror::Error)]
#[error("pass failed")]
pub struct PassFailure {
    /// What went wrong, with locations.
    pub diagnostics: Vec<Diagnostic>,
}

impl PassFailure {
    /// A failure with one diagnostic.
    pub fn new(diag: Diagnostic) -> PassFailure {
        PassFailure {
            diagnostics: vec![diag],
        }
    }

    /// A failure with several diagnostics.
    pub fn with_diagnostics(diagnostics: Vec<Diagnostic>) -> PassFailure {
        PassFailure { diagnostics }
    }

    /// A failure with an error about `op`, prefixed MLIR-style (`'x.y' op message`).
    pub fn op_error(ctx: &Context, op: Op, message: impl std::fmt::Display) -> PassFailure {
        PassFailure::new(ctx.op_error(op, message))
    }
}

/// What a pass sees besides the IR: where to print, and its statistics.
pub struct PassState<'a> {
    /// Where the pass prints (`print-ir`); the pass manager's output.
    pub out: &'a mut dyn std::io::Write,
    pub(crate) stats: IndexMap<&'static str, u64>,
    pub(crate) phases: IndexMap<&'static str, std::time::Duration>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> PassState<'a> {
    /// A state printing to `out`.
    pub fn new(out: &'a mut dyn std::io::Write) -> PassState<'a> {
        PassState {
            out,
            stats: IndexMap::new(),
            phases: IndexMap::new(),
            diagnostics: Vec::new(),
        }
    }

    /// Reports a warning or remark that does not fail the pass (a lint's findings); the pass
    /// manager collects them ([`PassManager::take_diagnostics`](crate::PassManager::take_diagnostics))
    /// and the tool shows them with the source line, as MLIR's diagnostic handler does.
    pub fn emit(&mut self, diag: Diagnostic) {
        self.diagnostics.push(diag);
    }

    /// The diagnostics emitted in this run.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Adds `n` to statistic `name`.
    pub fn add_stat(&mut self, name: &'static str, n: u64) {
        *self.stats.entry(name).or_insert(0) += n;
    }

    /// Adds `time` to the phase `name` of this pass: `--mlir-timing` shows each phase nested
    /// under the pass (as MLIR's nested timers do), summed over the ops the pass ran on.
    pub fn add_time(&mut self, name: &'static str, time: std::time::Duration) {
        *self.phases.entry(name).or_insert(std::time::Duration::ZERO) += time;
    }

    /// The phases timed in this run.
    pub fn phases(&self) -> &IndexMap<&'static str, std::time::Duration> {
        &self.phases
    }

    /// The statistics recorded in this run.
    pub fn stats(&self) -> &IndexMap<&'static str, u64> {
        &self.stats
    }
}

/// What a pass's declaration gives it: [`declare_pass!`](crate::declare_pass) implements this
/// trait, so a pass implements only [`Pass::run`].
pub trait PassDecl: Send {
    /// The declaration.
    fn info(&self) -> &'static PassInfo;
    /// The current option values.
    fn options(&self) -> &dyn PassOptions;
    /// The option values, to set them.
    fn options_mut(&mut self) -> &mut dyn PassOptions;
    /// A copy of the pass with the same options.
    fn clone_boxed(&self) -> Box<dyn Pass>;
}

/// A pass: declared once ([`declare_pass!`](crate::declare_pass), which gives the
/// [`PassDecl`] part), configured through typed options, run on one op at a time by the pass
/// manager.
///
/// A pass changes IR only through the context it is given, and only inside the op it runs on
/// (MLIR's rule that makes nested pipelines safe).
pub trait Pass: PassDecl {
    /// Runs the pass on `op`.
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure>;

    /// Kebab-case command-line name.
    fn argument(&self) -> &'static str {
        self.info().argument
    }
    /// Display name.
    fn name(&self) -> &'static str {
        self.info().name
    }
    /// One-line summary.
    fn summary(&self) -> &'static str {
        self.info().summary
    }
    /// Description.
    fn description(&self) -> &'static str {
        self.info().description
    }
    /// The op name the pass runs on, or `None` for any op.
    fn anchor(&self) -> Option<&'static str> {
        self.info().anchor
    }
    /// Declared statistics.
    fn statistics(&self) -> &'static [StatisticDecl] {
        self.info().statistics
    }
    /// The pass as it appears in a textual pipeline: `cse` or `canonicalize{max-iterations=10 ...}`.
    fn pipeline_text(&self) -> String {
        let opts = self.options().to_pipeline_text();
        if opts.is_empty() {
            self.argument().to_string()
        } else {
            format!("{}{{{opts}}}", self.argument())
        }
    }
}
