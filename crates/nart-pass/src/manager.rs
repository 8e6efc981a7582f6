//! The pass manager: pipelines nested on op kinds, run with instrumentation (verification after
//! each pass, IR printing, timing, statistics).
//!
//! As in MLIR, a nested pipeline anchored on `X` runs, in order, on every op named `X` directly
//! inside the regions of the op its parent runs on (one level down, not deeper); `any` matches
//! every such op.
//! The whole nested pipeline runs on one op before the next op is visited.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::time::{Duration, Instant};

use indexmap::IndexMap;

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Diagnostic, Op};

use crate::errors::{PassManagerError, PipelineError};
use crate::pass::{Pass, PassState};
use crate::registry::PassRegistry;
use crate::report::{render_statistics, render_timing, StatEntry, TimingEntry};

/// What a pipeline runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Ops with this name.
    Op(String),
    /// Any op (`any(...)`).
    Any,
}

impl Anchor {
    fn from_name(name: &str) -> Anchor {
        if name == "any" {
            Anchor::Any
        } else {
            Anchor::Op(name.to_string())
        }
    }

    /// The anchor as written in a pipeline.
    pub fn as_str(&self) -> &str {
        match self {
            Anchor::Op(n) => n,
            Anchor::Any => "any",
        }
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Anchor::Op(n) => n == name,
            Anchor::Any => true,
        }
    }
}

struct PassSlot {
    pass: Box<dyn Pass>,
    stats: IndexMap<&'static str, u64>,
    time: Duration,
    /// Phases the pass timed itself ([`PassState::add_time`]), nested under it in the report.
    phases: IndexMap<&'static str, Duration>,
}

enum Entry {
    Pass(PassSlot),
    Nested { pm: OpPassManager, time: Duration },
}

impl Clone for Entry {
    fn clone(&self) -> Self {
        match self {
            Entry::Pass(s) => Entry::Pass(PassSlot {
                pass: s.pass.clone_boxed(),
                stats: s.stats.clone(),
                time: s.time,
                phases: s.phases.clone(),
            }),
            Entry::Nested { pm, time } => Entry::Nested {
                pm: pm.clone(),
                time: *time,
            },
        }
    }
}

/// A pipeline anchored on one op kind (MLIR's `OpPassManager`).
#[derive(Clone)]
pub struct OpPassManager {
    anchor: Anchor,
    entries: Vec<Entry>,
}

impl std::fmt::Debug for OpPassManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_pipeline_string())
    }
}

impl OpPassManager {
    /// An empty pipeline anchored on `anchor` (`any` for any op).
    pub fn new(anchor: &str) -> OpPassManager {
        OpPassManager {
            anchor: Anchor::from_name(anchor),
            entries: Vec::new(),
        }
    }

    /// The anchor.
    pub fn anchor(&self) -> &Anchor {
        &self.anchor
    }

    /// Number of entries (passes and nested pipelines) directly in this pipeline.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pipeline is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends a pass. A pass restricted to an op name can only be added to a pipeline on that
    /// op (or an `any` pipeline, where it skips other ops).
    pub fn add_pass(&mut self, pass: Box<dyn Pass>) -> Result<(), PassManagerError> {
        if let (Some(pa), Anchor::Op(ma)) = (pass.anchor(), &self.anchor) {
            if pa != ma {
                return Err(PassManagerError::PassAnchor {
                    pass: pass.argument().to_string(),
                    pass_anchor: pa.to_string(),
                    manager_anchor: ma.clone(),
                });
            }
        }
        let stats = pass.statistics().iter().map(|s| (s.name, 0)).collect();
        self.entries.push(Entry::Pass(PassSlot {
            pass,
            stats,
            time: Duration::ZERO,
            phases: IndexMap::new(),
        }));
        Ok(())
    }

    /// Appends a pipeline nested on `anchor` and returns it.
    pub fn nest(&mut self, anchor: &str) -> &mut OpPassManager {
        self.entries.push(Entry::Nested {
            pm: OpPassManager::new(anchor),
            time: Duration::ZERO,
        });
        match self.entries.last_mut() {
            Some(Entry::Nested { pm, .. }) => pm,
            _ => unreachable!("the entry just pushed is a nested pipeline"),
        }
    }

