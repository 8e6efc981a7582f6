//! The ops of the `vector` dialect, each declared once with `#[nart_macros::op]`, with
//! upstream's verifier rules and messages.

use nart_dialect_arith::FASTMATH;
use nart_ir::interfaces::InferTypeOpInterface;
use nart_ir::printer::type_to_string;
use nart_ir::registry::{constraints as c, AttrConstraint, AttrDef, AttrKind, TypeConstraint};
use nart_ir::{
    AttrData, Context, DenseArrayData, Diagnostic, NamedAttr, Op, Type, TypeData, Uniquer, DYNAMIC,
};
use nart_macros::op;

use crate::attrs::{kind_add, KIND_ATTR};
use crate::syntax;

/// `index`, buildable (the core's constraint).
pub const INDEX: TypeConstraint = nart_ir::registry::constraints::INDEX;

/// A vector.
pub const VECTOR: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "vector of any type values",
    check: |ctx, ty| matches!(ctx.type_data(ty), TypeData::Vector { .. }),
};

/// A ranked memref (the core's constraint).
pub const MEMREF: TypeConstraint = nart_ir::registry::constraints::MEMREF;

/// A memref or a ranked tensor (the source of a transfer).
pub const SHAPED: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "shaped of any type values",
    check: |ctx, ty| {
        matches!(
            ctx.type_data(ty),
            TypeData::MemRef { .. } | TypeData::RankedTensor { .. }
        )
    },
};

/// A vector of floats.
pub const FLOAT_VECTOR: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "vector of floating-point values",
    check: |ctx, ty| matches!(ctx.type_data(ty), TypeData::Vector { elem, .. } if matches!(ctx.type_data(*elem), TypeData::Float(_))),
};

const DENSE_I64_ARRAY: AttrConstraint = AttrConstraint {
    kind: AttrKind::DenseIntArray(64),
    desc: "i64 dense array attribute",
    check: |ctx, a| {
        matches!(
            ctx.attr_data(a),
            AttrData::DenseArray {
                data: DenseArrayData::Int(_),
                ..
            }
        )
    },
};

const KIND_REQUIRED: AttrDef = AttrDef::required("kind", KIND_ATTR, "How values combine.");

const KIND_DEFAULT_ADD: AttrDef = AttrDef {
    default: Some(kind_add),
    ..AttrDef::optional(
        "kind",
        KIND_ATTR,
        "How products accumulate (`add` unless set).",
    )
};

const POSITION: AttrDef = AttrDef::required(
    "static_position",
    DENSE_I64_ARRAY,
    "The position, `kDynamic` where an operand gives it.",
);

const IN_BOUNDS: AttrDef = AttrDef::required(
    "in_bounds",
    c::ARRAY_ATTR,
    "Per vector dimension, whether the access is known to stay inside the source.",
);

const PERMUTATION_MAP: AttrDef = AttrDef::required(
    "permutation_map",
    AttrConstraint {
        kind: AttrKind::Any,
        desc: "AffineMap attribute",
        check: |ctx, a| matches!(ctx.attr_data(a), AttrData::AffineMap(_)),
    },
    "Which source dimension each vector dimension reads (a minor identity by default).",
);

/// The shape and element type of a vector type.
pub fn vector_parts(ctx: &Uniquer, ty: Type) -> Option<(&[i64], Type)> {
    match ctx.type_data(ty) {
        TypeData::Vector { shape, elem, .. } => Some((shape, *elem)),
        _ => None,
    }
}

/// `vector.shuffle`'s result: as many elements as the mask, with the leading operand's trailing
/// dimensions.
pub struct ShuffleResult;

impl InferTypeOpInterface for ShuffleResult {
    fn infer_return_types(
        &self,
        u: &mut Uniquer,
        operand_types: &[Type],
        props: &[NamedAttr],
    ) -> Result<Vec<Type>, String> {
        let v1 = *operand_types
            .first()
            .ok_or("vector.shuffle needs operands")?;
        let mask_name = u.ident("mask");
        let n = props
            .iter()
            .find(|p| p.name == mask_name)
            .and_then(|p| match u.attr_data(p.value) {
                AttrData::DenseArray {
                    data: DenseArrayData::Int(v),
                    ..
                } => Some(v.len() as i64),
                _ => None,
            })
            .ok_or("vector.shuffle needs a mask")?;
        let (shape, elem) = match vector_parts(u, v1) {
            Some((s, e)) => (s.to_vec(), e),
            None => (Vec::new(), v1),
        };
        let mut out = vec![n];
        out.extend(shape.iter().skip(1));
        let scalable = vec![false; out.len()];
        Ok(vec![u.intern_type(TypeData::Vector {
            shape: out,
            scalable,
            elem,
        })])
    }
}

