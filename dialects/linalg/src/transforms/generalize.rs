//! `linalg-generalize-named-ops`: every named structured op becomes the `linalg.generic` with
//! its indexing maps, iterator types and body (upstream's pass of the same name).

use nart_ir::{Attr, AttrData, Context, Op, OperationState, PatternRewriter, RewritePattern};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};

use crate::attrs::iterator_type_attr;
use crate::structured::structured;
use nart_dialect_tensor::syntax::segment_sizes;

/// Rewrites one named structured op into `linalg.generic`: the operands, results and body
/// move over, and the maps and iterator types the op implies become properties.
pub struct GeneralizeNamedOp;

impl RewritePattern for GeneralizeNamedOp {
    fn name(&self) -> &'static str {
        "GeneralizeNamedOp"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        if rw.op_name_str(op) == "linalg.generic" {
            return false;
        }
        let Some(s) = structured(rw, op) else {
            return false;
        };
        let (Ok(maps), Ok(iters)) = (s.indexing_maps(rw, op), s.iterator_types(rw, op)) else {
            return false;
        };
        let Some(&body) = rw.regions(op).first() else {
            return false;
        };
        let n_in = s.num_inputs(rw, op);
        let operands = rw.operands(op).to_vec();
        let results: Vec<_> = rw.results(op).iter().map(|&r| rw.value_type(r)).collect();
        let loc = rw.op_loc(op);
        let map_attrs: Vec<Attr> = maps
            .into_iter()
            .map(|m| rw.uniq().intern_attr(AttrData::AffineMap(m)))
            .collect();
        let maps = rw.uniq().array_attr(map_attrs);
        let iter_attrs: Vec<Attr> = iters
            .into_iter()
            .map(|k| iterator_type_attr(rw.uniq(), k))
            .collect();
        let iters = rw.uniq().array_attr(iter_attrs);
        let seg = segment_sizes(rw.uniq(), &[n_in, operands.len() - n_in]);
        let region = rw.create_region();
        let memo = rw.lookup_ident(crate::named::MEMOIZED_MAPS);
        let discardable: Vec<_> = rw
            .attrs(op)
            .iter()
            .copied()
            .filter(|a| Some(a.name) != memo)
            .collect();
        let mut st = OperationState::new(rw.uniq(), "linalg.generic", loc)
            .operands(&operands)
            .results(&results)
            .prop(rw.uniq(), "indexing_maps", maps)
            .prop(rw.uniq(), "iterator_types", iters)
            .prop(rw.uniq(), "operandSegmentSizes", seg)
            .regions(&[region]);
        st.attrs.extend(discardable);
        rw.set_insertion_point_before(op);
        let new = rw.create(st);
        rw.inline_region_before(body, region, None);
        let results = rw.results(new).to_vec();
        rw.replace_op(op, &results);
        true
    }
}

nart_pass::declare_pass! {
    /// The `linalg-generalize-named-ops` pass.
    pub struct GeneralizeNamedOpsPass {
        argument: "linalg-generalize-named-ops",
        name: "LinalgGeneralizeNamedOpsPass",
        summary: "Convert named ops into generic ops",
        description: "Rewrites every named structured op (`linalg.matmul`, \
            `linalg.conv_2d_nchw_fchw`, `linalg.transpose`, `linalg.reduce`, ...) into the \
            `linalg.generic` it stands for: the same operands and results, the indexing maps \
            and iterator types the named op implies, and its body. Later passes then handle \
            one op.",
        statistics: [
            "GeneralizeNamedOp" => "Number of named ops generalized",
        ],
    }
}

impl Pass for GeneralizeNamedOpsPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let set = FrozenPatternSet::new(Vec::new(), vec![Box::new(GeneralizeNamedOp)]);
        let config = GreedyConfig {
            max_iterations: 10,
            max_num_rewrites: None,
            region_simplification: RegionSimplification::Disabled,
            use_top_down_traversal: true,
            fold: false,
        };
        let res = apply_patterns_greedily(ctx, op, &set, &config);
        let n = res
            .pattern_applications
            .get("GeneralizeNamedOp")
            .copied()
            .unwrap_or(0);
        state.add_stat("GeneralizeNamedOp", n as u64);
        Ok(())
    }
}
