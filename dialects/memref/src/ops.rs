//! The ops of the `memref` dialect, each declared once with `#[nart_macros::op]`, with
//! upstream's verifier rules and messages.

use nart_ir::interfaces::InferTypeOpInterface;
use nart_ir::printer::type_to_string;
use nart_ir::registry::{constraints as c, AttrConstraint, AttrDef, AttrKind, TypeConstraint};
use nart_ir::{AttrData, Context, Diagnostic, NamedAttr, Op, Type, TypeData, Uniquer, DYNAMIC};
use nart_macros::op;

use crate::layout::{self, strides_and_offset};
use crate::syntax;

/// `index`, buildable (the core's constraint).
pub const INDEX: TypeConstraint = nart_ir::registry::constraints::INDEX;

/// A ranked memref (the core's constraint).
pub const MEMREF: TypeConstraint = nart_ir::registry::constraints::MEMREF;

/// A ranked or unranked memref (the core's constraint).
pub const ANY_MEMREF: TypeConstraint = nart_ir::registry::constraints::ANY_MEMREF;

/// A memref with no layout other than the identity or a strided one.
pub const STRIDED_MEMREF: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "strided memref of any type values",
    check: |ctx, ty| strides_and_offset(ctx, ty).is_some(),
};

const ALIGNMENT_ATTR: AttrConstraint = AttrConstraint {
    kind: AttrKind::Any,
    desc: "64-bit signless integer attribute whose value is positive and whose value is a power of two > 0",
    check: |ctx, a| {
        matches!(ctx.attr_data(a), AttrData::Integer { .. })
            && ctx
                .typed_attr_type(a)
                .is_some_and(|t| *ctx.type_data(t) == TypeData::int(64))
            && ctx
                .attr_int(a)
                .is_some_and(|v| v > 0 && (v & (v - 1)) == 0)
    },
};

const ALIGNMENT: AttrDef = AttrDef::optional(
    "alignment",
    ALIGNMENT_ATTR,
    "The alignment of the allocation in bytes.",
);

const DENSE_I64_ARRAY: AttrConstraint = AttrConstraint {
    kind: AttrKind::DenseIntArray(64),
    desc: "i64 dense array attribute",
    check: |ctx, a| {
        matches!(
            ctx.attr_data(a),
            AttrData::DenseArray {
                data: nart_ir::DenseArrayData::Int(_),
                ..
            }
        )
    },
};

const STATIC_OFFSETS: AttrDef = AttrDef::required(
    "static_offsets",
    DENSE_I64_ARRAY,
    "The offsets, `kDynamic` where an operand gives it.",
);
const STATIC_SIZES: AttrDef = AttrDef::required(
    "static_sizes",
    DENSE_I64_ARRAY,
    "The sizes, `kDynamic` where an operand gives it.",
);
const STATIC_STRIDES: AttrDef = AttrDef::required(
    "static_strides",
    DENSE_I64_ARRAY,
    "The strides, `kDynamic` where an operand gives it.",
);

/// The type of an op's result, an element of its first operand (`memref.load`).
pub struct ElementOfMemRef;

impl InferTypeOpInterface for ElementOfMemRef {
    fn infer_return_types(
        &self,
        u: &mut Uniquer,
        operand_types: &[Type],
        _: &[NamedAttr],
    ) -> Result<Vec<Type>, String> {
        let ty = operand_types
            .first()
            .ok_or("memref.load needs a memref operand")?;
        match u.type_data(*ty) {
            TypeData::MemRef { elem, .. } | TypeData::UnrankedMemRef { elem, .. } => {
                Ok(vec![*elem])
            }
            _ => Err("memref.load needs a memref operand".into()),
        }
    }
}

/// A single `index` result (`memref.dim`).
pub struct IndexResult;

impl InferTypeOpInterface for IndexResult {
    fn infer_return_types(
        &self,
        u: &mut Uniquer,
        _: &[Type],
        _: &[NamedAttr],
    ) -> Result<Vec<Type>, String> {
        Ok(vec![u.index_type()])
    }
}