#[op(
    name = "vector.load",
    def = LOAD,
    operands(base: MEMREF, indices: variadic(INDEX)),
    results(result: VECTOR),
    traits(MemoryEffects),
    verify = verify_load,
    format = "$base `[` $indices `]` attr-dict `:` type($base) `,` type($result)",
)]
/// reads an n-D slice of memory into an n-D vector
///
/// Reads the vector's shape of consecutive elements of a memref starting at `indices`, one per
/// memref dimension; the innermost dimensions of the memref and the vector line up.
///
/// ```mlir
/// %v = vector.load %m[%i, %j] : memref<8x16xf32>, vector<8xf32>
/// ```
pub struct LoadOp;

#[op(
    name = "vector.store",
    def = STORE,
    operands(valueToStore: VECTOR, base: MEMREF, indices: variadic(INDEX)),
    traits(MemoryEffects),
    verify = verify_store,
    format = "$valueToStore `,` $base `[` $indices `]` attr-dict `:` type($base) `,` type($valueToStore)",
)]
/// writes an n-D vector to an n-D slice of memory
///
/// Writes a vector to consecutive elements of a memref starting at `indices`, as
/// `vector.load` reads them.
///
/// ```mlir
/// vector.store %v, %m[%i, %j] : memref<8x16xf32>, vector<8xf32>
/// ```
pub struct StoreOp;

#[op(
    name = "vector.broadcast",
    def = BROADCAST,
    operands(source: c::ANY),
    results(vector: VECTOR),
    traits(Pure),
    verify = verify_broadcast,
    format = "$source attr-dict `:` type($source) `to` type($vector)",
)]
/// broadcast operation
///
/// Copies a scalar, or a vector of lower rank whose dimensions are 1 or the result's trailing
/// ones, to every position of the result.
///
/// ```mlir
/// %v = vector.broadcast %x : f32 to vector<8xf32>
/// %m = vector.broadcast %v : vector<8xf32> to vector<4x8xf32>
/// ```
pub struct BroadcastOp;

#[op(
    name = "vector.from_elements",
    def = FROM_ELEMENTS,
    operands(elements: variadic(c::ANY)),
    results(dest: VECTOR),
    traits(Pure),
    verify = verify_from_elements,
    parse = syntax::parse_from_elements,
    print = syntax::print_from_elements,
)]
/// operation that defines a vector from scalar elements
///
/// A vector whose elements, in row-major order, are the operands.
///
/// ```mlir
/// %v = vector.from_elements %a, %b, %c, %d : vector<4xf32>
/// ```
pub struct FromElementsOp;

#[op(
    name = "vector.extract",
    def = EXTRACT,
    operands(source: VECTOR, dynamic_position: variadic(INDEX)),
    results(result: c::ANY),
    attrs(static_position: POSITION),
    traits(Pure),
    verify = verify_extract,
    parse = syntax::parse_extract,
    print = syntax::print_extract,
)]
/// extract operation
///
/// The element or sub-vector of `source` at a position over its leading dimensions, each a
/// constant or an `index` operand.
///
/// ```mlir
/// %x = vector.extract %m[1, 2] : f32 from vector<4x8xf32>
/// %row = vector.extract %m[%i] : vector<8xf32> from vector<4x8xf32>
/// ```
pub struct ExtractOp;

#[op(
    name = "vector.insert",
    def = INSERT,
    operands(valueToStore: c::ANY, dest: VECTOR, dynamic_position: variadic(INDEX)),
    results(result: VECTOR),
    attrs(static_position: POSITION),
    traits(Pure),
    verify = verify_insert,
    parse = syntax::parse_insert,
    print = syntax::print_insert,
)]
/// insert operation
///
/// `dest` with the element or sub-vector at a position over its leading dimensions replaced
/// by `valueToStore`.
///
/// ```mlir
/// %n = vector.insert %x, %m [1, 2] : f32 into vector<4x8xf32>
/// ```
pub struct InsertOp;