    /// The pipeline in one line, as `--pass-pipeline` takes it:
    /// `builtin.module(func.func(cse),symbol-dce)`.
    pub fn to_pipeline_string(&self) -> String {
        let items: Vec<String> = self
            .entries
            .iter()
            .map(|e| match e {
                Entry::Pass(s) => s.pass.pipeline_text(),
                Entry::Nested { pm, .. } => pm.to_pipeline_string(),
            })
            .collect();
        format!("{}({})", self.anchor.as_str(), items.join(","))
    }

    fn pretty(&self, depth: usize, out: &mut String) {
        let pad = "  ".repeat(depth);
        out.push_str(&format!("{pad}{}(\n", self.anchor.as_str()));
        for (i, e) in self.entries.iter().enumerate() {
            match e {
                Entry::Pass(s) => {
                    out.push_str(&format!("{pad}  {}", s.pass.pipeline_text()));
                }
                Entry::Nested { pm, .. } => pm.pretty(depth + 1, out),
            }
            if i + 1 < self.entries.len() {
                out.push(',');
            }
            out.push('\n');
        }
        out.push_str(&format!("{pad})"));
    }

    fn timing_entries(&self) -> Vec<TimingEntry> {
        self.entries
            .iter()
            .map(|e| match e {
                Entry::Pass(s) => TimingEntry {
                    name: s.pass.name().to_string(),
                    time: s.time,
                    children: s
                        .phases
                        .iter()
                        .map(|(name, time)| TimingEntry {
                            name: name.to_string(),
                            time: *time,
                            children: Vec::new(),
                        })
                        .collect(),
                },
                Entry::Nested { pm, time } => TimingEntry {
                    name: format!("'{}' Pipeline", pm.anchor.as_str()),
                    time: *time,
                    children: pm.timing_entries(),
                },
            })
            .collect()
    }

    fn stat_entries(&self) -> Vec<StatEntry> {
        self.entries
            .iter()
            .map(|e| match e {
                Entry::Pass(s) => StatEntry::Pass {
                    name: s.pass.name().to_string(),
                    stats: s
                        .stats
                        .iter()
                        .map(|(n, v)| {
                            let desc = s
                                .pass
                                .statistics()
                                .iter()
                                .find(|d| d.name == *n)
                                .map_or("", |d| d.desc);
                            (n.to_string(), desc.to_string(), *v)
                        })
                        .collect(),
                },
                Entry::Nested { pm, .. } => StatEntry::Pipeline {
                    anchor: pm.anchor.as_str().to_string(),
                    children: pm.stat_entries(),
                },
            })
            .collect()
    }
}

/// Which passes IR printing applies to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum IrPrintFilter {
    /// None.
    #[default]
    None,
    /// Every pass.
    All,
    /// The passes with these arguments.
    Passes(Vec<String>),
}

impl IrPrintFilter {
    fn matches(&self, argument: &str) -> bool {
        match self {
            IrPrintFilter::None => false,
            IrPrintFilter::All => true,
            IrPrintFilter::Passes(v) => v.iter().any(|p| p == argument),
        }
    }
}

/// Instrumentation settings (mlir-opt's `--mlir-print-ir-*`, `--verify-each`, ...).
#[derive(Clone, Debug)]
pub struct Instrumentation {
    /// Verify the op a pass ran on after the pass (default on).
    pub verify_each: bool,
    /// Print the IR before these passes.
    pub print_before: IrPrintFilter,
    /// Print the IR after these passes.
    pub print_after: IrPrintFilter,
    /// When printing after a pass, only if the IR changed; on its own it means "after every
    /// pass that changed the IR".
    pub print_after_change: bool,
    /// Print the IR after a pass that failed.
    pub print_after_failure: bool,
    /// Print the whole top-level op instead of the op the pass ran on.
    pub print_module_scope: bool,
    /// How to print the IR.
    pub print_options: PrintOptions,
}

impl Default for Instrumentation {
    fn default() -> Self {
        Instrumentation {
            verify_each: true,
            print_before: IrPrintFilter::None,
            print_after: IrPrintFilter::None,
            print_after_change: false,
            print_after_failure: false,
            print_module_scope: false,
            print_options: PrintOptions::default(),
        }
    }
}

/// The top-level pass manager: a pipeline plus instrumentation.
#[derive(Clone, Debug)]
pub struct PassManager {
    /// The pipeline.
    pub pipeline: OpPassManager,
    /// Instrumentation settings.
    pub instrumentation: Instrumentation,
    /// Warnings and remarks passes emitted (`PassState::emit`), in order.
    emitted: Vec<Diagnostic>,
}