macro_rules! alloc_like {
    ($(#[doc = $doc:tt])* $ty:ident = $name:tt as $def:ident) => {
        #[op(
            name = $name,
            def = $def,
            operands(dynamicSizes: variadic(INDEX), symbolOperands: variadic(INDEX)),
            results(memref: MEMREF),
            attrs(alignment: optional(ALIGNMENT)),
            traits(MemoryEffects, AttrSizedOperandSegments),
            verify = verify_alloc_like,
            format = "`(` $dynamicSizes `)` (`` `[` $symbolOperands^ `]`)? attr-dict `:` type($memref)",
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

alloc_like! {
    /// memory allocation operation
    ///
    /// Allocates a buffer of the result's memref type on the heap, with one `index` operand
    /// per dynamic dimension, in order, and one per symbol of an affine-map layout in
    /// brackets; `alignment` asks for an alignment in bytes. `memref.dealloc` frees it.
    ///
    /// ```mlir
    /// %a = memref.alloc() : memref<8x64xf32>
    /// %b = memref.alloc(%n) {alignment = 64 : i64} : memref<?x4xf32>
    /// ```
    AllocOp = "memref.alloc" as ALLOC
}

alloc_like! {
    /// stack memory allocation operation
    ///
    /// Allocates a buffer of the result's memref type on the stack of the enclosing function
    /// (freed when it returns), with operands as `memref.alloc`'s.
    ///
    /// ```mlir
    /// %a = memref.alloca() : memref<4xf32>
    /// %b = memref.alloca(%n) : memref<?xi8>
    /// ```
    AllocaOp = "memref.alloca" as ALLOCA
}

#[op(
    name = "memref.dealloc",
    def = DEALLOC,
    operands(memref: ANY_MEMREF),
    traits(MemoryEffects),
    format = "$memref attr-dict `:` type($memref)",
)]
/// memory deallocation operation
///
/// Frees a buffer `memref.alloc` allocated.
///
/// ```mlir
/// memref.dealloc %a : memref<8x64xf32>
/// ```
pub struct DeallocOp;

#[op(
    name = "memref.load",
    def = LOAD,
    operands(memref: MEMREF, indices: variadic(INDEX)),
    results(result: c::ANY),
    traits(MemoryEffects),
    interfaces(InferTypeOpInterface => ElementOfMemRef),
    verify = verify_load,
    format = "$memref `[` $indices `]` attr-dict `:` type($memref)",
)]
/// load operation
///
/// Reads the element at `indices`, one `index` per dimension, of a memref.
///
/// ```mlir
/// %v = memref.load %a[%i, %j] : memref<8x?xf32>
/// ```
pub struct LoadOp;

#[op(
    name = "memref.store",
    def = STORE,
    operands(value: c::ANY, memref: MEMREF, indices: variadic(INDEX)),
    traits(MemoryEffects),
    verify = verify_store,
    parse = syntax::parse_store,
    print = syntax::print_store,
)]
/// store operation
///
/// Writes `value`, of the memref's element type, at `indices`, one `index` per dimension.
///
/// ```mlir
/// memref.store %v, %a[%i, %j] : memref<8x?xf32>
/// ```
pub struct StoreOp;

#[op(
    name = "memref.cast",
    def = CAST,
    operands(source: ANY_MEMREF),
    results(dest: ANY_MEMREF),
    traits(Pure),
    verify = verify_cast,
    format = "$source attr-dict `:` type($source) `to` type($dest)",
)]
/// memref cast operation
///
/// Views a buffer as another memref type with the same element type, memory space and
/// rank, where sizes, strides or the offset known in one type may be dynamic in the other
/// (or between ranked and unranked).
///
/// ```mlir
/// %b = memref.cast %a : memref<4x?xf32> to memref<?x?xf32>
/// %u = memref.cast %a : memref<4x?xf32> to memref<*xf32>
/// ```
pub struct CastOp;

#[op(
    name = "memref.dim",
    def = DIM,
    operands(source: ANY_MEMREF, index: INDEX),
    results(result: INDEX),
    traits(Pure),
    interfaces(InferTypeOpInterface => IndexResult),
    format = "attr-dict $source `,` $index `:` type($source)",
)]
/// dimension index operation
///
/// The size of dimension `index` of a memref.
///
/// ```mlir
/// %n = memref.dim %a, %c1 : memref<4x?xf32>
/// ```
pub struct DimOp;

#[op(
    name = "memref.copy",
    def = COPY,
    operands(source: ANY_MEMREF, target: ANY_MEMREF),
    traits(MemoryEffects),
    verify = verify_copy,
    format = "$source `,` $target attr-dict `:` type($source) `to` type($target)",
)]
/// memref copy operation
///
/// Copies every element of `source` into `target`, which has the same shape and element
/// type; the two must not overlap.
///
/// ```mlir
/// memref.copy %a, %b : memref<4xf32> to memref<4xf32, strided<[2]>>
/// ```
pub struct CopyOp;

#[op(
    name = "memref.global",
    def = GLOBAL,
    attrs(
        sym_name: AttrDef::required("sym_name", c::SYMBOL_NAME_ATTR, "The name."),
        sym_visibility: optional(AttrDef::optional(
            "sym_visibility",
            c::STRING_ATTR,
            "`public` (the default), `private` or `nested`."
        )),
        type: AttrDef::required("type", c::TYPE_ATTR, "The memref type of the global."),
        initial_value: optional(AttrDef::optional(
            "initial_value",
            c::ANY_ATTR,
            "The contents (an elements attribute), or `unit` for uninitialized storage; absent for a declaration."
        )),
        constant: optional(AttrDef::optional(
            "constant",
            c::UNIT_ATTR,
            "Present when the contents never change."
        )),
        alignment: optional(ALIGNMENT),
    ),
    traits(Symbol),
    verify = verify_global,
    parse = syntax::parse_global,
    print = syntax::print_global,
)]
/// declare or define a global memref variable
///
/// A named buffer of a static memref type that lives for the whole program, defined with its
/// contents (an elements literal of the memref's shape, as the constant weights of a model),
/// `uninitialized`, or only declared (no initial value). `constant` promises its contents
/// never change. `memref.get_global` reads it.
///
/// ```mlir
/// memref.global "private" constant @w : memref<2xf32> = dense<[1.0, 2.0]>
/// memref.global @state : memref<4xi8> = uninitialized
/// memref.global @external : memref<16xf32>
/// ```
pub struct GlobalOp;