#[op(
    name = "vector.fma",
    def = FMA,
    operands(lhs: FLOAT_VECTOR, rhs: FLOAT_VECTOR, acc: FLOAT_VECTOR),
    results(result: FLOAT_VECTOR),
    traits(Pure, SameOperandsAndResultType, Elementwise),
    format = "$lhs `,` $rhs `,` $acc attr-dict `:` type($lhs)",
)]
/// vector fused multiply-add
///
/// `lhs * rhs + acc` for each element, rounded once.
///
/// ```mlir
/// %r = vector.fma %a, %b, %c : vector<8xf32>
/// ```
pub struct FmaOp;

#[op(
    name = "vector.reduction",
    def = REDUCTION,
    operands(vector: VECTOR, acc: optional(c::ANY)),
    results(dest: c::ANY),
    attrs(kind: KIND_REQUIRED, fastmath: optional(FASTMATH)),
    traits(Pure),
    verify = verify_reduction,
    parse = syntax::parse_reduction,
    print = syntax::print_reduction,
)]
/// reduction operation
///
/// Combines the elements of a 1-D vector (and `acc`, when given) into one scalar of its
/// element type with `kind`.
///
/// ```mlir
/// %s = vector.reduction <add>, %v : vector<8xf32> into f32
/// %m = vector.reduction <maximumf>, %v, %acc fastmath<nnan> : vector<8xf32> into f32
/// ```
pub struct ReductionOp;

#[op(
    name = "vector.outerproduct",
    def = OUTERPRODUCT,
    operands(lhs: VECTOR, rhs: c::ANY, acc: optional(VECTOR)),
    results(result: VECTOR),
    attrs(kind: optional(KIND_DEFAULT_ADD)),
    traits(Pure),
    verify = verify_outerproduct,
    parse = syntax::parse_outerproduct,
    print = syntax::print_outerproduct,
)]
/// vector outerproduct with optional fused add
///
/// The outer product of two 1-D vectors (a 2-D vector), or with a scalar `rhs` the vector
/// scaled by it, combined into `acc` with `kind` when given: the rank-1 update at the heart of
/// a register-tiled matrix product.
///
/// ```mlir
/// %p = vector.outerproduct %a, %b, %acc : vector<4xf32>, vector<8xf32>
/// %s = vector.outerproduct %a, %x : vector<4xf32>, f32
/// ```
pub struct OuterProductOp;

#[op(
    name = "vector.shuffle",
    def = SHUFFLE,
    operands(v1: VECTOR, v2: VECTOR),
    results(vector: VECTOR),
    attrs(mask: AttrDef::required("mask", DENSE_I64_ARRAY, "Which element of the two operands, numbered one after the other, each result element takes.")),
    traits(Pure),
    interfaces(InferTypeOpInterface => ShuffleResult),
    verify = verify_shuffle,
    format = "operands $mask attr-dict `:` type(operands)",
)]
/// shuffle operation
///
/// Picks elements (sub-vectors of the leading dimension for n-D operands) of the two operands
/// by the indices of `mask`, where the second operand's elements follow the first's.
///
/// ```mlir
/// %z = vector.shuffle %a, %b [0, 4, 1, 5] : vector<4xf32>, vector<4xf32>
/// ```
pub struct ShuffleOp;

#[op(
    name = "vector.transfer_read",
    def = TRANSFER_READ,
    operands(base: SHAPED, indices: variadic(INDEX), padding: c::ANY, mask: optional(VECTOR)),
    results(vector: VECTOR),
    attrs(permutation_map: PERMUTATION_MAP, in_bounds: IN_BOUNDS),
    traits(MemoryEffects, AttrSizedOperandSegments),
    verify = verify_transfer_read,
    parse = syntax::parse_transfer_read,
    print = syntax::print_transfer_read,
)]
/// reads a supervector from memory into an SSA vector value
///
/// Reads a vector from a memref (or tensor) starting at `indices`; `permutation_map` says
/// which source dimension each vector dimension walks (the innermost ones unless written),
/// and positions outside the source, where `in_bounds` does not rule them out, read
/// `padding`.
///
/// ```mlir
/// %v = vector.transfer_read %m[%i, %j], %pad : memref<?x?xf32>, vector<8xf32>
/// %w = vector.transfer_read %m[%i, %j], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<?x?xf32>, vector<4xf32>
/// ```
pub struct TransferReadOp;

