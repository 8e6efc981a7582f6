//! `inline`: inlines calls (MLIR's Inliner, for single-block callees).
//!
//! A call is an op implementing `CallOpInterface` whose callee is a symbol that resolves
//! (through the enclosing symbol tables) to an op implementing `CallableOpInterface` whose body
//! is one block ending in a `ReturnLike` terminator, with as many arguments as the call passes
//! and as many returned values as the call has results, of the same types.
//! The body is cloned before the call (each cloned op gets a call-site location), the block
//! arguments mapped to the call's operands, and the call's results replaced by the returned
//! values.
//! Calls produced by inlining are inlined in turn, at most `max-iterations` levels deep, and a
//! callee is never inlined into a call that inlining that callee produced (recursion).
//! As upstream, a callee that calls itself, or calls back the function holding the call (in the
//! call graph of the input), is not inlined, nor is a callee into its own body.
//! Private callees left without any reference are erased, and the callers are canonicalized
//! (`default-pipeline=canonicalize`, the default; empty for none).

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use nart_ir::interfaces::{CallOpInterface, CallableOpInterface, Callee};
use nart_ir::registry::Trait;
use nart_ir::symbol::{is_private, lookup_from, op_symbol_uses};
use nart_ir::{Context, IrMapping, LocData, Op, Value, WalkOrder};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::GreedyConfig;

nart_pass::pass_options! {
    /// The options of `inline`.
    pub struct InlineOptions {
        /// The optimizer pipeline used for callables that do not have a dedicated optimizer pipeline (only 'canonicalize' or '' are supported)
        #[name = "default-pipeline"]
        pub default_pipeline: String = "canonicalize",
        /// Maximum depth of inlining calls produced by inlining
        #[name = "max-iterations"]
        pub max_iterations: i64 = 4,
    }
}

nart_pass::declare_pass! {
    /// The `inline` pass.
    pub struct InlinePass {
        argument: "inline",
        name: "Inliner",
        summary: "Inline function calls",
        description: "Inlines every call (`CallOpInterface`) whose callee resolves to a callable \
            (`CallableOpInterface`) with a single-block body ending in a `ReturnLike` terminator, \
            repeatedly for the calls that inlining brings in (bounded, never recursively), erases \
            private callees left unreferenced, and canonicalizes the callers.",
        options: InlineOptions,
        statistics: [
            "num-inlined" => "Number of calls inlined",
            "num-erased-callees" => "Number of private callees erased after inlining",
        ],
    }
}

fn is_call(ctx: &Context, op: Op) -> bool {
    ctx.op_interface::<dyn CallOpInterface>(op).is_some()
}

/// The callable `call` refers to, if it resolves to one.
fn resolve_callee(ctx: &Context, call: Op) -> Option<Op> {
    let call_iface = ctx.op_interface::<dyn CallOpInterface>(call)?;
    let Callee::Symbol(sym) = call_iface.callee(ctx, call)? else {
        return None;
    };
    let callee = lookup_from(ctx, call, sym)?;
    ctx.op_interface::<dyn CallableOpInterface>(callee)?;
    Some(callee)
}

/// The node of the call graph holding `op`: its closest enclosing callable, or `root`.
fn call_graph_node(ctx: &Context, root: Op, op: Op) -> Op {
    let mut cur = ctx.op_parent_op(op);
    while let Some(c) = cur {
        if c == root || ctx.op_interface::<dyn CallableOpInterface>(c).is_some() {
            return c;
        }
        cur = ctx.op_parent_op(c);
    }
    root
}

/// The callee `call` refers to, if it can be inlined there.
fn inlinable_callee(ctx: &Context, call: Op) -> Option<Op> {
    let call_iface = ctx.op_interface::<dyn CallOpInterface>(call)?;
    let callee = resolve_callee(ctx, call)?;
    let callable = ctx.op_interface::<dyn CallableOpInterface>(callee)?;
    if ctx.is_ancestor(callee, call) {
        return None;
    }
    let region = callable.callable_region(ctx, callee)?;
    let [entry] = ctx.region_blocks(region) else {
        return None;
    };
    let term = ctx.block_last_op(*entry)?;
    if !ctx.op_has_trait(term, Trait::ReturnLike) {
        return None;
    }
    let args = ctx.block_args(*entry);
    let operands = &ctx.operands(call)[call_iface.arg_operands(ctx, call)];
    let returned = ctx.operands(term);
    let results = ctx.results(call);
    let same = |a: &[Value], b: &[Value]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(&x, &y)| ctx.value_type(x) == ctx.value_type(y))
    };
    (same(args, operands) && same(returned, results)).then_some(callee)
}

