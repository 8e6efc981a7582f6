//! `egraph-optimize`: equality saturation over a graph-dialect function with
//! [egg](https://docs.rs/egg), and extraction by a cost model a target can supply.
//!
//! The pass runs on each `func.func` whose body is one block:
//!
//! 1. **Translate** ([`translate`]): the modelled ops (pure, no regions, static float or
//!    integer tensors) become e-nodes over a language of (op name, property key, result-type
//!    key, operands), with leaves for block arguments, constants and opaque values, and
//!    projections for the results of multi-result ops. Everything else stays as it is.
//! 2. **Saturate** ([`rules`]): egg's runner applies the rules within `node-limit`,
//!    `iter-limit` and `time-limit-ms`.
//! 3. **Extract** ([`extract`]): greedy and DAG-aware, priced by a [`GraphCost`] — FLOPs and
//!    bytes from the ops' `OpCostInterface` by default, or the `target=NAME` target's `cost`.
//! 4. **Write back** ([`writeback`]): the chosen terms become ops again through the rewriter,
//!    when (and only when) they cost less than the input; otherwise the function is kept and
//!    a remark says why.
//!
//! Statistics name each rule's fire count, e-nodes and e-classes, and the cost before and
//! after; `--mlir-timing` shows the `saturation` and `extraction` phases nested under the pass.

#![deny(missing_docs)]

pub mod cost;
pub mod extract;
pub mod lang;
pub mod rules;
pub mod translate;
pub mod writeback;

use std::time::{Duration, Instant};

use nart_ir::{Context, Diagnostic, Op, Severity};
use nart_pass::{Pass, PassDecl, PassFailure, PassInfo, PassOptions, PassState, StatisticDecl};
use nart_target::TargetRegistry;

pub use cost::{FlopsBytes, GraphCost, TargetCost};

nart_pass::pass_options! {
    /// The options of `egraph-optimize`.
    pub struct EgraphOptions {
        /// Stop saturating when the e-graph has this many e-nodes
        #[name = "node-limit"]
        pub node_limit: i64 = 20000,
        /// Stop saturating after this many iterations
        #[name = "iter-limit"]
        pub iter_limit: i64 = 12,
        /// Stop saturating after this many milliseconds
        #[name = "time-limit-ms"]
        pub time_limit_ms: i64 = 1000,
        /// Price ops with this target's cost model (empty: FLOPs plus bytes moved)
        #[name = "target"]
        pub target: String = "",
    }
}

/// Builds the registry `target=NAME` looks names up in.
pub type TargetsFn = fn() -> TargetRegistry;

/// The `egraph-optimize` pass.
#[derive(Clone, Debug)]
pub struct EgraphOptimizePass {
    /// The option values.
    pub opts: EgraphOptions,
    targets: TargetsFn,
}

impl Default for EgraphOptimizePass {
    fn default() -> Self {
        EgraphOptimizePass::new()
    }
}