#[op(
    name = "vector.transfer_write",
    def = TRANSFER_WRITE,
    operands(valueToStore: VECTOR, base: SHAPED, indices: variadic(INDEX), mask: optional(VECTOR)),
    results(result: optional(c::ANY_TENSOR)),
    attrs(permutation_map: PERMUTATION_MAP, in_bounds: IN_BOUNDS),
    traits(MemoryEffects, AttrSizedOperandSegments),
    verify = verify_transfer_write,
    parse = syntax::parse_transfer_write,
    print = syntax::print_transfer_write,
)]
/// The vector.transfer_write op writes a supervector to memory.
///
/// Writes a vector to a memref starting at `indices`, through `permutation_map` as
/// `vector.transfer_read` reads; positions outside the memref are skipped unless `in_bounds`
/// rules them out. On a tensor it returns the updated tensor.
///
/// ```mlir
/// vector.transfer_write %v, %m[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<?x?xf32>
/// ```
pub struct TransferWriteOp;

// ----- verifiers -----

fn ty(ctx: &Context, t: Type) -> String {
    type_to_string(ctx, t)
}

fn rank(ctx: &Context, t: Type) -> usize {
    ctx.shape_of(t).map_or(0, <[i64]>::len)
}

fn verify_load(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let base = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    verify_load_store(ctx, op, base, res, ctx.operands(op).len() - 1)
}

fn verify_store(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let value = ctx.value_type(ctx.operand(op, 0));
    let base = ctx.value_type(ctx.operand(op, 1));
    verify_load_store(ctx, op, base, value, ctx.operands(op).len() - 2)
}

fn verify_load_store(
    ctx: &Context,
    op: Op,
    base: Type,
    vector: Type,
    n_indices: usize,
) -> Result<(), Diagnostic> {
    if ctx.element_type(base) != ctx.element_type(vector) {
        let what = if ctx.op_name_str(op) == "vector.load" {
            "result"
        } else {
            "valueToStore"
        };
        return Err(ctx.op_error(op, format!("base and {what} element types should match")));
    }
    if n_indices != rank(ctx, base) {
        return Err(ctx.op_error(op, format!("requires {} indices", rank(ctx, base))));
    }
    Ok(())
}

fn verify_broadcast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let dst = ctx.value_type(ctx.result(op, 0));
    let Some((dshape, delem)) = vector_parts(ctx, dst) else {
        return Ok(());
    };
    let (sshape, selem) = match vector_parts(ctx, src) {
        Some((s, e)) => (s, e),
        None => (&[][..], src),
    };
    if selem != delem {
        return Err(ctx.op_error(
            op,
            format!(
                "source type is not a vector of the result's element type: '{}' vs '{}'",
                ty(ctx, src),
                ty(ctx, dst)
            ),
        ));
    }
    if sshape.len() > dshape.len() {
        return Err(ctx.op_error(op, "source rank higher than destination rank"));
    }
    let lead = dshape.len() - sshape.len();
    for (i, &s) in sshape.iter().enumerate() {
        let d = dshape[lead + i];
        if s != 1 && s != d {
            return Err(ctx.op_error(op, format!("dimension mismatch ({s} vs. {d})")));
        }
    }
    Ok(())
}

fn verify_from_elements(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let dst = ctx.value_type(ctx.result(op, 0));
    let Some((shape, elem)) = vector_parts(ctx, dst) else {
        return Ok(());
    };
    let n: i64 = shape.iter().product();
    let elems = ctx.operands(op);
    if elems.len() as i64 != n || elems.iter().any(|&v| ctx.value_type(v) != elem) {
        return Err(ctx.op_error(
            op,
            "failed to verify that shaped type 'dest' matches 'elements' element count and types",
        ));
    }
    Ok(())
}

/// The static position of an extract or insert, and the number of its dynamic entries.
fn position(ctx: &Context, op: Op) -> Vec<i64> {
    match ctx.attr(op, "static_position").map(|a| ctx.attr_data(a)) {
        Some(AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        }) => v.clone(),
        _ => Vec::new(),
    }
}