/// Inlines `call` to `callee` (checked by [`inlinable_callee`]); returns the calls the cloned
/// body contains.
fn inline_call(ctx: &mut Context, call: Op, callee: Op) -> Vec<Op> {
    let (Some(call_iface), Some(callable)) = (
        ctx.op_interface::<dyn CallOpInterface>(call),
        ctx.op_interface::<dyn CallableOpInterface>(callee),
    ) else {
        return Vec::new();
    };
    let Some(region) = callable.callable_region(ctx, callee) else {
        return Vec::new();
    };
    let entry = ctx.region_blocks(region)[0];
    let arg_operands = ctx.operands(call)[call_iface.arg_operands(ctx, call)].to_vec();
    let mut map = IrMapping::default();
    for (&a, &o) in ctx
        .block_args(entry)
        .to_vec()
        .iter()
        .zip(arg_operands.iter())
    {
        map.values.insert(a, o);
    }
    let call_loc = ctx.op_loc(call);
    let body = ctx.block_ops(entry);
    let Some((&term, ops)) = body.split_last() else {
        return Vec::new();
    };
    let mut new_calls = Vec::new();
    for &op in ops {
        let c = ctx.clone_op(op, &mut map);
        ctx.insert_op_before(call, c);
        for n in ctx.collect_ops(c, WalkOrder::PreOrder) {
            let callee_loc = ctx.op_loc(n);
            let loc = ctx.loc(LocData::CallSite {
                callee: callee_loc,
                caller: call_loc,
            });
            ctx.set_op_loc(n, loc);
            if is_call(ctx, n) {
                new_calls.push(n);
            }
        }
    }
    let returned: Vec<Value> = ctx
        .operands(term)
        .iter()
        .map(|&v| map.lookup_value(v))
        .collect();
    ctx.replace_op(call, &returned);
    new_calls
}

/// What [`inline_calls`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct InlineStats {
    /// Calls inlined.
    pub inlined: usize,
    /// Private callees erased.
    pub erased_callees: usize,
    /// The ops (functions, or the root) that received inlined code, in first-touched order.
    pub callers: Vec<Op>,
}

/// Inlines every inlinable call under `root`; see the module documentation.
pub fn inline_calls(ctx: &mut Context, root: Op, max_depth: usize) -> InlineStats {
    let mut stats = InlineStats::default();
    let mut worklist: VecDeque<(Op, Vec<Op>)> = ctx
        .collect_ops(root, WalkOrder::PreOrder)
        .into_iter()
        .filter(|&o| is_call(ctx, o))
        .map(|o| (o, Vec::new()))
        .collect();
    // The call graph of the input, as upstream's inliner computes it once: which callables
    // each node (callable or root) calls.
    let mut edges: FxHashMap<Op, FxHashSet<Op>> = FxHashMap::default();
    for &(call, _) in &worklist {
        if let Some(callee) = resolve_callee(ctx, call) {
            let node = call_graph_node(ctx, root, call);
            edges.entry(node).or_default().insert(callee);
        }
    }
    let mut callees: Vec<Op> = Vec::new();
    let mut callers_seen = FxHashSet::default();
    while let Some((call, history)) = worklist.pop_front() {
        if ctx.is_erased(call) || !ctx.is_ancestor(root, call) {
            continue;
        }
        let Some(callee) = inlinable_callee(ctx, call) else {
            continue;
        };
        if history.contains(&callee) || history.len() >= max_depth {
            continue;
        }
        let caller = call_graph_node(ctx, root, call);
        // As upstream: a callee that calls itself, or calls back the caller, is not inlined.
        if edges
            .get(&callee)
            .is_some_and(|out| out.contains(&callee) || out.contains(&caller))
        {
            continue;
        }
        let new_calls = inline_call(ctx, call, callee);
        stats.inlined += 1;
        if callers_seen.insert(caller) {
            stats.callers.push(caller);
        }
        if !callees.contains(&callee) {
            callees.push(callee);
        }
        let mut h = history.clone();
        h.push(callee);
        for n in new_calls {
            worklist.push_back((n, h.clone()));
        }
    }
    // Erase private callees nothing refers to any more.
    let mut referenced: FxHashSet<Op> = FxHashSet::default();
    for op in ctx.collect_ops(root, WalkOrder::PreOrder) {
        for sym in op_symbol_uses(ctx, op) {
            if let Some(t) = lookup_from(ctx, op, sym) {
                referenced.insert(t);
            }
        }
    }
    for callee in callees {
        if !ctx.is_erased(callee) && is_private(ctx, callee) && !referenced.contains(&callee) {
            ctx.erase_op(callee);
            stats.erased_callees += 1;
        }
    }
    stats.callers.retain(|&c| !ctx.is_erased(c));
    stats
}

