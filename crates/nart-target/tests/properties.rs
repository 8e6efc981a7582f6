//! Property tests of the partitioner over random DAGs, from fixed seeds.
//!
//! On abstract coloured DAGs, [`form_segments`] must give single-coloured, connected segments
//! whose contraction is acyclic (checked with petgraph, an independent implementation), numbered
//! in topological order, and maximal: merging any two adjacent segments of one colour would
//! make a cycle.
//!
//! On random graph functions (elementwise ops over two arguments and shared constants) with
//! random fake targets and random overrides: every refusal of every target is listed, every op
//! is placed exactly once (on its override's target if one matches, else on the first target
//! that runs it), the outlined function verifies and its segments form an acyclic graph, and,
//! run segment by segment through the targets' compilers and runtimes, it computes exactly what
//! the interpreter computes on the original function.

mod common;

use std::collections::{HashMap, HashSet};

use common::run_partitioned;

use nart_interp::Interpreter;
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Op};
use nart_target::compile::target_of;
use nart_target::partition::segments::{form_segments, Dag};
use nart_target::partition::{partition_function, Reason};
use nart_target::testing::FakeTarget;
use nart_target::{Override, Setup, Support, Target, TargetRegistry};
use nart_tensor::Tensor;
use petgraph::graph::DiGraph;

fn random_dag(rng: &mut fastrand::Rng, n: usize, density: f64) -> Dag {
    let preds = (0..n)
        .map(|v| (0..v).filter(|_| rng.f64() < density).collect())
        .collect();
    Dag { preds }
}

/// The graph of segments: an edge for every node edge between two segments.
fn contracted(dag: &Dag, seg: &[usize]) -> DiGraph<(), ()> {
    let n = seg.iter().map(|&s| s + 1).max().unwrap_or(0);
    let mut g = DiGraph::new();
    let nodes: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
    for (v, ps) in dag.preds.iter().enumerate() {
        for &p in ps {
            if seg[p] != seg[v] {
                g.update_edge(nodes[seg[p]], nodes[seg[v]], ());
            }
        }
    }
    g
}

fn connected(dag: &Dag, members: &[usize]) -> bool {
    let set: HashSet<usize> = members.iter().copied().collect();
    let mut seen = HashSet::from([members[0]]);
    let mut stack = vec![members[0]];
    while let Some(v) = stack.pop() {
        let neighbours = dag.preds[v]
            .iter()
            .copied()
            .chain((0..dag.len()).filter(|&w| dag.preds[w].contains(&v)));
        for w in neighbours {
            if set.contains(&w) && seen.insert(w) {
                stack.push(w);
            }
        }
    }
    seen.len() == set.len()
}

#[test]
fn segments_of_random_dags() {
    let mut rng = fastrand::Rng::with_seed(0x5e61_0001);
    let mut checked_merges = 0;
    for case in 0..400 {
        let n = rng.usize(1..=30);
        let dag = random_dag(&mut rng, n, [0.05, 0.15, 0.4][case % 3]);
        let colours = rng.usize(1..=4);
        let colour: Vec<usize> = (0..n).map(|_| rng.usize(0..colours)).collect();
        let seg = form_segments(&dag, &colour);
        let n_seg = seg.iter().map(|&s| s + 1).max().unwrap_or(0);
        let mut members = vec![Vec::new(); n_seg];
        for (v, &s) in seg.iter().enumerate() {
            members[s].push(v);
        }
        for m in &members {
            assert!(!m.is_empty(), "case {case}: segment numbers are dense");
            assert!(
                m.iter().all(|&v| colour[v] == colour[m[0]]),
                "case {case}: one colour"
            );
            assert!(
                connected(&dag, m),
                "case {case}: segment {m:?} is connected"
            );
        }
        assert!(
            !petgraph::algo::is_cyclic_directed(&contracted(&dag, &seg)),
            "case {case}: the contracted graph is acyclic"
        );
        for (v, ps) in dag.preds.iter().enumerate() {
            for &p in ps {
                assert!(
                    seg[p] <= seg[v],
                    "case {case}: segments are in topological order"
                );
                if seg[p] != seg[v] && colour[p] == colour[v] {
                    // Maximal: merging the two would make a cycle.
                    let (a, b) = (seg[p], seg[v]);
                    let merged: Vec<usize> =
                        seg.iter().map(|&s| if s == b { a } else { s }).collect();
                    assert!(
                        petgraph::algo::is_cyclic_directed(&contracted(&dag, &merged)),
                        "case {case}: segments {a} and {b} could merge"
                    );
                    checked_merges += 1;
                }
            }
        }
    }
    assert!(
        checked_merges > 50,
        "the cases exercise refused merges ({checked_merges})"
    );
}

const KINDS: [(&str, usize); 6] = [
    ("Relu", 1),
    ("Sigmoid", 1),
    ("Neg", 1),
    ("Add", 2),
    ("Mul", 2),
    ("Sub", 2),
];