#[op(
    name = "memref.get_global",
    def = GET_GLOBAL,
    results(result: MEMREF),
    attrs(name: AttrDef::required("name", c::FLAT_SYMBOL_REF_ATTR, "The global.")),
    traits(Pure),
    verify = verify_get_global,
    format = "$name `:` type($result) attr-dict",
)]
/// get the memref pointing to a global variable
///
/// The buffer of the `memref.global` named `name`, of its type.
///
/// ```mlir
/// %w = memref.get_global @w : memref<2xf32>
/// ```
pub struct GetGlobalOp;

#[op(
    name = "memref.subview",
    def = SUBVIEW,
    operands(
        source: MEMREF,
        offsets: variadic(INDEX),
        sizes: variadic(INDEX),
        strides: variadic(INDEX),
    ),
    results(result: MEMREF),
    attrs(
        static_offsets: STATIC_OFFSETS,
        static_sizes: STATIC_SIZES,
        static_strides: STATIC_STRIDES,
    ),
    traits(Pure, AttrSizedOperandSegments),
    verify = verify_subview,
    parse = syntax::parse_subview,
    print = syntax::print_subview,
)]
/// memref subview operation
///
/// A view of a rectangular part of a strided memref: per dimension an offset, a size and a
/// stride, each a constant or an `index` operand. The result's layout is the source's strides
/// times the subview's strides, offset by the source offset plus the offsets times the source
/// strides; the verifier checks it. Dimensions of size 1 may be dropped from the result
/// (a rank-reducing subview).
///
/// ```mlir
/// %s = memref.subview %a[%i, 4] [2, %n] [1, 2]
///   : memref<8x16xf32> to memref<2x?xf32, strided<[16, 2], offset: ?>>
/// %row = memref.subview %a[3, 0] [1, 16] [1, 1]
///   : memref<8x16xf32> to memref<16xf32, strided<[1], offset: 48>>
/// ```
pub struct SubViewOp;

#[op(
    name = "memref.reinterpret_cast",
    def = REINTERPRET_CAST,
    operands(
        source: ANY_MEMREF,
        offsets: variadic(INDEX),
        sizes: variadic(INDEX),
        strides: variadic(INDEX),
    ),
    results(result: MEMREF),
    attrs(
        static_offsets: STATIC_OFFSETS,
        static_sizes: STATIC_SIZES,
        static_strides: STATIC_STRIDES,
    ),
    traits(Pure, AttrSizedOperandSegments),
    verify = verify_reinterpret_cast,
    parse = syntax::parse_reinterpret_cast,
    print = syntax::print_reinterpret_cast,
)]
/// memref reinterpret cast operation
///
/// Views the buffer of `source` with the given offset, sizes and strides (constants or
/// `index` operands), which the result type repeats where it knows them.
///
/// ```mlir
/// %f = memref.reinterpret_cast %a to offset: [0], sizes: [128], strides: [1]
///   : memref<8x16xf32> to memref<128xf32>
/// ```
pub struct ReinterpretCastOp;

// ----- verifiers -----

fn ty(ctx: &Context, t: Type) -> String {
    type_to_string(ctx, t)
}

fn memref_parts(ctx: &Context, t: Type) -> Option<(&[i64], Type, Option<nart_ir::Attr>)> {
    match ctx.type_data(t) {
        TypeData::MemRef {
            shape,
            elem,
            memory_space,
            ..
        } => Some((shape, *elem, *memory_space)),
        _ => None,
    }
}

fn verify_alloc_like(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let rt = ctx.value_type(ctx.result(op, 0));
    let Some((shape, _, _)) = memref_parts(ctx, rt) else {
        return Err(ctx.op_error(op, "result must be a memref"));
    };
    let dynamic = shape.iter().filter(|&&d| d == DYNAMIC).count();
    let a = AllocOp(op);
    let got = a.dynamic_sizes(ctx).len();
    if got != dynamic {
        return Err(ctx.op_error(
            op,
            format!("incorrect number of dynamic sizes, has {got}, expected {dynamic}"),
        ));
    }
    let symbols = layout::layout_symbols(ctx, rt);
    let got = a.symbol_operands(ctx).len();
    if got != symbols {
        return Err(ctx.op_error(
            op,
            format!(
                "symbol operand count does not equal memref symbol count: expected {symbols}, got {got}"
            ),
        ));
    }
    Ok(())
}