/// The statistics: the pass's own, then one per rule (its name), as [`rules::RULES`] lists
/// them.
const STATISTICS: &[StatisticDecl] = &[
    StatisticDecl {
        name: "num-functions",
        desc: "Number of functions saturated",
    },
    StatisticDecl {
        name: "num-kept",
        desc: "Number of functions kept as they were (the extraction was not cheaper)",
    },
    StatisticDecl {
        name: "num-enodes",
        desc: "Number of e-nodes after saturation",
    },
    StatisticDecl {
        name: "num-eclasses",
        desc: "Number of e-classes after saturation",
    },
    StatisticDecl {
        name: "num-iterations",
        desc: "Number of saturation iterations",
    },
    StatisticDecl {
        name: "num-ops-before",
        desc: "Number of modelled ops before",
    },
    StatisticDecl {
        name: "num-ops-after",
        desc: "Number of modelled ops after",
    },
    StatisticDecl {
        name: "cost-before",
        desc: "Cost of the modelled ops before (the cost model's unit, rounded)",
    },
    StatisticDecl {
        name: "cost-after",
        desc: "Cost of the modelled ops after (the cost model's unit, rounded)",
    },
    StatisticDecl {
        name: "add-zero",
        desc: "Rule x + 0 = x applied",
    },
    StatisticDecl {
        name: "sub-zero",
        desc: "Rule x - 0 = x applied",
    },
    StatisticDecl {
        name: "mul-one",
        desc: "Rule x * 1 = x applied",
    },
    StatisticDecl {
        name: "div-one",
        desc: "Rule x / 1 = x applied",
    },
    StatisticDecl {
        name: "add-commute",
        desc: "Rule a + b = b + a applied",
    },
    StatisticDecl {
        name: "mul-commute",
        desc: "Rule a * b = b * a applied",
    },
    StatisticDecl {
        name: "add-const-assoc",
        desc: "Rule (x + c1) + c2 = x + (c1 + c2) applied",
    },
    StatisticDecl {
        name: "mul-const-assoc",
        desc: "Rule (x * c1) * c2 = x * (c1 * c2) applied",
    },
    StatisticDecl {
        name: "mul-factor",
        desc: "Rule x * c + y * c = (x + y) * c applied",
    },
    StatisticDecl {
        name: "mul-distribute",
        desc: "Rule (x + y) * c = x * c + y * c applied",
    },
    StatisticDecl {
        name: "neg-neg",
        desc: "Rule -(-x) = x applied",
    },
    StatisticDecl {
        name: "relu-relu",
        desc: "Rule relu(relu(x)) = relu(x) applied",
    },
    StatisticDecl {
        name: "transpose-transpose",
        desc: "Rule transpose(transpose(x, p), q) = transpose(x, p∘q) applied",
    },
    StatisticDecl {
        name: "reshape-reshape",
        desc: "Rule reshape(reshape(x, s1), s2) = reshape(x, s2) applied",
    },
    StatisticDecl {
        name: "reshape-identity",
        desc: "Rule reshape(x, s) = x (same shape) applied",
    },
    StatisticDecl {
        name: "transpose-unary",
        desc: "Rule transpose(f(x)) = f(transpose(x)) applied",
    },
    StatisticDecl {
        name: "transpose-binary",
        desc: "Rule transpose(x ⊕ y) = transpose(x) ⊕ transpose(y) applied",
    },
    StatisticDecl {
        name: "transpose-sink",
        desc: "Rule transpose(x) + transpose(y) = transpose(x + y) applied",
    },
    StatisticDecl {
        name: "transpose-sink-mul",
        desc: "Rule transpose(x) * transpose(y) = transpose(x * y) applied",
    },
    StatisticDecl {
        name: "merge-matmul",
        desc: "Rule x·W1, x·W2 = split(x·[W1 W2]) applied",
    },
    StatisticDecl {
        name: "merge-conv",
        desc: "Rule conv(x, W1), conv(x, W2) = split(conv(x, [W1; W2])) applied",
    },
    StatisticDecl {
        name: "merge-gemm",
        desc: "Rule gemm(x, B1, C1), gemm(x, B2, C2) = split(gemm(x, [B1 B2], [C1 C2])) applied",
    },
    StatisticDecl {
        name: "merge-conv-bias",
        desc: "Rule conv(x, W1, b1), conv(x, W2, b2) = split(conv(x, [W1; W2], [b1; b2])) applied",
    },
];