impl PassManager {
    /// An empty pass manager anchored on `anchor` (usually `builtin.module`).
    pub fn new(anchor: &str) -> PassManager {
        PassManager::from_pipeline(OpPassManager::new(anchor))
    }

    /// A pass manager running `pipeline`.
    pub fn from_pipeline(pipeline: OpPassManager) -> PassManager {
        PassManager {
            pipeline,
            instrumentation: Instrumentation::default(),
            emitted: Vec::new(),
        }
    }

    /// Parses an anchored textual pipeline (`builtin.module(func.func(cse))`).
    pub fn parse(text: &str, registry: &PassRegistry) -> Result<PassManager, PipelineError> {
        crate::pipeline::parse_pipeline(text, registry).map(PassManager::from_pipeline)
    }

    /// The `--dump-pass-pipeline` text, as MLIR prints it:
    /// `Pass Manager with N passes:` and the pipeline, one element per line.
    pub fn dump_pipeline(&self) -> String {
        let mut out = format!("Pass Manager with {} passes:\n", self.pipeline.len());
        self.pipeline.pretty(0, &mut out);
        out.push_str("\n\n");
        out
    }

    /// Runs the pipeline on `op`, writing instrumentation output to `out`.
    /// The first failing pass (or failing verification) stops the run.
    pub fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        out: &mut dyn Write,
    ) -> Result<(), PassManagerError> {
        if !self.pipeline.anchor.matches(ctx.op_name_str(op)) {
            return Err(PassManagerError::AnchorMismatch {
                expected: self.pipeline.anchor.as_str().to_string(),
                found: ctx.op_name_str(op).to_string(),
            });
        }
        let mut runner = Runner {
            cfg: &self.instrumentation,
            top: op,
            out,
            emitted: &mut self.emitted,
        };
        runner.run_pm(&mut self.pipeline, ctx, op)
    }

    /// Takes the warnings and remarks passes emitted so far (they do not fail the run).
    pub fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.emitted)
    }

    /// The timing entries of the passes run so far (to compose a report with other phases).
    pub fn timing_entries(&self) -> Vec<TimingEntry> {
        self.pipeline.timing_entries()
    }

    /// The execution time report of the passes run so far.
    pub fn timing_report(&self) -> String {
        render_timing(&self.timing_entries(), None)
    }

    /// The pass statistics report of the passes run so far.
    pub fn statistics_report(&self) -> String {
        render_statistics(&self.pipeline.stat_entries())
    }
}

struct Runner<'a, 'w> {
    cfg: &'a Instrumentation,
    top: Op,
    out: &'w mut dyn Write,
    emitted: &'a mut Vec<Diagnostic>,
}

impl Runner<'_, '_> {
    fn run_pm(
        &mut self,
        pm: &mut OpPassManager,
        ctx: &mut Context,
        op: Op,
    ) -> Result<(), PassManagerError> {
        let OpPassManager { anchor, entries } = pm;
        for entry in entries.iter_mut() {
            match entry {
                Entry::Nested { pm: inner, time } => {
                    let start = Instant::now();
                    let mut children = Vec::new();
                    for &r in ctx.regions(op) {
                        for &b in ctx.region_blocks(r) {
                            for c in ctx.block_ops_iter(b) {
                                if inner.anchor.matches(ctx.op_name_str(c)) {
                                    children.push(c);
                                }
                            }
                        }
                    }
                    let mut res = Ok(());
                    for c in children {
                        if ctx.is_erased(c) {
                            continue;
                        }
                        res = self.run_pm(inner, ctx, c);
                        if res.is_err() {
                            break;
                        }
                    }
                    *time += start.elapsed();
                    res?;
                }
                Entry::Pass(slot) => {
                    if let Some(pa) = slot.pass.anchor() {
                        if pa != ctx.op_name_str(op) {
                            if *anchor == Anchor::Any {
                                continue;
                            }
                            return Err(PassManagerError::PassAnchor {
                                pass: slot.pass.argument().to_string(),
                                pass_anchor: pa.to_string(),
                                manager_anchor: ctx.op_name_str(op).to_string(),
                            });
                        }
                    }
                    self.run_pass(slot, ctx, op)?;
                }
            }
        }
        Ok(())
    }

