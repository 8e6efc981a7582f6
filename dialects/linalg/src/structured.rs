//! What every structured op is: operands split into inputs and inits (`ins`/`outs`), one
//! indexing map per operand from the loop space to the operand's indices, one iterator type
//! per loop, and a body that computes the init elements from the input elements (MLIR's
//! `LinalgStructuredInterface`).
//!
//! `linalg.generic` stores its maps and iterator types as properties; a named op computes them
//! from its kind and attributes ([`crate::named`]). Both answer through
//! [`StructuredOpInterface`], which the verifier, `linalg-generalize-named-ops` and the
//! lowering to loops use, so none of them looks at op names.

use nart_ir::{
    AffineExpr, AffineMap, Attr, AttrData, Context, Diagnostic, Op, Type, TypeData, DYNAMIC,
};

use crate::attrs::{iterator_type_of, IteratorType};

/// The structured view of an op.
pub trait StructuredOpInterface: Sync {
    /// The number of inputs (`ins`); the remaining operands are the inits (`outs`).
    fn num_inputs(&self, ctx: &Context, op: Op) -> usize;
    /// One map per operand, inputs then inits, or a message saying why there are none.
    fn indexing_maps(&self, ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String>;
    /// One iterator type per loop.
    fn iterator_types(&self, ctx: &Context, op: Op) -> Result<Vec<IteratorType>, String>;
}

/// `dN`.
pub fn d(n: u32) -> AffineExpr {
    AffineExpr::Dim(n)
}

/// `a + b`.
pub fn add(a: AffineExpr, b: AffineExpr) -> AffineExpr {
    AffineExpr::Add(Box::new(a), Box::new(b))
}

/// `a * c`, written as MLIR simplifies it: `a` when `c` is 1.
pub fn mul_const(a: AffineExpr, c: i64) -> AffineExpr {
    if c == 1 {
        a
    } else {
        AffineExpr::Mul(Box::new(a), Box::new(AffineExpr::Const(c)))
    }
}

/// A map over `num_dims` dimensions with these results.
pub fn map(num_dims: u32, results: Vec<AffineExpr>) -> AffineMap {
    AffineMap {
        num_dims,
        num_symbols: 0,
        results,
    }
}

/// The identity map of rank `n`.
pub fn identity(n: u32) -> AffineMap {
    map(n, (0..n).map(d).collect())
}

/// The maps held by an `indexing_maps` array attribute.
pub fn maps_of(ctx: &Context, a: Attr) -> Option<Vec<AffineMap>> {
    let AttrData::Array(items) = ctx.attr_data(a) else {
        return None;
    };
    items
        .iter()
        .map(|&m| match ctx.attr_data(m) {
            AttrData::AffineMap(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// The iterator types held by an `iterator_types` array attribute.
pub fn iterators_of(ctx: &Context, a: Attr) -> Option<Vec<IteratorType>> {
    let AttrData::Array(items) = ctx.attr_data(a) else {
        return None;
    };
    items.iter().map(|&i| iterator_type_of(ctx, i)).collect()
}

/// The shape of a ranked tensor or memref; the empty shape for a scalar.
pub fn shape(ctx: &Context, ty: Type) -> Option<Vec<i64>> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, .. } | TypeData::MemRef { shape, .. } => {
            Some(shape.clone())
        }
        TypeData::UnrankedTensor { .. } | TypeData::UnrankedMemRef { .. } => None,
        _ => Some(Vec::new()),
    }
}

/// Whether `ty` is a tensor type.
pub fn is_tensor(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_data(ty),
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
    )
}

/// The value of `e` at the point `dims` (no symbols); `None` when it reads a symbol.
pub fn eval(e: &AffineExpr, dims: &[i64]) -> Option<i64> {
    Some(match e {
        AffineExpr::Dim(i) => *dims.get(*i as usize)?,
        AffineExpr::Symbol(_) => return None,
        AffineExpr::Const(c) => *c,
        AffineExpr::Add(a, b) => eval(a, dims)? + eval(b, dims)?,
        AffineExpr::Mul(a, b) => eval(a, dims)? * eval(b, dims)?,
        AffineExpr::Mod(a, b) => eval(a, dims)?.rem_euclid(eval(b, dims)?),
        AffineExpr::FloorDiv(a, b) => eval(a, dims)?.div_euclid(eval(b, dims)?),
        AffineExpr::CeilDiv(a, b) => {
            let (x, y) = (eval(a, dims)?, eval(b, dims)?);
            -((-x).div_euclid(y))
        }
    })
}

/// Whether `e` is monotonically non-decreasing in every dimension (sums and products of
/// dimensions and non-negative constants), so that its largest value over a box is at the
/// box's upper corner.
fn is_monotonic(e: &AffineExpr) -> bool {
    match e {
        AffineExpr::Dim(_) => true,
        AffineExpr::Const(c) => *c >= 0,
        AffineExpr::Add(a, b) | AffineExpr::Mul(a, b) => is_monotonic(a) && is_monotonic(b),
        _ => false,
    }
}

/// The static loop ranges of a structured op: each loop takes the size of the first operand
/// dimension its map indexes with exactly that loop (`dN` alone). `DYNAMIC` where no static
/// size gives it.
pub fn static_loop_ranges(ctx: &Context, op: Op, maps: &[AffineMap], num_loops: usize) -> Vec<i64> {
    let mut ranges = vec![DYNAMIC; num_loops];
    for (&v, m) in ctx.operands(op).iter().zip(maps) {
        let Some(s) = shape(ctx, ctx.value_type(v)) else {
            continue;
        };
        for (r, e) in m.results.iter().enumerate() {
            if let (AffineExpr::Dim(i), Some(&n)) = (e, s.get(r)) {
                let i = *i as usize;
                if i < num_loops && ranges[i] == DYNAMIC && n != DYNAMIC {
                    ranges[i] = n;
                }
            }
        }
    }
    ranges
}

/// The structured view of `op`, if it has one.
pub fn structured(ctx: &Context, op: Op) -> Option<&'static dyn StructuredOpInterface> {
    ctx.op_interface::<dyn StructuredOpInterface>(op)
}