impl Pass for InlinePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let pipeline = self.opts.default_pipeline.as_str();
        if !matches!(pipeline, "" | "canonicalize") {
            return Err(PassFailure::op_error(
                ctx,
                op,
                format!("inline: unsupported default-pipeline '{pipeline}' (expected 'canonicalize' or '')"),
            ));
        }
        let depth = usize::try_from(self.opts.max_iterations).unwrap_or(0);
        let stats = inline_calls(ctx, op, depth);
        state.add_stat("num-inlined", stats.inlined as u64);
        state.add_stat("num-erased-callees", stats.erased_callees as u64);
        if pipeline == "canonicalize" {
            let config = GreedyConfig {
                use_top_down_traversal: true,
                ..GreedyConfig::default()
            };
            for caller in stats.callers {
                crate::canonicalize::canonicalize_op(ctx, caller, &config);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::*;

    #[test]
    fn inlines_and_canonicalizes() {
        let mut t = TestIr::new();
        let main = t.func("main", 1, 1, false);
        let add1 = t.func("add1", 1, 1, true);
        {
            let b = t.entry(add1);
            let x = t.arg(add1, 0);
            let c = t.constant(b, 1);
            let s = t.add(b, x, c);
            t.ret(b, &[s]);
        }
        let b = t.entry(main);
        let x = t.arg(main, 0);
        let r1 = t.call(b, "add1", &[x], 1);
        let r2 = t.call(b, "add1", &[r1[0]], 1);
        t.ret(b, &[r2[0]]);
        t.run_pipeline("builtin.module(inline)");
        assert_eq!(t.symbols(), ["main"]);
        assert_eq!(
            t.dump(main),
            "test.constant 1\n%0 = test.add %arg0, %c1\n%1 = test.add %0, %c1\ntest.return %1"
        );
    }

    #[test]
    fn transitive_and_recursive_calls() {
        let mut t = TestIr::new();
        let main = t.func("main", 1, 1, false);
        let f = t.func("f", 1, 1, true);
        let g = t.func("g", 1, 1, false);
        let rec = t.func("rec", 1, 1, false);
        for (func, callee) in [(f, "g"), (rec, "rec")] {
            let b = t.entry(func);
            let x = t.arg(func, 0);
            let r = t.call(b, callee, &[x], 1);
            t.ret(b, &[r[0]]);
        }
        {
            let b = t.entry(g);
            let x = t.arg(g, 0);
            let s = t.add(b, x, x);
            t.ret(b, &[s]);
        }
        let b = t.entry(main);
        let x = t.arg(main, 0);
        let r = t.call(b, "f", &[x], 1);
        let r2 = t.call(b, "rec", &[r[0]], 1);
        t.ret(b, &[r2[0]]);
        t.run_pipeline("builtin.module(inline{default-pipeline=})");
        // f inlined, then the g call it brought in; rec calls itself, so it is inlined
        // nowhere.
        assert_eq!(
            t.dump(main),
            "%0 = test.add %arg0, %arg0\n%1 = test.call @rec(%0)\ntest.return %1"
        );
        assert_eq!(t.symbols(), ["main", "g", "rec"]);
        assert_eq!(t.dump(rec), "%0 = test.call @rec(%arg0)\ntest.return %0");
    }

    #[test]
    fn skips_mismatched_and_multi_block_callees() {
        let mut t = TestIr::new();
        let main = t.func("main", 1, 0, false);
        let two = t.func("two", 1, 0, false);
        {
            let b = t.entry(two);
            let nb = t.block(two);
            t.br(b, &[nb]);
            t.ret(nb, &[]);
        }
        let b = t.entry(main);
        let x = t.arg(main, 0);
        t.call(b, "two", &[x], 0);
        t.call(b, "two", &[], 0);
        t.call(b, "missing", &[x], 0);
        t.ret(b, &[]);
        t.run_pipeline("builtin.module(inline)");
        assert_eq!(
            t.dump(main),
            "test.call @two(%arg0)\ntest.call @two()\ntest.call @missing(%arg0)\ntest.return"
        );
    }

    #[test]
    fn rejects_unknown_default_pipeline() {
        let mut t = TestIr::new();
        t.ret_all_empty();
        let err = t
            .try_pipeline("builtin.module(inline{default-pipeline=cse})")
            .unwrap_err();
        assert!(err.diagnostics()[0]
            .message
            .contains("unsupported default-pipeline 'cse'"));
    }
}