/// The common rules of `vector.extract` and `vector.insert`: the position fits the vector,
/// one operand per dynamic entry, constant entries in range, and the value is the element or
/// sub-vector at that depth.
fn verify_position(
    ctx: &Context,
    op: Op,
    vector: Type,
    value: Type,
    n_dynamic: usize,
    (value_name, vector_name): (&str, &str),
) -> Result<(), Diagnostic> {
    let Some((shape, elem)) = vector_parts(ctx, vector) else {
        return Ok(());
    };
    let pos = position(ctx, op);
    if pos.len() > shape.len() {
        return Err(ctx.op_error(
            op,
            match vector_name {
                "source" => "expected position attribute of rank no greater than vector rank",
                _ => "expected position attribute of rank no greater than dest vector rank",
            },
        ));
    }
    // Upstream words the two differently: extract says "vector dimension or poison (-1)",
    // insert "dest vector dimension".
    let (which, poison) = if vector_name == "source" {
        ("", " or poison (-1)")
    } else {
        ("dest ", "")
    };
    if pos.iter().filter(|&&p| p == DYNAMIC).count() != n_dynamic {
        return Err(ctx.op_error(
            op,
            "mismatch between dynamic and static positions (kDynamic marker but no corresponding dynamic position)",
        ));
    }
    for (i, &p) in pos.iter().enumerate() {
        if p != DYNAMIC && (p < -1 || p >= shape[i]) {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected position attribute #{} to be a non-negative integer smaller than the corresponding {which}vector dimension{poison}",
                    i + 1
                ),
            ));
        }
    }
    let rest = &shape[pos.len()..];
    let ok = if rest.is_empty() {
        value == elem
            || vector_parts(ctx, value)
                .is_some_and(|(s, e)| e == elem && s.iter().all(|&d| d == 1) && s.len() <= 1)
    } else {
        vector_parts(ctx, value).is_some_and(|(s, e)| e == elem && s == rest)
    };
    if !ok {
        return Err(ctx.op_error(
            op,
            format!(
                "expected {value_name} type '{}' to be the element or sub-vector of '{}' at the position",
                ty(ctx, value),
                ty(ctx, vector)
            ),
        ));
    }
    Ok(())
}

fn verify_extract(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    verify_position(
        ctx,
        op,
        src,
        res,
        ctx.operands(op).len() - 1,
        ("result", "source"),
    )
}

fn verify_insert(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let value = ctx.value_type(ctx.operand(op, 0));
    let dest = ctx.value_type(ctx.operand(op, 1));
    if ctx.value_type(ctx.result(op, 0)) != dest {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {dest, result} have same type",
        ));
    }
    verify_position(
        ctx,
        op,
        dest,
        value,
        ctx.operands(op).len() - 2,
        ("valueToStore", "dest"),
    )
}

fn verify_reduction(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let v = ctx.value_type(ctx.operand(op, 0));
    let Some((shape, elem)) = vector_parts(ctx, v) else {
        return Ok(());
    };
    if shape.len() > 1 {
        return Err(ctx.op_error(op, format!("unsupported reduction rank: {}", shape.len())));
    }
    let dest = ctx.value_type(ctx.result(op, 0));
    if dest != elem {
        return Err(ctx.op_error(
            op,
            "failed to verify that source operand and result have same element type",
        ));
    }
    if let Some(&acc) = ctx.operands(op).get(1) {
        if ctx.value_type(acc) != dest {
            return Err(ctx.op_error(op, "failed to verify that dest and acc have same type"));
        }
    }
    Ok(())
}

/// The type of `vector.outerproduct`'s result: `lhs x rhs` for two vectors, `lhs`'s type for a
/// scalar `rhs`.
pub fn outerproduct_result(u: &mut Uniquer, lhs: Type, rhs: Type) -> Option<Type> {
    let (ls, le) = vector_parts(u, lhs).map(|(s, e)| (s.to_vec(), e))?;
    match vector_parts(u, rhs).map(|(s, _)| s.to_vec()) {
        Some(rs) => {
            let shape = vec![*ls.first()?, *rs.first()?];
            Some(u.intern_type(TypeData::Vector {
                shape,
                scalable: vec![false, false],
                elem: le,
            }))
        }
        None => Some(lhs),
    }
}