impl EgraphOptimizePass {
    /// The declaration of the pass.
    pub const INFO: &'static PassInfo = &PassInfo {
        argument: "egraph-optimize",
        name: "EgraphOptimize",
        summary: "Optimize graph functions by equality saturation (egg) and cost-based extraction",
        description: "Turns the body of each single-block `func.func` into an e-graph: pure \
            ops on ranked float or integer tensors become e-nodes (with projections for \
            multi-result ops); block arguments, constants and the results of every other op \
            (ops with regions or effects, ops on quantized types) are leaves, and those other \
            ops are left as they are. Rules then saturate the e-graph within the limits: \
            neutral elements, commutativity, associativity with constants folded, a constant \
            factor distributed and factored, `Neg` involution, `Relu` idempotence, \
            Transpose/Reshape chains, transposes through elementwise ops, and Tensat's \
            multi-pattern merges of MatMuls, Gemms and Convs that share an input (weights \
            concatenated, one op, then `Split`). A greedy DAG-aware extraction picks the \
            cheapest term per e-class by FLOPs plus bytes moved (each op's \
            `OpCostInterface`), or by the cost model of the target `target` names. The \
            result is written back only when it costs less than the input; otherwise the \
            function is kept and a remark says so. Ties are broken by e-class and e-node \
            order, so the same input gives the same output; the limits should be set so \
            that the node and iteration limits stop saturation before the time limit does.",
        anchor: Some("func.func"),
        options: EgraphOptions::DECLS,
        statistics: STATISTICS,
    };

    /// The pass with default options and the builtin targets.
    pub fn new() -> Self {
        EgraphOptimizePass::with_targets(TargetRegistry::builtin)
    }

    /// The pass with default options and the targets `targets` builds.
    pub fn with_targets(targets: TargetsFn) -> Self {
        EgraphOptimizePass {
            opts: EgraphOptions::default(),
            targets,
        }
    }
}

impl PassDecl for EgraphOptimizePass {
    fn info(&self) -> &'static PassInfo {
        Self::INFO
    }
    fn options(&self) -> &dyn PassOptions {
        &self.opts
    }
    fn options_mut(&mut self) -> &mut dyn PassOptions {
        &mut self.opts
    }
    fn clone_boxed(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

/// Registers `egraph-optimize`.
pub fn register(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(EgraphOptimizePass::new()));
}

/// What one run on a function did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Whether the function was rewritten.
    pub changed: bool,
    /// Cost of the input's modelled ops.
    pub cost_before: f64,
    /// Cost of the extracted terms (the input's when kept).
    pub cost_after: f64,
    /// Modelled ops before and after.
    pub ops_before: usize,
    /// Modelled ops after.
    pub ops_after: usize,
    /// E-nodes and e-classes after saturation.
    pub enodes: usize,
    /// E-classes after saturation.
    pub eclasses: usize,
    /// Saturation iterations.
    pub iterations: usize,
    /// Fire counts per rule (rules that fired).
    pub fired: Vec<(&'static str, usize)>,
    /// Time spent saturating.
    pub saturation: Duration,
    /// Time spent extracting (and pricing).
    pub extraction: Duration,
    /// Why the input was kept, when it was.
    pub kept_because: Option<String>,
    /// Whether keeping it was forced (the extraction was worse, or could not be written):
    /// the pass says so in a remark. An extraction only as good as the input is kept quietly.
    pub forced: bool,
}

/// The limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// E-nodes.
    pub nodes: usize,
    /// Iterations.
    pub iters: usize,
    /// Time.
    pub time: Duration,
}

impl Default for Limits {
    /// The pass's default limits.
    fn default() -> Self {
        Limits::from_options(&EgraphOptions::default()).expect("positive defaults")
    }
}

impl Limits {
    fn from_options(o: &EgraphOptions) -> Result<Limits, String> {
        let pos = |v: i64, name: &str| {
            usize::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .ok_or(format!("option '{name}' must be positive, got {v}"))
        };
        Ok(Limits {
            nodes: pos(o.node_limit, "node-limit")?,
            iters: pos(o.iter_limit, "iter-limit")?,
            time: Duration::from_millis(pos(o.time_limit_ms, "time-limit-ms")? as u64),
        })
    }
}

/// Optimizes one function; `None` when its body is not a single block (left alone).
pub fn optimize_function(
    ctx: &mut Context,
    func: Op,
    model: &dyn GraphCost,
    limits: Limits,
) -> Option<Outcome> {
    run_function(ctx, func, model, limits, None)
}

/// For tests of the rules: saturates like [`optimize_function`], then writes back the
/// `alternative`th e-node of the e-class of the function's first root (the other classes as
/// extraction chose), whatever it costs. `None` when the body is not one block or the class
/// has no such e-node; `Outcome::changed` is false when that choice could not be written (a
/// cycle through the root).
#[doc(hidden)]
pub fn write_alternative(
    ctx: &mut Context,
    func: Op,
    limits: Limits,
    alternative: usize,
) -> Option<Outcome> {
    run_function(ctx, func, &FlopsBytes, limits, Some(alternative))
}