fn rank(ctx: &Context, t: Type) -> usize {
    ctx.shape_of(t).map_or(0, <[i64]>::len)
}

fn verify_load(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let mt = ctx.value_type(ctx.operand(op, 0));
    let n = ctx.operands(op).len() - 1;
    if n != rank(ctx, mt) {
        return Err(ctx.op_error(
            op,
            format!(
                "incorrect number of indices for load, expected {} but got {n}",
                rank(ctx, mt)
            ),
        ));
    }
    if ctx.value_type(ctx.result(op, 0)) != ctx.element_type(mt) {
        return Err(ctx.op_error(
            op,
            "failed to verify that result type matches element type of 'memref'",
        ));
    }
    Ok(())
}

fn verify_store(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let mt = ctx.value_type(ctx.operand(op, 1));
    if ctx.value_type(ctx.operand(op, 0)) != ctx.element_type(mt) {
        return Err(ctx.op_error(
            op,
            "failed to verify that type of 'value' matches element type of 'memref'",
        ));
    }
    if ctx.operands(op).len() != 2 + rank(ctx, mt) {
        return Err(ctx.op_error(op, "store index operand count not equal to memref rank"));
    }
    Ok(())
}

/// Whether two sizes, strides or offsets may be equal: equal, or one of them dynamic.
fn compatible(a: i64, b: i64) -> bool {
    a == b || a == DYNAMIC || b == DYNAMIC
}

/// Upstream's `CastOp::areCastCompatible`.
pub fn cast_compatible(ctx: &Context, a: Type, b: Type) -> bool {
    match (ctx.type_data(a), ctx.type_data(b)) {
        (TypeData::MemRef { .. }, TypeData::MemRef { .. }) => {
            let (Some((sa, ea, ma)), Some((sb, eb, mb))) =
                (memref_parts(ctx, a), memref_parts(ctx, b))
            else {
                return false;
            };
            if ea != eb || ma != mb || sa.len() != sb.len() {
                return false;
            }
            if !sa.iter().zip(sb).all(|(&x, &y)| compatible(x, y)) {
                return false;
            }
            match (strides_and_offset(ctx, a), strides_and_offset(ctx, b)) {
                (Some((_, ta, oa)), Some((_, tb, ob))) => {
                    compatible(oa, ob) && ta.iter().zip(&tb).all(|(&x, &y)| compatible(x, y))
                }
                _ => {
                    let la = matches!(ctx.type_data(a), TypeData::MemRef { layout, .. } if layout.is_some());
                    let lb = matches!(ctx.type_data(b), TypeData::MemRef { layout, .. } if layout.is_some());
                    !la && !lb || a == b
                }
            }
        }
        (TypeData::MemRef { .. }, TypeData::UnrankedMemRef { .. })
        | (TypeData::UnrankedMemRef { .. }, TypeData::MemRef { .. }) => {
            let (ea, ma) = elem_and_space(ctx, a);
            let (eb, mb) = elem_and_space(ctx, b);
            ea == eb && ma == mb
        }
        _ => false,
    }
}

fn elem_and_space(ctx: &Context, t: Type) -> (Type, Option<nart_ir::Attr>) {
    match ctx.type_data(t) {
        TypeData::MemRef {
            elem, memory_space, ..
        }
        | TypeData::UnrankedMemRef { elem, memory_space } => (*elem, *memory_space),
        _ => (t, None),
    }
}

fn verify_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let a = ctx.value_type(ctx.operand(op, 0));
    let b = ctx.value_type(ctx.result(op, 0));
    if !cast_compatible(ctx, a, b) {
        return Err(ctx.op_error(
            op,
            format!(
                "operand type '{}' and result type '{}' are cast incompatible",
                ty(ctx, a),
                ty(ctx, b)
            ),
        ));
    }
    Ok(())
}

fn verify_copy(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let a = ctx.value_type(ctx.operand(op, 0));
    let b = ctx.value_type(ctx.operand(op, 1));
    if elem_and_space(ctx, a).0 != elem_and_space(ctx, b).0 {
        return Err(ctx.op_error(op, "requires the same element type for all operands"));
    }
    if let (Some(sa), Some(sb)) = (ctx.shape_of(a), ctx.shape_of(b)) {
        if sa.len() != sb.len() || !sa.iter().zip(sb).all(|(&x, &y)| compatible(x, y)) {
            return Err(ctx.op_error(op, "requires the same shape for all operands"));
        }
    }
    Ok(())
}