fn verify_outerproduct(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let lhs = ctx.value_type(ctx.operand(op, 0));
    let rhs = ctx.value_type(ctx.operand(op, 1));
    let res = ctx.value_type(ctx.result(op, 0));
    let Some((ls, le)) = vector_parts(ctx, lhs) else {
        return Ok(());
    };
    if ls.len() != 1 {
        return Err(ctx.op_error(op, "expected 1-d vector for operand #1"));
    }
    let Some((rs, _)) = vector_parts(ctx, res) else {
        return Ok(());
    };
    match vector_parts(ctx, rhs) {
        Some((r, _)) => {
            if r.len() != 1 {
                return Err(ctx.op_error(op, "expected 1-d vector for operand #2"));
            }
            if rs.len() != 2 {
                return Err(ctx.op_error(op, "expected 2-d vector result"));
            }
            if ls[0] != rs[0] {
                return Err(ctx.op_error(op, "expected #1 operand dim to match result dim #1"));
            }
            if r[0] != rs[1] {
                return Err(ctx.op_error(op, "expected #2 operand dim to match result dim #2"));
            }
        }
        None => {
            if rhs != le {
                return Err(ctx.op_error(
                    op,
                    "expected operand #2 to be the element type of operand #1",
                ));
            }
            if rs.len() != 1 {
                return Err(ctx.op_error(op, "expected 1-d vector result"));
            }
            if ls[0] != rs[0] {
                return Err(ctx.op_error(op, "expected #1 operand dim to match result dim #1"));
            }
        }
    }
    if let Some(&acc) = ctx.operands(op).get(2) {
        if ctx.value_type(acc) != res {
            return Err(ctx.op_error(op, "expected operand #3 of same type as result type"));
        }
    }
    Ok(())
}

fn verify_shuffle(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let v1 = ctx.value_type(ctx.operand(op, 0));
    let v2 = ctx.value_type(ctx.operand(op, 1));
    let res = ctx.value_type(ctx.result(op, 0));
    let (Some((s1, e1)), Some((s2, e2)), Some((rs, re))) = (
        vector_parts(ctx, v1),
        vector_parts(ctx, v2),
        vector_parts(ctx, res),
    ) else {
        return Ok(());
    };
    if e1 != e2 || e1 != re {
        return Err(ctx.op_error(
            op,
            "failed to verify that second operand v2 and result have same element type",
        ));
    }
    if s1.len() != s2.len() || s1.len() != rs.len() {
        return Err(ctx.op_error(op, "rank mismatch"));
    }
    for i in 1..s1.len() {
        if s1[i] != s2[i] || s1[i] != rs[i] {
            return Err(ctx.op_error(op, "dimension mismatch"));
        }
    }
    let mask = match ctx.attr(op, "mask").map(|a| ctx.attr_data(a)) {
        Some(AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        }) => v.clone(),
        _ => Vec::new(),
    };
    if mask.len() as i64 != rs[0] {
        return Err(ctx.op_error(op, "mask length mismatch"));
    }
    let total = s1[0] + s2[0];
    for (i, &m) in mask.iter().enumerate() {
        if m < -1 || m >= total {
            return Err(ctx.op_error(op, format!("mask index #{} out of range", i + 1)));
        }
    }
    Ok(())
}

/// The permutation map of a transfer as (number of dims, results as dim positions; `None` for
/// a result that is not a dim, such as a broadcast 0).
fn permutation(ctx: &Context, op: Op) -> Option<(usize, Vec<Option<u32>>)> {
    let AttrData::AffineMap(m) = ctx.attr_data(ctx.attr(op, "permutation_map")?) else {
        return None;
    };
    let results = m
        .results
        .iter()
        .map(|e| match e {
            nart_ir::AffineExpr::Dim(d) => Some(*d),
            _ => None,
        })
        .collect();
    Some((m.num_dims as usize, results))
}