fn run_function(
    ctx: &mut Context,
    func: Op,
    model: &dyn GraphCost,
    limits: Limits,
    force: Option<usize>,
) -> Option<Outcome> {
    let tr = translate::translate(ctx, func)?;
    let mut pricer = cost::Pricer::new(model);
    let before_ops: Vec<Op> = tr
        .modelled
        .iter()
        .copied()
        .filter(|&op| !ctx.op_has_trait(op, nart_ir::Trait::ConstantLike))
        .collect();
    let cost_before: f64 = before_ops.iter().map(|&op| pricer.op(ctx, op)).sum();
    let mut out = Outcome {
        cost_before,
        cost_after: cost_before,
        ops_before: before_ops.len(),
        ops_after: before_ops.len(),
        ..Outcome::default()
    };
    // Roots: every value an op outside the e-graph uses (inside its regions included).
    let roots: Vec<egg::Id> = {
        let mut roots = Vec::new();
        let modelled: rustc_hash::FxHashSet<Op> = tr.modelled.iter().copied().collect();
        for op in ctx.block_ops(tr.block) {
            if modelled.contains(&op) {
                continue;
            }
            for (_, _, v) in translate::outside_uses(ctx, op) {
                if let Some(&c) = tr.class_of.get(&v) {
                    roots.push(c);
                }
            }
        }
        roots
    };

    let start = Instant::now();
    let analysis = lang::GraphAnalysis {
        tables: tr.graph.analysis.tables.clone(),
    };
    let runner: egg::Runner<lang::GNode, lang::GraphAnalysis, ()> = egg::Runner::new(analysis)
        .with_egraph(tr.graph.clone())
        .with_node_limit(limits.nodes)
        .with_iter_limit(limits.iters)
        .with_time_limit(limits.time)
        .run(&rules::rewrites());
    out.saturation = start.elapsed();
    let g = runner.egraph;
    out.enodes = g.total_number_of_nodes();
    out.eclasses = g.number_of_classes();
    out.iterations = runner.iterations.len();
    for r in rules::RULES {
        let n: usize = runner
            .iterations
            .iter()
            .map(|it| {
                it.applied
                    .get(&egg::Symbol::from(r.name))
                    .copied()
                    .unwrap_or(0)
            })
            .sum();
        if n > 0 {
            out.fired.push((r.name, n));
        }
    }

    let start = Instant::now();
    let mut ex = extract::extract(ctx, &g, &mut pricer, &roots);
    out.extraction = start.elapsed();
    if let Some(i) = force {
        let r = g.find(*roots.first()?);
        let node = g[r].nodes.get(i)?.clone();
        ex.choice.insert(r, node);
        let tr = translate::Translation { graph: g, ..tr };
        if let Err(e) = writeback::write_back(ctx, &tr.graph, &tr, &ex.choice) {
            out.kept_because = Some(e);
        } else {
            out.changed = true;
        }
        return Some(out);
    }
    let Some(after) = ex.cost else {
        out.kept_because = Some("the extracted terms do not form a DAG".into());
        out.forced = true;
        return Some(out);
    };
    let ops_after = count_ops(&g, &ex.choice, &roots);
    // Strictly cheaper, or as cheap with fewer ops (a merge of duplicates); else keep.
    let better = after < cost_before * (1.0 - 1e-9)
        || (after <= cost_before * (1.0 + 1e-9) && ops_after < out.ops_before);
    if !better {
        out.kept_because = Some(format!(
            "the extracted terms cost {after:.0}, the input {cost_before:.0} ({})",
            model.unit()
        ));
        out.forced = after > cost_before * (1.0 + 1e-9);
        return Some(out);
    }
    let tr = translate::Translation { graph: g, ..tr };
    match writeback::write_back(ctx, &tr.graph, &tr, &ex.choice) {
        Ok(()) => {
            out.changed = true;
            out.cost_after = after;
            out.ops_after = ops_after;
        }
        Err(e) => {
            out.kept_because = Some(format!("the terms could not be written back: {e}"));
            out.forced = true;
        }
    }
    Some(out)
}