fn verify_global(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(t) = ctx.attr(op, "type").and_then(|a| ctx.attr_type(a)) else {
        return Ok(());
    };
    let shape = match memref_parts(ctx, t) {
        Some((shape, _, _)) if !shape.contains(&DYNAMIC) => shape.to_vec(),
        _ => {
            return Err(ctx.op_error(
                op,
                format!(
                    "type should be static shaped memref, but got '{}'",
                    ty(ctx, t)
                ),
            ))
        }
    };
    if let Some(init) = ctx.attr(op, "initial_value") {
        match ctx.attr_data(init) {
            AttrData::Unit => {}
            AttrData::DenseElements { ty: ety, .. } => {
                let (ie, me) = (ctx.element_type(*ety), ctx.element_type(t));
                if ie != me {
                    return Err(ctx.op_error(
                        op,
                        format!(
                            "initial value element expected to be of type '{}', but was of type '{}'",
                            ty(ctx, me),
                            ty(ctx, ie)
                        ),
                    ));
                }
                let ishape = ctx.shape_of(*ety).unwrap_or(&[]);
                if ishape != shape.as_slice() {
                    let list =
                        |s: &[i64]| s.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
                    return Err(ctx.op_error(
                        op,
                        format!(
                            "initial value shape expected to be {} but was {}",
                            list(&shape),
                            list(ishape)
                        ),
                    ));
                }
            }
            _ => {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "initial value should be a unit or elements attribute, but got {}",
                        nart_ir::printer::attr_to_string(ctx, init)
                    ),
                ))
            }
        }
    }
    Ok(())
}

fn verify_get_global(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(sym) = ctx.attr(op, "name") else {
        return Ok(());
    };
    let name = ctx.attr_flat_symbol(sym).unwrap_or("").to_string();
    let global = nart_ir::symbol::lookup_from(ctx, op, sym)
        .filter(|&g| ctx.op_name_str(g) == "memref.global");
    let Some(global) = global else {
        return Err(ctx.op_error(
            op,
            format!("'{name}' does not reference a valid global memref"),
        ));
    };
    let want = ctx.attr(global, "type").and_then(|a| ctx.attr_type(a));
    let got = ctx.value_type(ctx.result(op, 0));
    if let Some(want) = want {
        if want != got {
            return Err(ctx.op_error(
                op,
                format!(
                    "result type '{}' does not match type '{}' of the global memref @{name}",
                    ty(ctx, got),
                    ty(ctx, want)
                ),
            ));
        }
    }
    Ok(())
}

/// The dense `i64` array property `name`.
pub fn static_list(ctx: &Context, op: Op, name: &str) -> Vec<i64> {
    match ctx.attr(op, name).map(|a| ctx.attr_data(a)) {
        Some(AttrData::DenseArray {
            data: nart_ir::DenseArrayData::Int(v),
            ..
        }) => v.clone(),
        _ => Vec::new(),
    }
}

/// The offsets, sizes and strides of a subview or reinterpret_cast agree with each other and
/// with their operands: `expected` entries each, one operand per dynamic entry (upstream's
/// `verifyOffsetSizeAndStrideOp`).
fn verify_mixed_lists(ctx: &Context, op: Op, expected: [usize; 3]) -> Result<(), Diagnostic> {
    let seg = static_list(ctx, op, "operandSegmentSizes");
    let lists = [
        static_list(ctx, op, "static_offsets"),
        static_list(ctx, op, "static_sizes"),
        static_list(ctx, op, "static_strides"),
    ];
    let err = |msg: String| Err(Diagnostic::error(ctx.op_loc(op), msg));
    let (no, ns, nt) = (lists[0].len(), lists[1].len(), lists[2].len());
    if !(no == 1 && expected[0] == 1) && no != ns {
        return err(format!(
            "expected mixed offsets rank to match mixed sizes rank ({no} vs {ns}) so the rank of the result type is well-formed."
        ));
    }
    if ns != nt {
        return err(format!(
            "expected mixed sizes rank to match mixed strides rank ({ns} vs {nt}) so the rank of the result type is well-formed."
        ));
    }
    for (k, what) in ["offset", "size", "stride"].into_iter().enumerate() {
        let list = &lists[k];
        if list.len() != expected[k] {
            return err(format!(
                "expected {} {what} values, got {}",
                expected[k],
                list.len()
            ));
        }
        let dynamic = list.iter().filter(|&&v| v == DYNAMIC).count();
        let operands = seg.get(k + 1).copied().unwrap_or(0) as usize;
        if dynamic != operands {
            return err(format!("expected {dynamic} dynamic {what} values"));
        }
    }
    Ok(())
}

fn slice_error(ctx: &Context, op: Op, expected: &str, what: &str) -> Diagnostic {
    let got = ctx.value_type(ctx.result(op, 0));
    Diagnostic::error(
        ctx.op_loc(op),
        format!(
            "expected result type to be '{expected}' or a rank-reduced version. ({what}), but got '{}'",
            ty(ctx, got)
        ),
    )
}

