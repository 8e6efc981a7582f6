//! `graph-fold-pad`: a constant-mode `Pad` of the spatial dimensions folded into the `pads` of
//! the `Conv`, `AveragePool` or `MaxPool` it feeds.
//!
//! - `Conv(Pad(x, p, 0))` → `Conv(x)` with `pads += p`: the convolution pads with zeros too.
//! - `AveragePool(Pad(x, p, 0))` → `AveragePool(x)` with `pads += p` when the pool counts its
//!   padding (`count_include_pad=1`), or has no padding of its own (it is then set to count it,
//!   which counts exactly the zeros the Pad added).
//! - `MaxPool(Pad(x, p, -inf))` → `MaxPool(x)` with `pads += p`: max pooling never picks a
//!   padded element, nor a `-inf` one over a real one. Only with `-inf` as the pad value.
//!
//! The Pad must be in `constant` mode with constant, non-negative pads that leave the batch and
//! channel dimensions alone, the consumer must use explicit pads (`auto_pad=NOTSET`), and the
//! Pad must have no other user.

use nart_ir::{Context, Op, PatternRewriter, RewritePattern};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};

use crate::util;

nart_pass::declare_pass! {
    /// The `graph-fold-pad` pass.
    pub struct FoldPadPass {
        argument: "graph-fold-pad",
        name: "GraphFoldPad",
        summary: "Fold a constant Pad of the spatial dimensions into a following Conv or pool",
        description: "Adds the Pad's spatial pads to the `pads` of the Conv (zero padding), \
            AveragePool (zero padding, counted by the pool) or MaxPool (`-inf` padding only) \
            that consumes it, and removes the Pad.",
        options: nart_pass::NoOptions,
        statistics: [
            "num-folded" => "Number of Pad ops folded",
        ],
    }
}

impl Pass for FoldPadPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let config = GreedyConfig {
            region_simplification: RegionSimplification::Disabled,
            fold: false,
            ..GreedyConfig::default()
        };
        let set = FrozenPatternSet::new(
            [
                &FOLD_PAD_CONV as &'static dyn RewritePattern,
                &FOLD_PAD_AVG,
                &FOLD_PAD_MAX,
            ],
            Vec::new(),
        );
        let res = apply_patterns_greedily(ctx, op, &set, &config);
        state.add_stat("num-folded", res.num_pattern_applications() as u64);
        // One statistic per consumer kind that took a Pad (`FoldPadConv`, ...).
        for (name, n) in &res.pattern_applications {
            state.add_stat(name, *n as u64);
        }
        Ok(())
    }
}

/// Which consumer a [`FoldPad`] pattern is rooted on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Consumer {
    Conv,
    AveragePool,
    MaxPool,
}

/// `consumer(Pad(x)) → consumer(x)` with the pads added.
pub struct FoldPad {
    name: &'static str,
    root: &'static str,
    consumer: Consumer,
}

/// `Conv(Pad(x, p, 0)) → Conv(x){pads += p}`.
pub static FOLD_PAD_CONV: FoldPad = FoldPad {
    name: "FoldPadConv",
    root: "graph.Conv",
    consumer: Consumer::Conv,
};
/// `AveragePool(Pad(x, p, 0)) → AveragePool(x){pads += p, count_include_pad = 1}`.
pub static FOLD_PAD_AVG: FoldPad = FoldPad {
    name: "FoldPadAveragePool",
    root: "graph.AveragePool",
    consumer: Consumer::AveragePool,
};
/// `MaxPool(Pad(x, p, -inf)) → MaxPool(x){pads += p}`.
pub static FOLD_PAD_MAX: FoldPad = FoldPad {
    name: "FoldPadMaxPool",
    root: "graph.MaxPool",
    consumer: Consumer::MaxPool,
};

impl RewritePattern for FoldPad {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        match self.try_fold(rw, op) {
            Ok(()) => true,
            Err(why) => rw.match_failure(why),
        }
    }
}