fn verify_transfer(
    ctx: &Context,
    op: Op,
    source: Type,
    vector: Type,
    n_indices: usize,
) -> Result<(), Diagnostic> {
    let src_rank = rank(ctx, source);
    if n_indices != src_rank {
        return Err(ctx.op_error(op, format!("requires {src_rank} indices")));
    }
    let Some((vshape, velem)) = vector_parts(ctx, vector) else {
        return Ok(());
    };
    if velem != ctx.element_type(source) {
        return Err(ctx.op_error(
            op,
            "requires source vector element and vector result ranks to match.",
        ));
    }
    let Some((dims, results)) = permutation(ctx, op) else {
        return Ok(());
    };
    if dims != src_rank {
        return Err(ctx.op_error(
            op,
            "requires a permutation_map with input dims of the same rank as the source type",
        ));
    }
    if results.len() != vshape.len() {
        return Err(ctx.op_error(
            op,
            "requires a permutation_map with result dims of the same rank as the vector type",
        ));
    }
    let mut seen = vec![false; dims];
    for r in results.iter().flatten() {
        let r = *r as usize;
        if r >= dims || seen[r] {
            return Err(ctx.op_error(op, "requires a projected permutation_map (at most one dim or the zero constant can appear in each result)"));
        }
        seen[r] = true;
    }
    let in_bounds = ctx
        .attr(op, "in_bounds")
        .and_then(|a| match ctx.attr_data(a) {
            AttrData::Array(v) => Some(v.len()),
            _ => None,
        })
        .unwrap_or(0);
    if in_bounds != results.len() {
        return Err(ctx.op_error(
            op,
            "expects the in_bounds attr of same rank as permutation_map results",
        ));
    }
    Ok(())
}

fn verify_transfer_read(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let t = TransferReadOp(op);
    let source = ctx.value_type(t.base(ctx));
    let vector = ctx.value_type(ctx.result(op, 0));
    let pad = ctx.value_type(t.padding(ctx));
    if pad != ctx.element_type(source) {
        return Err(ctx.op_error(
            op,
            "requires formal padding and source of the same elemental type",
        ));
    }
    verify_transfer(ctx, op, source, vector, t.indices(ctx).len())
}

fn verify_transfer_write(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let t = TransferWriteOp(op);
    let source = ctx.value_type(t.base(ctx));
    let vector = ctx.value_type(t.value_to_store(ctx));
    let tensor_result = ctx.results(op).len() == 1;
    let is_tensor = matches!(ctx.type_data(source), TypeData::RankedTensor { .. });
    if tensor_result != is_tensor || (tensor_result && ctx.value_type(ctx.result(op, 0)) != source)
    {
        return Err(ctx.op_error(
            op,
            "should have a tensor result of the source type exactly when writing to a tensor",
        ));
    }
    verify_transfer(ctx, op, source, vector, t.indices(ctx).len())
}

// ----- contract -----

const INDEXING_MAPS: AttrDef = AttrDef::required(
    "indexing_maps",
    AttrConstraint {
        kind: AttrKind::Any,
        desc: "AffineMap array attribute",
        check: |ctx, a| match ctx.attr_data(a) {
            AttrData::Array(v) => v
                .iter()
                .all(|&m| matches!(ctx.attr_data(m), AttrData::AffineMap(_))),
            _ => false,
        },
    },
    "How the iteration space indexes the lhs, the rhs and the accumulator.",
);

const ITERATOR_TYPES: AttrDef = AttrDef::required(
    "iterator_types",
    AttrConstraint {
        kind: AttrKind::Any,
        desc: "Iterator type should be an enum.",
        check: |ctx, a| match ctx.attr_data(a) {
            AttrData::Array(v) => v
                .iter()
                .all(|&t| ctx.enum_value(t, &crate::attrs::ITERATOR_TYPE).is_some()),
            _ => false,
        },
    },
    "Per dimension of the iteration space, `parallel` or `reduction`.",
);

#[op(
    name = "vector.contract",
    def = CONTRACT,
    operands(lhs: VECTOR, rhs: VECTOR, acc: c::ANY, masks: variadic(VECTOR)),
    results(result: c::ANY),
    attrs(
        indexing_maps: INDEXING_MAPS,
        iterator_types: ITERATOR_TYPES,
        kind: optional(KIND_DEFAULT_ADD),
    ),
    traits(Pure),
    verify = verify_contract,
    parse = syntax::parse_contract,
    print = syntax::print_contract,
)]
/// vector contraction operation
///
/// A generalized matrix product of two vectors: `indexing_maps` say how the iteration space
/// (one dimension per entry of `iterator_types`) indexes `lhs`, `rhs` and `acc`; products over
/// the `reduction` dimensions the two operands share are combined into `acc` with `kind`.
///
/// ```mlir
/// %c = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc
///   : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
/// ```
pub struct ContractionOp;