/// A random graph function: `n` elementwise ops named `n0`, `n1`, ... over two arguments and
/// two constants, returning every value nothing uses.
fn random_function(rng: &mut fastrand::Rng, n: usize) -> String {
    let ty = "tensor<4xf32>";
    let mut body = String::new();
    body.push_str(&format!(
        "  %c0 = \"graph.constant\"() <{{value = dense<[1.0, -2.0, 0.5, 3.0]> : {ty}}}> : () -> {ty}\n"
    ));
    body.push_str(&format!(
        "  %c1 = \"graph.constant\"() <{{value = dense<0.25> : {ty}}}> : () -> {ty}\n"
    ));
    let mut values: Vec<String> = vec!["%x".into(), "%y".into()];
    let mut used: HashSet<String> = HashSet::new();
    for i in 0..n {
        let (kind, arity) = KINDS[rng.usize(0..KINDS.len())];
        let mut args = Vec::new();
        for _ in 0..arity {
            let a = if rng.f64() < 0.15 {
                format!("%c{}", rng.usize(0..2))
            } else {
                // Prefer recent values, so that graphs are deep as well as wide.
                let k = values.len();
                let lo = k.saturating_sub(4);
                values[if rng.bool() {
                    rng.usize(lo..k)
                } else {
                    rng.usize(0..k)
                }]
                .clone()
            };
            used.insert(a.clone());
            args.push(a);
        }
        let types = vec![ty; arity].join(", ");
        body.push_str(&format!(
            "  %v{i} = \"graph.{kind}\"({}) : ({types}) -> {ty} loc(\"n{i}\")\n",
            args.join(", ")
        ));
        values.push(format!("%v{i}"));
    }
    let mut results: Vec<String> = values[2..]
        .iter()
        .filter(|v| !used.contains(*v))
        .cloned()
        .collect();
    if results.is_empty() {
        results.push("%x".into());
    }
    format!(
        "func.func @main(%x: {ty}, %y: {ty}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        vec![ty; results.len()].join(", "),
        results.join(", "),
        vec![ty; results.len()].join(", ")
    )
}

fn parse(text: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_target::register(&mut ctx);
    nart_interp::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "random.mlir", text)
        .unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    let block = ctx.region_blocks(ctx.region(m, 0))[0];
    let func = ctx.block_ops(block)[0];
    (ctx, func)
}