impl FoldPad {
    fn try_fold(&self, rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
        let padded = rw.operand(op, 0);
        let pad = util::def_of(rw, padded, "Pad").ok_or("the input is not a Pad")?;
        if rw.uses(padded).len() != 1 {
            return Err("the Pad has other users");
        }
        if util::attr_str(rw, pad, "mode", "constant") != "constant" {
            return Err("the Pad is not in constant mode");
        }
        if util::attr_str(rw, op, "auto_pad", "NOTSET") != "NOTSET" {
            return Err("the consumer pads automatically");
        }
        if self.consumer == Consumer::MaxPool && rw.results(op)[1..].iter().any(|&r| rw.has_uses(r))
        {
            return Err("the MaxPool's indices are used");
        }
        let x = rw.operand(pad, 0);
        let rank = rw
            .shape_of(rw.value_type(x))
            .ok_or("the input is unranked")?
            .len();
        if rank < 3 {
            return Err("the input has no spatial dimensions");
        }
        // The pad value: 0 when absent.
        let value = match util::opt_operand(rw, pad, 2) {
            Some(v) => {
                let t = util::const_tensor(rw, v).ok_or("the pad value is not a constant")?;
                let v = t.to_f64_vec().map_err(|_| "the pad value cannot be read")?;
                *v.first().ok_or("the pad value is empty")?
            }
            None => 0.0,
        };
        let ok_value = match self.consumer {
            Consumer::Conv | Consumer::AveragePool => value == 0.0,
            Consumer::MaxPool => value == f64::NEG_INFINITY,
        };
        if !ok_value {
            return Err("the pad value does not match the consumer's padding");
        }
        let pads = util::opt_operand(rw, pad, 1)
            .and_then(|p| util::const_ints(rw, p))
            .ok_or("the pads are not constant")?;
        let axes: Vec<usize> = match util::opt_operand(rw, pad, 3) {
            Some(a) => util::const_ints(rw, a)
                .ok_or("the axes are not constant")?
                .into_iter()
                .map(|a| if a < 0 { a + rank as i64 } else { a })
                .map(|a| usize::try_from(a).map_err(|_| "an axis is out of range"))
                .collect::<Result<_, _>>()?,
            None => (0..rank).collect(),
        };
        if pads.len() != 2 * axes.len() || axes.iter().any(|&a| a >= rank) {
            return Err("the pads do not match the axes");
        }
        // Full begin/end pads per dimension.
        let mut begin = vec![0i64; rank];
        let mut end = vec![0i64; rank];
        for (i, &a) in axes.iter().enumerate() {
            begin[a] += pads[i];
            end[a] += pads[axes.len() + i];
        }
        if begin.iter().chain(&end).any(|&p| p < 0) {
            return Err("a pad is negative (a crop)");
        }
        if begin[..2].iter().chain(&end[..2]).any(|&p| p != 0) {
            return Err("the Pad pads the batch or channel dimension");
        }
        let spatial = rank - 2;
        let old = util::attr_ints(rw, op, "pads").unwrap_or_else(|| vec![0; 2 * spatial]);
        if old.len() != 2 * spatial {
            return Err("the consumer's pads do not match its rank");
        }
        let mut new = old.clone();
        for d in 0..spatial {
            new[d] += begin[d + 2];
            new[spatial + d] += end[d + 2];
        }
        if self.consumer == Consumer::AveragePool
            && util::attr_int(rw, op, "count_include_pad", 0) == 0
        {
            if old.iter().any(|&p| p != 0) {
                return Err("the AveragePool pads without counting the padding");
            }
            let i64t = rw.uniq().int_type(64);
            let one = rw.uniq().int_attr(i64t, 1);
            rw.set_prop(op, "count_include_pad", one);
        }
        let attr = util::i64_array(rw.uniq(), &new);
        rw.set_prop(op, "pads", attr);
        rw.set_operand(op, 0, x);
        rw.erase_op(pad);
        Ok(())
    }
}
