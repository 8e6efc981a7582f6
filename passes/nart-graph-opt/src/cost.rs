//! `graph-cost`: reports the cost of the graph ops nested in the op it runs on, from each op's
//! `OpCostInterface` (the graph dialect's default model: FLOPs and bytes moved, from shapes), as
//! pass statistics. It changes nothing; `--mlir-pass-statistics` shows the figures, so a
//! pipeline can measure before and after (`graph-cost,graph-optimize,graph-cost`).

use nart_ir::interfaces::OpCostInterface;
use nart_ir::{Context, Op};
use nart_pass::{Pass, PassFailure, PassState};

nart_pass::declare_pass! {
    /// The `graph-cost` pass.
    pub struct CostReportPass {
        argument: "graph-cost",
        name: "GraphCost",
        summary: "Report the graph's op count, FLOPs and bytes moved as statistics",
        description: "Sums the `OpCostInterface` estimate of every graph op (constants and \
            `graph.none` excluded) and reports the totals as pass statistics; ops whose cost \
            is unknown are counted apart. The IR is not changed.",
        options: nart_pass::NoOptions,
        statistics: [
            "num-ops" => "Number of graph ops (constants excluded)",
            "flops" => "Arithmetic operations, summed over the ops with a known cost",
            "bytes" => "Bytes read and written, summed over the ops with a known cost",
            "num-unknown" => "Number of ops whose cost is unknown",
        ],
    }
}

/// The totals [`CostReportPass`] reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GraphCost {
    /// Graph ops, constants and `graph.none` excluded.
    pub ops: u64,
    /// FLOPs of the ops with a known cost.
    pub flops: f64,
    /// Bytes moved by the ops with a known cost.
    pub bytes: f64,
    /// Ops without a known cost.
    pub unknown: u64,
}

/// The cost of the graph ops nested in `root`.
pub fn graph_cost(ctx: &Context, root: Op) -> GraphCost {
    let mut total = GraphCost::default();
    for op in ctx.nested_ops(root) {
        let name = ctx.op_name_str(op);
        if !name.starts_with("graph.") || name == "graph.constant" || name == "graph.none" {
            continue;
        }
        if name == "graph.yield" {
            continue;
        }
        total.ops += 1;
        match ctx
            .op_interface::<dyn OpCostInterface>(op)
            .and_then(|c| c.cost(ctx, op))
        {
            Some(c) => {
                total.flops += c.flops;
                total.bytes += c.bytes;
            }
            None => total.unknown += 1,
        }
    }
    total
}

impl Pass for CostReportPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let c = graph_cost(ctx, op);
        state.add_stat("num-ops", c.ops);
        state.add_stat("flops", c.flops.round() as u64);
        state.add_stat("bytes", c.bytes.round() as u64);
        state.add_stat("num-unknown", c.unknown);
        Ok(())
    }
}