fn verify_subview(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    let (Some((_, elem, space)), Some((rshape, relem, rspace))) =
        (memref_parts(ctx, src), memref_parts(ctx, res))
    else {
        return Ok(());
    };
    if space != rspace {
        return Err(Diagnostic::error(
            ctx.op_loc(op),
            format!(
                "different memory spaces specified for base memref type '{}' and subview memref type '{}'",
                ty(ctx, src),
                ty(ctx, res)
            ),
        ));
    }
    let Some((sshape, sstrides, soffset)) = strides_and_offset(ctx, src) else {
        return Err(Diagnostic::error(
            ctx.op_loc(op),
            format!("base type '{}' is not strided", ty(ctx, src)),
        ));
    };
    let r = sshape.len();
    verify_mixed_lists(ctx, op, [r, r, r])?;
    let offsets = static_list(ctx, op, "static_offsets");
    let sizes = static_list(ctx, op, "static_sizes");
    let strides = static_list(ctx, op, "static_strides");
    // The result without rank reduction.
    let mut offset = soffset;
    for (&o, &s) in offsets.iter().zip(&sstrides) {
        offset = layout::add(offset, layout::mul(o, s));
    }
    let exp_strides: Vec<i64> = strides
        .iter()
        .zip(&sstrides)
        .map(|(&a, &b)| layout::mul(a, b))
        .collect();
    let expected =
        expected_strided_type(ctx, sizes.clone(), elem, exp_strides.clone(), offset, space);
    if rshape.len() > r {
        return Err(Diagnostic::error(
            ctx.op_loc(op),
            format!(
                "expected result rank to be smaller or equal to the source rank, but got {}",
                ty(ctx, res)
            ),
        ));
    }
    if relem != elem {
        return Err(Diagnostic::error(
            ctx.op_loc(op),
            format!(
                "expected result element type to be '{}', but got '{}'",
                ty(ctx, elem),
                ty(ctx, res)
            ),
        ));
    }
    let Some((_, rstrides, roffset)) = strides_and_offset(ctx, res) else {
        return Err(slice_error(ctx, op, &expected, "mismatch of result layout"));
    };
    // Match result dimensions to the expected ones, dropping unit dimensions the result
    // leaves out.
    let mut kept = Vec::new();
    let mut j = 0;
    for i in 0..r {
        let fits = j < rshape.len() && rshape[j] == sizes[i];
        let must_keep = r - i == rshape.len() - j;
        if fits && (must_keep || sizes[i] != 1 || rstrides[j] == exp_strides[i]) {
            kept.push(i);
            j += 1;
        } else if sizes[i] != 1 {
            return Err(slice_error(ctx, op, &expected, "mismatch of result sizes"));
        }
    }
    if j != rshape.len() {
        return Err(slice_error(ctx, op, &expected, "mismatch of result sizes"));
    }
    if roffset != offset {
        return Err(slice_error(ctx, op, &expected, "mismatch of result layout"));
    }
    for (k, &i) in kept.iter().enumerate() {
        if rstrides[k] != exp_strides[i] {
            return Err(slice_error(ctx, op, &expected, "mismatch of result layout"));
        }
    }
    // Static slices stay inside the source.
    for i in 0..r {
        let (o, n, s, d) = (offsets[i], sizes[i], strides[i], sshape[i]);
        if [o, n, s, d].contains(&DYNAMIC) || n == 0 {
            continue;
        }
        if o >= d {
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                format!("offset {i} is out-of-bounds: {o} >= {d}"),
            ));
        }
        let last = o.saturating_add((n - 1).saturating_mul(s));
        if last >= d {
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                format!("slice along dimension {i} runs out-of-bounds: {last} >= {d}"),
            ));
        }
    }
    Ok(())
}

/// The text of `memref<shape x elem, strided<strides, offset: o>>`, for messages (the verifier
/// cannot intern a type).
fn expected_strided_type(
    ctx: &Context,
    shape: Vec<i64>,
    elem: Type,
    strides: Vec<i64>,
    offset: i64,
    space: Option<nart_ir::Attr>,
) -> String {
    let dim = |v: &i64| {
        if *v == DYNAMIC {
            "?".to_string()
        } else {
            v.to_string()
        }
    };
    let mut text = String::from("memref<");
    for d in &shape {
        text.push_str(&dim(d));
        text.push('x');
    }
    text.push_str(&ty(ctx, elem));
    let strides: Vec<String> = strides.iter().map(dim).collect();
    text.push_str(&format!(", strided<[{}]", strides.join(", ")));
    if offset != 0 {
        text.push_str(&format!(", offset: {}", dim(&offset)));
    }
    text.push('>');
    if let Some(space) = space {
        text.push_str(", ");
        text.push_str(&nart_ir::printer::attr_to_string(ctx, space));
    }
    text.push('>');
    text
}