/// The maps of `indexing_maps`, each as (number of dims, results as dim positions; `None`
/// for a result that is not a dim).
fn indexing_maps(ctx: &Context, op: Op) -> Vec<(usize, Vec<Option<usize>>)> {
    let Some(AttrData::Array(maps)) = ctx.attr(op, "indexing_maps").map(|a| ctx.attr_data(a))
    else {
        return Vec::new();
    };
    maps.iter()
        .filter_map(|&m| match ctx.attr_data(m) {
            AttrData::AffineMap(m) => Some((
                m.num_dims as usize,
                m.results
                    .iter()
                    .map(|e| match e {
                        nart_ir::AffineExpr::Dim(d) => Some(*d as usize),
                        _ => None,
                    })
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

fn shape_of_any(ctx: &Context, t: Type) -> Vec<i64> {
    vector_parts(ctx, t).map_or_else(Vec::new, |(s, _)| s.to_vec())
}

fn verify_contract(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let operands = ctx.operands(op);
    let (lt, rt, at) = (
        ctx.value_type(operands[0]),
        ctx.value_type(operands[1]),
        ctx.value_type(operands[2]),
    );
    let res = ctx.value_type(ctx.result(op, 0));
    if at != res {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {acc, result} have same type",
        ));
    }
    let maps = indexing_maps(ctx, op);
    if maps.len() != 3 {
        return Err(ctx.op_error(op, "expected an indexing map for each vector operand"));
    }
    let iterators: Vec<u64> = match ctx.attr(op, "iterator_types").map(|a| ctx.attr_data(a)) {
        Some(AttrData::Array(v)) => v
            .iter()
            .filter_map(|&t| ctx.enum_value(t, &crate::attrs::ITERATOR_TYPE))
            .collect(),
        _ => Vec::new(),
    };
    let n = iterators.len();
    let shapes = [
        shape_of_any(ctx, lt),
        shape_of_any(ctx, rt),
        shape_of_any(ctx, at),
    ];
    for (i, (dims, results)) in maps.iter().enumerate() {
        if *dims != n {
            return Err(ctx.op_error(
                op,
                format!("expected indexing map {i} to have {n} number of inputs"),
            ));
        }
        if results.len() != shapes[i].len() {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected indexing map {i} to have {} number of outputs",
                    shapes[i].len()
                ),
            ));
        }
        if results.iter().any(|r| r.is_none_or(|d| d >= n)) {
            return Err(ctx.op_error(
                op,
                format!("expected indexing map {i} to be a projected permutation of its inputs"),
            ));
        }
    }
    let in_lhs: Vec<usize> = maps[0].1.iter().flatten().copied().collect();
    let in_rhs: Vec<usize> = maps[1].1.iter().flatten().copied().collect();
    let contracting = in_lhs
        .iter()
        .filter(|d| in_rhs.contains(d) && iterators.get(**d) == Some(&1))
        .count();
    if contracting == 0 {
        return Err(ctx.op_error(op, "expected at least one contracting dimension pair"));
    }
    // The accumulator's shape follows from the operands' sizes of its dimensions.
    let mut sizes = vec![None; n];
    for (k, (_, results)) in maps.iter().take(2).enumerate() {
        for (pos, d) in results.iter().enumerate() {
            if let Some(d) = d {
                sizes[*d] = Some(shapes[k][pos]);
            }
        }
    }
    let expected: Option<Vec<i64>> = maps[2].1.iter().map(|d| d.and_then(|d| sizes[d])).collect();
    if let Some(expected) = expected {
        if expected != shapes[2] {
            let elem = ctx.element_type(at);
            let text = if expected.is_empty() {
                ty(ctx, elem)
            } else {
                let dims: Vec<String> = expected.iter().map(i64::to_string).collect();
                format!("vector<{}x{}>", dims.join("x"), ty(ctx, elem))
            };
            return Err(ctx.op_error(
                op,
                format!("invalid accumulator/result vector shape, expected: '{text}'"),
            ));
        }
    }
    Ok(())
}