#[test]
fn partitions_of_random_graph_functions() {
    let mut rng = fastrand::Rng::with_seed(0x5e61_0002);
    let (mut n_segments, mut n_overridden, mut n_fallbacks) = (0, 0, 0);
    let (mut n_casts, mut n_run) = (0, 0);
    for case in 0..120 {
        let n = rng.usize(1..=24);
        let text = random_function(&mut rng, n);
        // Two fake chips running random subsets of the kinds, in random preference order.
        let mut registry = TargetRegistry::builtin();
        let mut chips = Vec::new();
        // Sometimes chip b is the int8 one (Relu and Add of the kinds): its boundaries get
        // casts, which the interpreter cannot run, so such cases check structure only.
        let int8 = rng.f64() < 0.3;
        for name in ["a", "b"] {
            if name == "b" && int8 {
                registry.register(Box::new(FakeTarget::int8(name)));
            } else {
                let ops: Vec<&str> = KINDS.iter().map(|k| k.0).filter(|_| rng.bool()).collect();
                registry.register(Box::new(FakeTarget::float(name, &ops)));
            }
            chips.push(name.to_string());
        }
        if rng.bool() {
            chips.reverse();
        }
        let mut prefs = chips.clone();
        if rng.bool() {
            prefs.truncate(1);
        }
        // Overrides by name to a target that runs the op; by type to interp.
        let (mut ctx, func) = parse(&text);
        let block = ctx.region_blocks(ctx.region(func, 0))[0];
        let compute: Vec<Op> = ctx
            .block_ops(block)
            .into_iter()
            .filter(|&o| {
                ctx.op_name_str(o).starts_with("graph.") && ctx.op_name_str(o) != "graph.constant"
            })
            .collect();
        let mut overrides = Vec::new();
        for (i, &op) in compute.iter().enumerate() {
            if rng.f64() < 0.1 {
                let runs: Vec<&dyn Target> = registry
                    .targets()
                    .filter(|t| t.supports(&ctx, op).is_supported())
                    .collect();
                let t = runs[rng.usize(0..runs.len())];
                overrides.push(Override::parse(&format!("n{i}={}", t.name())).unwrap());
            }
        }
        if rng.f64() < 0.2 {
            overrides.push(Override::parse("graph.Sigmoid=interp").unwrap());
        }
        let inputs = [
            Tensor::from_vec(vec![4], vec![0.5f32, -1.5, 2.0, -0.25]).unwrap(),
            Tensor::from_vec(vec![4], vec![-3.0f32, 0.75, 1.0, 4.0]).unwrap(),
        ];
        let want = Interpreter::new(&ctx, func)
            .unwrap()
            .run(inputs.to_vec())
            .unwrap();

        let setup = Setup::resolve(&registry, &prefs, &overrides).unwrap();
        let out = partition_function(&mut ctx, func, &setup)
            .unwrap_or_else(|d| panic!("case {case}: {}\n{text}", d[0].message));
        let plan = &out.plan;
        let module = ctx.op_parent_op(func).unwrap();
        nart_ir::verify::verify(&ctx, module).unwrap_or_else(|d| {
            panic!(
                "case {case}: {}\n{}",
                d[0].message,
                print_op(&ctx, module, &PrintOptions::default())
            )
        });

        // Every refusal of every target is listed.
        let all = setup.all_targets();
        assert_eq!(plan.refusals.len(), all.len());
        for (t, listed) in all.iter().zip(&plan.refusals) {
            assert_eq!(listed.target, t.name());
            for (i, &op) in compute.iter().enumerate() {
                let refused = listed.ops.iter().find(|r| r.op == op);
                match t.supports(&ctx, op) {
                    Support::Supported => assert!(refused.is_none(), "case {case}"),
                    Support::Refused(r) => {
                        assert_eq!(refused.map(|x| &x.refusal), Some(&r), "case {case} op {i}")
                    }
                }
            }
        }
        // Every op is placed exactly once, where its override or the preference order says.
        assert_eq!(plan.ops.len(), compute.len());
        let mut placed: HashMap<Op, usize> = HashMap::new();
        for &seg in &out.segment_ops {
            let target = target_of(&ctx, seg).unwrap().to_string();
            let body = ctx.region_blocks(ctx.region(seg, 0))[0];
            for op in ctx.block_ops(body) {
                if let Some(i) = compute.iter().position(|&c| c == op) {
                    *placed.entry(op).or_default() += 1;
                    assert_eq!(plan.ops[i].target, target, "case {case}");
                }
            }
        }
        assert_eq!(
            placed.len(),
            compute.len(),
            "case {case}: every op is in a segment"
        );
        assert!(placed.values().all(|&k| k == 1), "case {case}: once");
        for (i, p) in plan.ops.iter().enumerate() {
            let name = format!("n{i}");
            let op_type = ctx.op_name_str(compute[i]).to_string();
            let over = overrides
                .iter()
                .rev()
                .find(|o| o.matches(Some(&name), &op_type));
            match over {
                Some(o) => {
                    assert_eq!(p.target, o.target, "case {case}: override wins");
                    n_overridden += 1;
                }
                None => {
                    let first = setup
                        .preferred
                        .iter()
                        .find(|t| t.supports(&ctx, compute[i]).is_supported())
                        .unwrap();
                    assert_eq!(p.target, first.name(), "case {case}: first that runs it");
                    assert!(!matches!(p.reason, Reason::Cost { .. }));
                    if matches!(p.reason, Reason::FellBack(_)) {
                        n_fallbacks += 1;
                    }
                }
            }
        }
        // The segments, contracted, form an acyclic graph (the verifier's dominance check says
        // as much for the outlined function; petgraph checks the plan independently).
        let seg_of: HashMap<Op, usize> = plan.ops.iter().map(|p| (p.op, p.segment)).collect();
        let mut g = DiGraph::<(), ()>::new();
        let nodes: Vec<_> = plan.segments.iter().map(|_| g.add_node(())).collect();
        for &seg in &out.segment_ops {
            let to = out.segment_ops.iter().position(|&s| s == seg).unwrap();
            for &v in ctx.operands(seg) {
                if let Some(from) = ctx
                    .defining_op(v)
                    .and_then(|d| out.segment_ops.iter().position(|&s| s == d))
                {
                    g.update_edge(nodes[from], nodes[to], ());
                }
            }
        }
        assert!(!petgraph::algo::is_cyclic_directed(&g), "case {case}");
        assert_eq!(seg_of.len(), compute.len());
        n_segments += out.segment_ops.len();

        if int8 {
            n_casts += out.casts;
            continue;
        }
        // Run through compilers and runtimes: the same numbers as the interpreter.
        let got = run_partitioned(&mut ctx, func, &registry, &inputs);
        assert_eq!(got, want, "case {case}:\n{text}");
        n_run += 1;
    }
    eprintln!(
        "{n_segments} segments, {n_overridden} ops overridden, {n_fallbacks} fallbacks, \
         {n_casts} casts in int8 cases, {n_run} cases run through the runtimes"
    );
    assert!(n_casts > 50, "{n_casts}");
    assert!(n_run > 60, "{n_run}");
    assert!(n_segments > 300, "{n_segments}");
    assert!(n_overridden > 20, "{n_overridden}");
    assert!(n_fallbacks > 100, "{n_fallbacks}");
}