fn verify_reinterpret_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    let (se, ss) = elem_and_space(ctx, src);
    let Some((rshape, re, rs)) = memref_parts(ctx, res) else {
        return Ok(());
    };
    let err = |msg: String| Err(Diagnostic::error(ctx.op_loc(op), msg));
    if ss != rs {
        return err(format!(
            "different memory spaces specified for source type '{}' and result memref type '{}'",
            ty(ctx, src),
            ty(ctx, res)
        ));
    }
    if se != re {
        return err(format!(
            "different element types specified for source type '{}' and result memref type '{}'",
            ty(ctx, src),
            ty(ctx, res)
        ));
    }
    let r = rshape.len();
    verify_mixed_lists(ctx, op, [1, r, r])?;
    let show = |v: i64| {
        if v == DYNAMIC {
            "dynamic".to_string()
        } else {
            v.to_string()
        }
    };
    let sizes = static_list(ctx, op, "static_sizes");
    for (i, (&got, &want)) in rshape.iter().zip(&sizes).enumerate() {
        if got != DYNAMIC && got != want {
            return err(format!(
                "expected result type with size = {} instead of {got} in dim = {i}",
                show(want)
            ));
        }
    }
    let Some((_, rstrides, roffset)) = strides_and_offset(ctx, res) else {
        return err(format!(
            "expected result type to have strided layout but found '{}'",
            ty(ctx, res)
        ));
    };
    let offset = static_list(ctx, op, "static_offsets")
        .first()
        .copied()
        .unwrap_or(0);
    if roffset != DYNAMIC && roffset != offset {
        return err(format!(
            "expected result type with offset = {} instead of {roffset}",
            show(offset)
        ));
    }
    let strides = static_list(ctx, op, "static_strides");
    for (i, (&got, &want)) in rstrides.iter().zip(&strides).enumerate() {
        if got != DYNAMIC && got != want {
            return err(format!(
                "expected result type with stride = {} instead of {got} in dim = {i}",
                show(want)
            ));
        }
    }
    Ok(())
}

// ----- reshapes -----

const REASSOCIATION: AttrDef = AttrDef::required(
    "reassociation",
    AttrConstraint {
        kind: AttrKind::Any,
        desc: "Array of 64-bit integer array attributes",
        check: |ctx, a| match ctx.attr_data(a) {
            AttrData::Array(groups) => groups.iter().all(|&g| match ctx.attr_data(g) {
                AttrData::Array(items) => items.iter().all(|&i| ctx.attr_int(i).is_some()),
                _ => false,
            }),
            _ => false,
        },
    },
    "Per dimension of the collapsed type, the dimensions of the expanded type it spans.",
);

const STATIC_OUTPUT_SHAPE: AttrDef = AttrDef::required(
    "static_output_shape",
    DENSE_I64_ARRAY,
    "The result sizes, `kDynamic` where an operand gives it.",
);

#[op(
    name = "memref.collapse_shape",
    def = COLLAPSE_SHAPE,
    operands(src: STRIDED_MEMREF),
    results(result: STRIDED_MEMREF),
    attrs(reassociation: REASSOCIATION),
    traits(Pure),
    verify = verify_collapse_shape,
    format = "$src $reassociation attr-dict `:` type($src) `into` type($result)",
)]
/// operation to produce a memref with a smaller rank.
///
/// Views a memref with each group of consecutive dimensions in `reassociation` merged into
/// one; the merged dimensions must be contiguous in memory.
///
/// ```mlir
/// %r = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
/// ```
pub struct CollapseShapeOp;

#[op(
    name = "memref.expand_shape",
    def = EXPAND_SHAPE,
    operands(src: STRIDED_MEMREF, output_shape: variadic(INDEX)),
    results(result: STRIDED_MEMREF),
    attrs(reassociation: REASSOCIATION, static_output_shape: STATIC_OUTPUT_SHAPE),
    traits(Pure),
    verify = verify_expand_shape,
    parse = syntax::parse_expand_shape,
    print = syntax::print_expand_shape,
)]
/// operation to produce a memref with a higher rank.
///
/// Views a memref with each dimension split into the group of dimensions `reassociation`
/// gives it, whose sizes are `output_shape` (constants or `index` operands).
///
/// ```mlir
/// %e = memref.expand_shape %m [[0, 1], [2]] output_shape [2, 3, 4]
///   : memref<6x4xf32> into memref<2x3x4xf32>
/// ```
pub struct ExpandShapeOp;