    fn run_pass(
        &mut self,
        slot: &mut PassSlot,
        ctx: &mut Context,
        op: Op,
    ) -> Result<(), PassManagerError> {
        let cfg = self.cfg;
        let arg = slot.pass.argument();
        let name = slot.pass.name();
        if cfg.print_before.matches(arg) {
            self.print_ir(ctx, &format!("Before {name}"), arg, op)?;
        }
        let print_after = cfg.print_after.matches(arg)
            || (cfg.print_after_change && cfg.print_after == IrPrintFilter::None);
        let scope = if cfg.print_module_scope { self.top } else { op };
        let before = (print_after && cfg.print_after_change).then(|| fingerprint(ctx, scope));
        let mut state = PassState::new(&mut *self.out);
        let start = Instant::now();
        let res = slot.pass.run(ctx, op, &mut state);
        slot.time += start.elapsed();
        for (k, v) in std::mem::take(&mut state.stats) {
            *slot.stats.entry(k).or_insert(0) += v;
        }
        for (k, v) in std::mem::take(&mut state.phases) {
            *slot.phases.entry(k).or_insert(Duration::ZERO) += v;
        }
        self.emitted.append(&mut state.diagnostics);
        drop(state);
        if let Err(failure) = res {
            if cfg.print_after_failure {
                self.print_ir(ctx, &format!("After {name} Failed"), arg, op)?;
            }
            let mut diagnostics = failure.diagnostics;
            if diagnostics.is_empty() {
                diagnostics.push(Diagnostic::error(
                    ctx.op_loc(op),
                    format!("pass '{arg}' failed on '{}' op", ctx.op_name_str(op)),
                ));
            }
            return Err(PassManagerError::PassFailed {
                pass: arg.to_string(),
                op_name: ctx.op_name_str(op).to_string(),
                diagnostics,
            });
        }
        if cfg.verify_each {
            if let Err(diagnostics) = nart_ir::verify::verify(ctx, op) {
                return Err(PassManagerError::VerifyFailed {
                    pass: arg.to_string(),
                    diagnostics,
                });
            }
        }
        if print_after && before.is_none_or(|fp| fp != fingerprint(ctx, scope)) {
            self.print_ir(ctx, &format!("After {name}"), arg, op)?;
        }
        Ok(())
    }

    fn print_ir(
        &mut self,
        ctx: &Context,
        what: &str,
        arg: &str,
        op: Op,
    ) -> Result<(), PassManagerError> {
        let cfg = self.cfg;
        let mut header = format!("// -----// IR Dump {what} ({arg})");
        let target = if cfg.print_module_scope && op != self.top {
            header.push_str(&format!(" ('{}' operation", ctx.op_name_str(op)));
            if let Some(sym) = nart_ir::symbol::symbol_name(ctx, op) {
                header.push_str(&format!(": @{sym}"));
            }
            header.push(')');
            self.top
        } else if cfg.print_module_scope {
            self.top
        } else {
            op
        };
        header.push_str(" //----- //\n");
        self.out.write_all(header.as_bytes())?;
        self.out
            .write_all(print_op(ctx, target, &cfg.print_options).as_bytes())?;
        self.out.write_all(b"\n")?;
        Ok(())
    }
}

/// A hash of the structure of `op` and everything in it: names, operand and result handles and
/// types, attributes, successors, blocks and their arguments, locations. Any change a pass can
/// make to the IR changes it (up to hash collisions).
pub fn fingerprint(ctx: &Context, op: Op) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    fn rec(ctx: &Context, op: Op, h: &mut rustc_hash::FxHasher) {
        op.hash(h);
        ctx.op_name(op).hash(h);
        ctx.operands(op).hash(h);
        for &r in ctx.results(op) {
            r.hash(h);
            ctx.value_type(r).hash(h);
        }
        ctx.props(op).hash(h);
        ctx.attrs(op).hash(h);
        ctx.successors(op).hash(h);
        ctx.op_loc(op).hash(h);
        for &r in ctx.regions(op) {
            r.hash(h);
            for &b in ctx.region_blocks(r) {
                b.hash(h);
                for &a in ctx.block_args(b) {
                    a.hash(h);
                    ctx.value_type(a).hash(h);
                }
                for inner in ctx.block_ops_iter(b) {
                    rec(ctx, inner, h);
                }
                0xB10Cu32.hash(h);
            }
        }
        0xE0Fu32.hash(h);
    }
    rec(ctx, op, &mut h);
    h.finish()
}
