//! Creating structured ops through a [`PatternRewriter`], for lowerings: each op gets its body
//! region, built by its body function (named ops) or by the caller (`linalg.generic`), and
//! every change is journaled, so a dialect conversion can roll it back.

use nart_ir::{
    AffineMap, Attr, AttrData, Location, Op, OperationState, PatternRewriter, Type, Value,
};

use crate::attrs::{iterator_type_attr, IteratorType};
use crate::structured::is_tensor;
use nart_dialect_tensor::syntax::segment_sizes;

fn result_types(rw: &PatternRewriter<'_>, inits: &[Value]) -> Vec<Type> {
    inits
        .iter()
        .map(|&v| rw.value_type(v))
        .filter(|&t| is_tensor(rw, t))
        .collect()
}

fn element_types(rw: &PatternRewriter<'_>, values: &[Value]) -> Vec<Type> {
    values
        .iter()
        .map(|&v| rw.element_type(rw.value_type(v)))
        .collect()
}

/// Creates named op `name` (`linalg.matmul`, `linalg.fill`, ...) at the insertion point, with
/// `props` (besides `operandSegmentSizes`, which this sets when the op has it) and the body
/// its kind implies. Results: one per tensor init.
pub fn create_named(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    inputs: &[Value],
    inits: &[Value],
    props: &[(&str, Attr)],
    loc: Location,
) -> Op {
    let ip = rw.insertion_point();
    let mut operands = inputs.to_vec();
    operands.extend_from_slice(inits);
    let elems = element_types(rw, &operands);
    let region = rw.create_region();
    let block = rw.create_block(region, None, &elems, loc);
    if let Some(body) = crate::ops::body_fn(name) {
        body(rw, block, loc);
    }
    rw.set_insertion_point(ip);
    let results = result_types(rw, inits);
    let mut st = OperationState::new(rw.uniq(), name, loc)
        .operands(&operands)
        .results(&results)
        .regions(&[region]);
    for &(n, a) in props {
        st = st.prop(rw.uniq(), n, a);
    }
    let memo = {
        let ctx: &nart_ir::Context = rw;
        crate::named::memoized_maps(ctx, name, |n| {
            props.iter().find(|(k, _)| *k == n).map(|(_, a)| *a)
        })
    };
    if let Some(maps) = memo {
        let items: Vec<Attr> = maps
            .into_iter()
            .map(|m| rw.uniq().intern_attr(AttrData::AffineMap(m)))
            .collect();
        let a = rw.uniq().array_attr(items);
        st = st.attr(rw.uniq(), crate::named::MEMOIZED_MAPS, a);
    }
    let segmented = rw
        .lookup_ident(name)
        .and_then(|id| rw.op_def_by_name(id))
        .is_some_and(|d| d.has_trait(nart_ir::Trait::AttrSizedOperandSegments));
    if segmented {
        let seg = segment_sizes(rw.uniq(), &[inputs.len(), inits.len()]);
        st = st.prop(rw.uniq(), "operandSegmentSizes", seg);
    }
    if name == "linalg.matmul" || name == "linalg.batch_matmul" {
        let maps = if name == "linalg.matmul" {
            crate::named::default_matmul_maps()
        } else {
            crate::named::default_batch_matmul_maps()
        };
        let items: Vec<Attr> = maps
            .into_iter()
            .map(|m| rw.uniq().intern_attr(AttrData::AffineMap(m)))
            .collect();
        let a = rw.uniq().array_attr(items);
        if !props.iter().any(|(n, _)| *n == "indexing_maps") {
            st = st.prop(rw.uniq(), "indexing_maps", a);
        }
    }
    rw.create(st)
}

/// Creates a `linalg.generic` at the insertion point; `body` receives the block arguments
/// (one element per operand, inputs then inits) with the insertion point in the block, and
/// returns the values to yield.
pub fn create_generic(
    rw: &mut PatternRewriter<'_>,
    inputs: &[Value],
    inits: &[Value],
    maps: Vec<AffineMap>,
    iters: &[IteratorType],
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, &[Value]) -> Vec<Value>,
) -> Op {
    let ip = rw.insertion_point();
    let mut operands = inputs.to_vec();
    operands.extend_from_slice(inits);
    let elems = element_types(rw, &operands);
    let region = rw.create_region();
    let block = rw.create_block(region, None, &elems, loc);
    let args = rw.block_args(block).to_vec();
    let yielded = body(rw, &args);
    crate::named::yield_values(rw, &yielded, loc);
    rw.set_insertion_point(ip);
    let results = result_types(rw, inits);
    let map_attrs: Vec<Attr> = maps
        .into_iter()
        .map(|m| rw.uniq().intern_attr(AttrData::AffineMap(m)))
        .collect();
    let maps = rw.uniq().array_attr(map_attrs);
    let iter_attrs: Vec<Attr> = iters
        .iter()
        .map(|&k| iterator_type_attr(rw.uniq(), k))
        .collect();
    let iters = rw.uniq().array_attr(iter_attrs);
    let seg = segment_sizes(rw.uniq(), &[inputs.len(), inits.len()]);
    let st = OperationState::new(rw.uniq(), "linalg.generic", loc)
        .operands(&operands)
        .results(&results)
        .prop(rw.uniq(), "indexing_maps", maps)
        .prop(rw.uniq(), "iterator_types", iters)
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .regions(&[region]);
    rw.create(st)
}