/// Checks what every structured op must satisfy: one map per operand, each over as many
/// dimensions as there are loops and with as many results as its operand's rank; results
/// only for tensor inits, of the inits' types; static shapes consistent with the loop ranges;
/// and a body whose arguments are the operands' element types and whose `linalg.yield`
/// gives one value of each init's element type.
pub fn verify_structured(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(s) = structured(ctx, op) else {
        return Ok(());
    };
    let maps = s.indexing_maps(ctx, op).map_err(|m| ctx.op_error(op, m))?;
    let iters = s.iterator_types(ctx, op).map_err(|m| ctx.op_error(op, m))?;
    let operands = ctx.operands(op).to_vec();
    let n_in = s.num_inputs(ctx, op);
    if maps.len() != operands.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected the number of indexing_map ({}) to be equal to the number of input/output operands ({})",
                maps.len(),
                operands.len()
            ),
        ));
    }
    let inits = &operands[n_in.min(operands.len())..];
    let tensor_inits: Vec<Type> = inits
        .iter()
        .map(|&v| ctx.value_type(v))
        .filter(|&t| is_tensor(ctx, t))
        .collect();
    let results: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    if results != tensor_inits {
        return Err(ctx.op_error(
            op,
            format!(
                "expected {} results, one of each tensor init's type, got {}",
                tensor_inits.len(),
                results.len()
            ),
        ));
    }
    for (i, (m, &v)) in maps.iter().zip(&operands).enumerate() {
        if m.num_symbols != 0 {
            return Err(ctx.op_error(op, format!("expected indexing_map #{i} to have no symbols")));
        }
        if m.num_dims as usize != iters.len() {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected indexing_map #{i} to have {} dim(s) to match the number of loops",
                    iters.len()
                ),
            ));
        }
        let rank = shape(ctx, ctx.value_type(v)).map_or(0, |s| s.len());
        if m.results.len() != rank {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected operand rank ({rank}) to match the result rank of indexing_map #{i} ({})",
                    m.results.len()
                ),
            ));
        }
    }
    // Every loop must be bounded by some operand dimension indexed by it alone.
    let ranges = static_loop_ranges(ctx, op, &maps, iters.len());
    for (i, (m, &v)) in maps.iter().zip(&operands).enumerate() {
        let Some(sh) = shape(ctx, ctx.value_type(v)) else {
            continue;
        };
        for (dim, e) in m.results.iter().enumerate() {
            let n = sh[dim];
            if n == DYNAMIC || !is_monotonic(e) {
                continue;
            }
            if let AffineExpr::Dim(l) = e {
                let r = ranges[*l as usize];
                if r != DYNAMIC && r != n {
                    return Err(ctx.op_error(
                        op,
                        format!(
                            "inferred input/output operand #{i} has shape's dimension #{dim} to be {r}, but found {n}"
                        ),
                    ));
                }
                continue;
            }
            // A compound index (a convolution window) must stay inside the operand.
            if ranges.contains(&DYNAMIC) || ranges.contains(&0) {
                continue;
            }
            let top: Vec<i64> = ranges.iter().map(|&r| r - 1).collect();
            if let Some(last) = eval(e, &top) {
                if last >= n {
                    return Err(ctx.op_error(
                        op,
                        format!(
                            "inferred input/output operand #{i} has shape's dimension #{dim} to be greater than or equal to {}, but found {n}",
                            last + 1
                        ),
                    ));
                }
            }
        }
    }
    verify_body(ctx, op, &operands)
}

fn verify_body(ctx: &Context, op: Op, operands: &[nart_ir::Value]) -> Result<(), Diagnostic> {
    let Some(&region) = ctx.regions(op).first() else {
        return Ok(());
    };
    let Some(&block) = ctx.region_blocks(region).first() else {
        return Err(ctx.op_error(op, "expected a body with one block"));
    };
    let args = ctx.block_args(block);
    if args.len() != operands.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected as many non-induction variable region arguments as the number of input/output operands ({}), got {}",
                operands.len(),
                args.len()
            ),
        ));
    }
    for (i, (&a, &v)) in args.iter().zip(operands).enumerate() {
        let want = ctx.element_type(ctx.value_type(v));
        let got = ctx.value_type(a);
        if want != got {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected type of bb argument #{i} ('{}') to match element or self type of the corresponding operand ('{}')",
                    nart_ir::printer::type_to_string(ctx, got),
                    nart_ir::printer::type_to_string(ctx, want)
                ),
            ));
        }
    }
    Ok(())
}