/// The op nodes (not constants, not projections) the chosen terms of `roots` use.
fn count_ops(
    g: &lang::Graph,
    choice: &std::collections::BTreeMap<egg::Id, lang::GNode>,
    roots: &[egg::Id],
) -> usize {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack: Vec<egg::Id> = roots.iter().map(|&r| g.find(r)).collect();
    let mut n = 0;
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(node) = choice.get(&id) else {
            continue;
        };
        if matches!(node.kind, lang::Kind::Op(_)) {
            n += 1;
        }
        stack.extend(node.children.iter().map(|&c| g.find(c)));
    }
    n
}

impl Pass for EgraphOptimizePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let limits =
            Limits::from_options(&self.opts).map_err(|m| PassFailure::op_error(ctx, op, m))?;
        let registry = (self.targets)();
        let target_model;
        let model: &dyn GraphCost = if self.opts.target.is_empty() {
            &FlopsBytes
        } else {
            let t = registry
                .get(&self.opts.target)
                .map_err(|e| PassFailure::op_error(ctx, op, format!("option 'target': {e}")))?;
            t.prepare(ctx);
            target_model = TargetCost(t);
            &target_model
        };
        let Some(out) = optimize_function(ctx, op, model, limits) else {
            return Ok(());
        };
        state.add_time("saturation", out.saturation);
        state.add_time("extraction", out.extraction);
        state.add_stat("num-functions", 1);
        state.add_stat("num-enodes", out.enodes as u64);
        state.add_stat("num-eclasses", out.eclasses as u64);
        state.add_stat("num-iterations", out.iterations as u64);
        state.add_stat("num-ops-before", out.ops_before as u64);
        state.add_stat("num-ops-after", out.ops_after as u64);
        state.add_stat("cost-before", out.cost_before.round() as u64);
        state.add_stat("cost-after", out.cost_after.round() as u64);
        for (name, n) in &out.fired {
            state.add_stat(name, *n as u64);
        }
        if let Some(why) = out.kept_because {
            state.add_stat("num-kept", 1);
            if out.forced {
                state.emit(Diagnostic::new(
                    Severity::Remark,
                    ctx.op_loc(op),
                    format!("egraph-optimize kept the function: {why}"),
                ));
            }
        }
        Ok(())
    }
}

/// The generated part of `docs/egraph.md`: the pass's reference and the rules.
pub fn markdown_reference() -> String {
    let mut registry = nart_pass::PassRegistry::new();
    register(&mut registry);
    let mut out = registry.markdown_reference();
    out.push_str("#### Rules\n\n| rule | identity |\n|---|---|\n");
    for r in rules::RULES {
        out.push_str(&format!("| `{}` | {} |\n", r.name, r.identity));
    }
    out
}

#[cfg(test)]
mod tests {
    /// `docs/egraph.md` holds the reference generated from the pass's declaration and its
    /// rules between two markers; `NART_BLESS=1` rewrites it.
    #[test]
    fn docs_reference_in_sync() {
        const BEGIN: &str = "<!-- BEGIN GENERATED EGRAPH REFERENCE -->\n";
        const END: &str = "<!-- END GENERATED EGRAPH REFERENCE -->";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/egraph.md");
        let text = std::fs::read_to_string(&path).expect("docs/egraph.md exists");
        let generated = super::markdown_reference();
        let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
            panic!("docs/egraph.md lacks the generated-reference markers");
        };
        if text[b + BEGIN.len()..e] != generated {
            if std::env::var_os("NART_BLESS").is_some() {
                let new = format!("{}{BEGIN}{generated}{}", &text[..b], &text[e..]);
                std::fs::write(&path, new).expect("docs/egraph.md is writable");
            } else {
                panic!("docs/egraph.md is out of date; run with NART_BLESS=1 to regenerate");
            }
        }
    }

    /// Every rule has a statistic of its name, declared once.
    #[test]
    fn every_rule_has_a_statistic() {
        for r in super::rules::RULES {
            let n = super::STATISTICS
                .iter()
                .filter(|s| s.name == r.name)
                .count();
            assert_eq!(n, 1, "rule {}", r.name);
        }
    }
}
