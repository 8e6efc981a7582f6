//! From a function's body to an e-graph.
//!
//! The body must be one block. Every op that is `Pure`, has an [`OpCostInterface`], no regions
//! or successors, no discardable attributes, and only static tensor (or `none`) operands and
//! results of integer or float elements (static, or with dynamic dims such as a batch) becomes an e-node; a `ConstantLike` op becomes a
//! constant leaf. Every other op is *opaque*: it stays in the IR as it is, its results are
//! leaves, and its operands are roots of the extraction (as are the terminator's). So ops with
//! regions, ops with effects and ops on quantized types (`!quant.uniform` elements) are never
//! rewritten, and no rule can see through them.

use std::sync::Arc;

use egg::Id;
use indexmap::IndexSet;
use nart_ir::interfaces::{ConstantOpInterface, OpCostInterface};
use nart_ir::{Block, Context, Location, Op, Trait, Type, TypeData, Value};
use rustc_hash::FxHashMap;

use crate::lang::{ClassData, GNode, Graph, GraphAnalysis, Kind, Tables, Ty};

/// Constants of at most this many elements are decoded, so rules can compute with them.
pub const SMALL_CONST: i64 = 1 << 16;

/// A function translated into an e-graph.
pub struct Translation {
    /// The e-graph.
    pub graph: Graph,
    /// The function's block.
    pub block: Block,
    /// The e-class of each value the e-graph models.
    pub class_of: FxHashMap<Value, Id>,
    /// The ops that became e-nodes (in block order).
    pub modelled: Vec<Op>,
    /// A location for each e-class that came from an op.
    pub locs: FxHashMap<Id, Location>,
    /// The op name of each constant that came from the IR (index in the constant table).
    pub const_ops: FxHashMap<u32, nart_ir::Ident>,
}

/// The single type of a value as the e-graph models it, or `None` when it cannot.
pub fn model_ty(ctx: &Context, ty: Type) -> Option<Ty> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor {
            shape,
            elem,
            encoding: None,
        } => {
            let scalar = matches!(
                ctx.type_data(*elem),
                TypeData::Integer { .. } | TypeData::Float(_) | TypeData::Index
            );
            let dims_ok = shape.iter().all(|&d| d >= 0 || d == nart_ir::DYNAMIC);
            (scalar && dims_ok).then(|| Ty::tensor(*elem, shape.clone()))
        }
        TypeData::None => Some(Ty {
            elem: ty,
            dims: None,
        }),
        _ => None,
    }
}

/// Whether `op` becomes an e-node (see the module documentation).
fn modelled(ctx: &Context, op: Op) -> bool {
    ctx.op_has_trait(op, Trait::Pure)
        && ctx.regions(op).is_empty()
        && ctx.successors(op).is_empty()
        && ctx.attrs(op).is_empty()
        && !ctx.results(op).is_empty()
        && (ctx.op_has_trait(op, Trait::ConstantLike)
            || ctx.op_interface::<dyn OpCostInterface>(op).is_some())
        && ctx
            .operands(op)
            .iter()
            .chain(ctx.results(op))
            .all(|&v| model_ty(ctx, ctx.value_type(v)).is_some())
}

/// The function's body block, when the pass can work on it.
pub fn body_block(ctx: &Context, func: Op) -> Option<Block> {
    let [region] = ctx.regions(func) else {
        return None;
    };
    match ctx.region_blocks(*region) {
        [block] => Some(*block),
        _ => None,
    }
}

fn new_tables(ctx: &mut Context) -> Tables {
    let mut props = IndexSet::new();
    props.insert(Vec::new());
    let i64_ty = ctx.i64_type();
    let mut perms = FxHashMap::default();
    for rank in 1..=5usize {
        for p in permutations(rank) {
            let attr = ctx.intern_attr(nart_ir::AttrData::DenseArray {
                elem: i64_ty,
                data: nart_ir::DenseArrayData::Int(p.clone()),
            });
            perms.insert(p, attr);
        }
    }
    let ints = (-8..=8i64).map(|i| (i, ctx.i64_attr(i))).collect();
    Tables {
        perms,
        ints,
        computed: FxHashMap::default(),
        types: IndexSet::new(),
        props,
        consts: Vec::new(),
        opaque: Vec::new(),
        f32: ctx.f32_type(),
        i64: ctx.i64_type(),
        axis: ctx.ident("axis"),
        perm: ctx.ident("perm"),
        group: ctx.ident("group"),
        trans_b: ctx.ident("transB"),
    }
}

/// Every permutation of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<i64>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for pos in 0..n {
            let mut q = p.clone();
            q.insert(pos, (n - 1) as i64);
            out.push(q);
        }
    }
    out.sort();
    out
}