/// The groups of a `reassociation` property.
pub fn reassociation(ctx: &Context, op: Op) -> Vec<Vec<i64>> {
    let Some(AttrData::Array(groups)) = ctx.attr(op, "reassociation").map(|a| ctx.attr_data(a))
    else {
        return Vec::new();
    };
    groups
        .iter()
        .map(|&g| match ctx.attr_data(g) {
            AttrData::Array(items) => items
                .iter()
                .filter_map(|&i| ctx.attr_int(i).map(|v| v as i64))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The checks shared by both reshapes (upstream's `verifyReshapeLikeTypes`), from the
/// expanded and the collapsed type.
fn verify_reshape(
    ctx: &Context,
    op: Op,
    expanded: Type,
    collapsed: Type,
) -> Result<(), Diagnostic> {
    let (Some((eshape, eelem, espace)), Some((cshape, celem, cspace))) =
        (memref_parts(ctx, expanded), memref_parts(ctx, collapsed))
    else {
        return Ok(());
    };
    let groups = reassociation(ctx, op);
    if groups.len() != cshape.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "invalid number of reassociation groups: found {}, expected {}",
                groups.len(),
                cshape.len()
            ),
        ));
    }
    let mut next = 0i64;
    for g in &groups {
        for &d in g {
            if d != next {
                return Err(ctx.op_error(op, "reassociation indices must be contiguous"));
            }
            next += 1;
        }
    }
    if next as usize != eshape.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected the reassociation to cover the {} dimensions of the expanded type, but it covers {next}",
                eshape.len()
            ),
        ));
    }
    for (i, g) in groups.iter().enumerate() {
        let dims: Vec<i64> = g.iter().map(|&d| eshape[d as usize]).collect();
        let dynamic = dims.contains(&DYNAMIC);
        if dynamic != (cshape[i] == DYNAMIC) {
            return Err(ctx.op_error(
                op,
                format!("collapsed dim ({i}) must be dynamic if and only if reassociation group is dynamic"),
            ));
        }
        if !dynamic {
            let size: i64 = dims.iter().product();
            if size != cshape[i] {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "collapsed dim size ({}) must equal reassociation group size ({size})",
                        cshape[i]
                    ),
                ));
            }
        }
    }
    // The layouts: each collapsed dimension keeps the stride of its group's innermost
    // dimension, the offset stays.
    let (Some((_, estrides, eoffset)), Some((_, cstrides, coffset))) = (
        strides_and_offset(ctx, expanded),
        strides_and_offset(ctx, collapsed),
    ) else {
        return Ok(());
    };
    // Inside a group the dimensions are contiguous: each stride is the next one times the
    // next size.
    for g in &groups {
        for w in g.windows(2) {
            let (k, n) = (w[0] as usize, w[1] as usize);
            let (sk, sn, size) = (estrides[k], estrides[n], eshape[n]);
            if [sk, sn, size].contains(&DYNAMIC) || eshape[k] == 1 {
                continue;
            }
            if sk != sn.saturating_mul(size) {
                return Err(ctx.op_error(
                    op,
                    format!("reassociation group dims {k} and {n} are not contiguous in memory (strides {sk} and {sn}, size {size})"),
                ));
            }
        }
    }
    let mut want = Vec::with_capacity(groups.len());
    for g in &groups {
        let last = *g.last().unwrap_or(&0) as usize;
        want.push(if g.is_empty() { 1 } else { estrides[last] });
    }
    let is_collapse = ctx.op_name_str(op) == "memref.collapse_shape";
    let layouts_agree = want
        .iter()
        .zip(&cstrides)
        .zip(cshape.iter())
        .all(|((&w, &c), &size)| w == c || size == 1 || w == DYNAMIC || c == DYNAMIC)
        && (eoffset == coffset || eoffset == DYNAMIC || coffset == DYNAMIC);
    if eelem != celem || espace != cspace || !layouts_agree {
        let (what, want_ty, got) = if is_collapse {
            ("collapsed", expanded, collapsed)
        } else {
            ("expanded", collapsed, expanded)
        };
        return Err(ctx.op_error(
            op,
            format!(
                "expected {what} type to be compatible with '{}' but found '{}'",
                ty(ctx, want_ty),
                ty(ctx, got)
            ),
        ));
    }
    Ok(())
}

fn verify_collapse_shape(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    verify_reshape(ctx, op, src, res)
}

fn verify_expand_shape(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    let shape = ctx.shape_of(res).unwrap_or(&[]).to_vec();
    let output = static_list(ctx, op, "static_output_shape");
    if output.len() != shape.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected number of static shape bounds to be equal to the output rank ({}) but found {} inputs instead",
                shape.len(),
                output.len()
            ),
        ));
    }
    let dynamic = output.iter().filter(|&&d| d == DYNAMIC).count();
    if dynamic != ctx.operands(op).len() - 1 {
        return Err(ctx.op_error(
            op,
            format!(
                "mismatch in dynamic dims in output_shape and static_output_shape: static_output_shape has {dynamic} dynamic dims while output_shape has {} values",
                ctx.operands(op).len() - 1
            ),
        ));
    }
    for (i, (&o, &s)) in output.iter().zip(&shape).enumerate() {
        if o != DYNAMIC && s != DYNAMIC && o != s {
            return Err(ctx.op_error(op, format!("invalid output shape provided at pos {i}")));
        }
    }
    verify_reshape(ctx, op, res, src)
}