/// Translates the body of `func` (see the module documentation); `None` when it is not a
/// single block.
pub fn translate(ctx: &mut Context, func: Op) -> Option<Translation> {
    let block = body_block(ctx, func)?;
    let tables = new_tables(ctx);
    let mut graph = Graph::new(GraphAnalysis { tables });
    let mut class_of: FxHashMap<Value, Id> = FxHashMap::default();
    let mut locs = FxHashMap::default();
    let mut const_ops = FxHashMap::default();
    let mut const_by_attr: FxHashMap<nart_ir::Attr, u32> = FxHashMap::default();
    let mut modelled_ops = Vec::new();

    for (i, &arg) in ctx.block_args(block).iter().enumerate() {
        add_leaf(ctx, &mut graph, &mut class_of, arg, Kind::Arg(i as u32));
    }
    for op in ctx.block_ops(block) {
        let loc = ctx.op_loc(op);
        let constant = ctx
            .op_interface::<dyn ConstantOpInterface>(op)
            .and_then(|c| c.value(ctx, op));
        let is_const = modelled(ctx, op) && ctx.op_has_trait(op, Trait::ConstantLike);
        if let (true, Some(attr)) = (is_const, constant) {
            let res = ctx.result(op, 0);
            let ty = model_ty(ctx, ctx.value_type(res)).expect("modelled");
            let k = match const_by_attr.get(&attr) {
                Some(&k) => k,
                None => {
                    let small = ty.numel().is_some_and(|n| n <= SMALL_CONST);
                    let tensor = small
                        .then(|| nart_interp::convert::tensor_from_attr(ctx, attr).ok())
                        .flatten()
                        .map(Arc::new);
                    let tk = graph.analysis.intern_ty(ty);
                    graph.analysis.tables.consts.push(crate::lang::ConstVal {
                        attr: Some(attr),
                        tensor,
                        concat: None,
                        ty: tk,
                    });
                    let k = (graph.analysis.tables.consts.len() - 1) as u32;
                    const_by_attr.insert(attr, k);
                    const_ops.insert(k, ctx.op_name(op));
                    k
                }
            };
            let tk = graph.analysis.tables.consts[k as usize].ty;
            let id = graph.add(GNode::leaf(Kind::Const(k), tk));
            class_of.insert(res, id);
            locs.entry(id).or_insert(loc);
            modelled_ops.push(op);
        } else if let Some(children) = (modelled(ctx, op)
            && !ctx.op_has_trait(op, Trait::ConstantLike))
        .then(|| {
            ctx.operands(op)
                .iter()
                .map(|v| class_of.get(v).copied())
                .collect::<Option<Vec<Id>>>()
        })
        .flatten()
        {
            let tys: Vec<Ty> = ctx
                .results(op)
                .iter()
                .map(|&r| model_ty(ctx, ctx.value_type(r)).expect("modelled"))
                .collect();
            let multi = tys.len() > 1;
            let ty = graph.analysis.intern_types(tys);
            let props = graph.analysis.intern_props(ctx.props(op).to_vec());
            let name = egg::Symbol::from(ctx.op_name_str(op));
            let id = graph.add(GNode {
                kind: Kind::Op(name),
                ty,
                props,
                children,
            });
            locs.entry(id).or_insert(loc);
            if multi {
                for (i, &r) in ctx.results(op).iter().enumerate() {
                    let p = proj(&mut graph, id, i);
                    locs.entry(p).or_insert(loc);
                    class_of.insert(r, p);
                }
            } else {
                class_of.insert(ctx.result(op, 0), id);
            }
            modelled_ops.push(op);
        } else {
            for &r in ctx.results(op) {
                let k = graph.analysis.tables.opaque.len() as u32;
                graph.analysis.tables.opaque.push(r);
                add_leaf(ctx, &mut graph, &mut class_of, r, Kind::Opaque(k));
            }
        }
    }
    graph.rebuild();
    Some(Translation {
        graph,
        block,
        class_of,
        modelled: modelled_ops,
        locs,
        const_ops,
    })
}

/// The uses an op outside the e-graph makes of the block's values: its own operands and those
/// of every op nested in its regions (which may use values of the enclosing block), as
/// (user, operand index, value).
pub fn outside_uses(ctx: &Context, op: Op) -> Vec<(Op, usize, Value)> {
    ctx.collect_ops(op, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .flat_map(|user| {
            ctx.operands(user)
                .iter()
                .enumerate()
                .map(move |(i, &v)| (user, i, v))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Adds the projection of result `i` of the multi-result op class `op`.
pub fn proj(graph: &mut Graph, op: Id, i: usize) -> Id {
    let tuple = graph[op].data.ty;
    let ty = graph.analysis.tables.types[tuple as usize][i].clone();
    let tk = graph.analysis.intern_ty(ty);
    graph.add(GNode {
        kind: Kind::Proj(i as u32),
        ty: tk,
        props: 0,
        children: vec![op],
    })
}

fn add_leaf(
    ctx: &Context,
    graph: &mut Graph,
    class_of: &mut FxHashMap<Value, Id>,
    v: Value,
    kind: Kind,
) {
    // Values the e-graph cannot type still get a leaf (they are only ever passed through);
    // their type key is a placeholder no rule matches (a rule checks types before firing).
    let ty = model_ty(ctx, ctx.value_type(v)).unwrap_or(Ty {
        elem: ctx.value_type(v),
        dims: None,
    });
    let tk = graph.analysis.intern_ty(ty);
    let id = graph.add(GNode::leaf(kind, tk));
    class_of.insert(v, id);
}

/// The data of an e-class (a shorthand for tests).
pub fn data(graph: &Graph, id: Id) -> &ClassData {
    &graph[id].data
}
