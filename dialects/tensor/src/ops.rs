//! The ops of the `tensor` dialect, each declared once, with their verifiers.

use nart_ir::registry::{constraints as c, AttrConstraint, AttrDef, RegionDef, TypeConstraint};
use nart_ir::{Attr, AttrData, Context, Diagnostic, Op, Type, TypeData, DYNAMIC};
use nart_macros::op;

use crate::syntax;
use crate::util::{count_dynamic, dense_prop, shape_str, DENSE_I64_ARRAY};

/// Ranked tensors.
pub const RANKED_TENSOR: TypeConstraint =
    TypeConstraint::new("ranked tensor of any type values", |ctx, t| {
        matches!(ctx.type_data(t), TypeData::RankedTensor { .. })
    });

/// `index`, buildable (the core's constraint).
pub const INDEX: TypeConstraint = nart_ir::registry::constraints::INDEX;

/// Arrays of arrays of `i64` (reassociation indices).
pub const REASSOCIATION: AttrConstraint =
    AttrConstraint::new("Array of 64-bit integer array attributes", is_reassociation);

fn is_reassociation(ctx: &Context, a: Attr) -> bool {
    reassociation_of(ctx, a).is_some()
}

/// The groups of a reassociation attribute `[[0, 1], [2]]`.
pub fn reassociation_of(ctx: &Context, a: Attr) -> Option<Vec<Vec<i64>>> {
    let AttrData::Array(groups) = ctx.attr_data(a) else {
        return None;
    };
    groups
        .iter()
        .map(|&g| match ctx.attr_data(g) {
            AttrData::Array(items) => items
                .iter()
                .map(|&i| ctx.attr_int(i).and_then(|v| i64::try_from(v).ok()))
                .collect(),
            _ => None,
        })
        .collect()
}

/// The shape of a ranked tensor type.
pub fn tensor_shape(ctx: &Context, ty: Type) -> Option<&[i64]> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, .. } => Some(shape),
        _ => None,
    }
}

const INT64: AttrConstraint = AttrConstraint::new(
    "64-bit signless integer attribute",
    |ctx, a| matches!(ctx.attr_data(a), AttrData::Integer { ty, .. } if ctx.type_data(*ty) == &TypeData::int(64)),
);

const PAD_REGION: RegionDef = RegionDef {
    name: "region",
    single_block: true,
    may_be_empty: false,
};

fn ty_str(ctx: &Context, t: Type) -> String {
    nart_ir::printer::type_to_string(ctx, t)
}

#[op(
    name = "tensor.empty",
    def = EMPTY,
    operands(dynamicSizes: variadic(INDEX)),
    results(result: RANKED_TENSOR),
    traits(Pure),
    verify = verify_empty,
    format = "`(`$dynamicSizes`)` attr-dict `:` type($result)",
)]
/// empty tensor operation
///
/// Makes a tensor of the given shape whose contents are unspecified; only its shape matters.
/// Each dynamic dimension of the result takes one `index` operand, in order.
///
/// ```mlir
/// %0 = tensor.empty(%n) : tensor<4x?xf32>
/// ```
pub struct EmptyOp;

fn verify_empty(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ty = ctx.value_type(ctx.result(op, 0));
    let shape = tensor_shape(ctx, ty).unwrap_or(&[]);
    if count_dynamic(shape) != ctx.operands(op).len() {
        return Err(ctx.op_error(
            op,
            "incorrect number of dynamic sizes, has ".to_string()
                + &ctx.operands(op).len().to_string()
                + ", expected "
                + &count_dynamic(shape).to_string(),
        ));
    }
    Ok(())
}

#[op(
    name = "tensor.cast",
    def = CAST,
    operands(source: c::ANY_TENSOR),
    results(dest: c::ANY_TENSOR),
    traits(Pure),
    verify = verify_cast,
    format = "$source attr-dict `:` type($source) `to` type($dest)",
)]
/// tensor cast operation
///
/// Changes what is statically known of a tensor's shape without changing its data: dimensions
/// may become dynamic or static, and the element types must be equal.
///
/// ```mlir
/// %1 = tensor.cast %0 : tensor<4x?xf32> to tensor<4x8xf32>
/// ```
pub struct CastOp;

fn verify_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (a, b) = (
        ctx.value_type(ctx.operand(op, 0)),
        ctx.value_type(ctx.result(op, 0)),
    );
    let compatible = ctx.element_type(a) == ctx.element_type(b)
        && match (tensor_shape(ctx, a), tensor_shape(ctx, b)) {
            (Some(x), Some(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(&p, &q)| p == q || p == DYNAMIC || q == DYNAMIC)
            }
            _ => true,
        };
    if !compatible {
        return Err(ctx.op_error(
            op,
            format!(
                "operand type '{}' and result type '{}' are cast incompatible",
                ty_str(ctx, a),
                ty_str(ctx, b)
            ),
        ));
    }
    Ok(())
}

#[op(
    name = "tensor.dim",
    def = DIM,
    operands(source: c::ANY_TENSOR, index: INDEX),
    results(result: INDEX),
    traits(Pure),
    parse = syntax::parse_dim,
    print = syntax::print_dim,
)]
/// dimension index operation
///
/// Returns the size of dimension `index` of a tensor.
///
/// ```mlir
/// %c1 = arith.constant 1 : index
/// %d = tensor.dim %t, %c1 : tensor<4x?xf32>
/// ```
pub struct DimOp;

#[op(
    name = "tensor.extract",
    def = EXTRACT,
    operands(tensor: RANKED_TENSOR, indices: variadic(INDEX)),
    results(result: c::ANY),
    traits(Pure),
    verify = verify_extract,
    parse = syntax::parse_extract,
    print = syntax::print_extract,
)]
/// element extraction operation
///
/// Reads the element of a ranked tensor at the given indices, one per dimension.
///
/// ```mlir
/// %e = tensor.extract %t[%i, %j] : tensor<4x8xf32>
/// ```
pub struct ExtractOp;

fn verify_extract(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ty = ctx.value_type(ctx.operand(op, 0));
    let rank = tensor_shape(ctx, ty).map_or(0, <[i64]>::len);
    if ctx.operands(op).len() != rank + 1 {
        return Err(ctx.op_error(op, "incorrect number of indices for extract_element"));
    }
    if ctx.value_type(ctx.result(op, 0)) != ctx.element_type(ty) {
        return Err(ctx.op_error(op, "result type must match the element type of the tensor"));
    }
    Ok(())
}

const STATIC_OFFSETS: AttrDef = AttrDef::required(
    "static_offsets",
    DENSE_I64_ARRAY,
    "Offsets, `kDynamic` where an operand gives one.",
);
const STATIC_SIZES: AttrDef = AttrDef::required(
    "static_sizes",
    DENSE_I64_ARRAY,
    "Sizes, `kDynamic` where an operand gives one.",
);
const STATIC_STRIDES: AttrDef = AttrDef::required(
    "static_strides",
    DENSE_I64_ARRAY,
    "Strides, `kDynamic` where an operand gives one.",
);

#[op(
    name = "tensor.extract_slice",
    def = EXTRACT_SLICE,
    operands(
        source: RANKED_TENSOR,
        offsets: variadic(INDEX),
        sizes: variadic(INDEX),
        strides: variadic(INDEX),
    ),
    results(result: RANKED_TENSOR),
    attrs(static_offsets: STATIC_OFFSETS, static_sizes: STATIC_SIZES, static_strides: STATIC_STRIDES),
    traits(Pure, AttrSizedOperandSegments),
    verify = verify_extract_slice,
    parse = syntax::parse_extract_slice,
    print = syntax::print_extract_slice,
)]
/// extract slice operation
///
/// Reads a strided box of a tensor: offsets, sizes and strides per dimension, each static or
/// an `index` operand. The result has the sizes as its shape, with unit dimensions possibly
/// dropped (rank reduction).
///
/// ```mlir
/// %1 = tensor.extract_slice %0[0, 2] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
/// ```
pub struct ExtractSliceOp;

/// Checks the offsets, sizes and strides of a slice of `full` (a tensor type) against the
/// slice's type `slice`: rank, static sizes, and in-bounds static boxes.
fn verify_slice(
    ctx: &Context,
    op: Op,
    full: Type,
    slice: Type,
    what: &str,
) -> Result<(), Diagnostic> {
    let offsets = dense_prop(ctx, op, "static_offsets");
    let sizes = dense_prop(ctx, op, "static_sizes");
    let strides = dense_prop(ctx, op, "static_strides");
    let full_shape = tensor_shape(ctx, full).unwrap_or(&[]).to_vec();
    let rank = full_shape.len();
    for (name, v) in [("offset", &offsets), ("size", &sizes), ("stride", &strides)] {
        if v.len() != rank {
            return Err(ctx.op_error(
                op,
                format!("expected {rank} {name} values, got {}", v.len()),
            ));
        }
    }
    // The slice's shape is `sizes`, less some unit dimensions.
    let slice_shape = tensor_shape(ctx, slice).unwrap_or(&[]).to_vec();
    let mut j = 0;
    for &s in &sizes {
        if j < slice_shape.len()
            && (slice_shape[j] == s || s == DYNAMIC && slice_shape[j] == DYNAMIC)
        {
            j += 1;
        } else if s != 1 {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected {what} type to be '{}' or a rank-reduced version (size mismatch)",
                    shape_str(&sizes)
                ),
            ));
        }
    }
    if j != slice_shape.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected {what} type to be '{}' or a rank-reduced version (rank mismatch)",
                shape_str(&sizes)
            ),
        ));
    }
    if ctx.element_type(full) != ctx.element_type(slice) {
        return Err(ctx.op_error(
            op,
            format!("expected {what} element type to match the source's"),
        ));
    }
    for d in 0..rank {
        let (o, s, st, n) = (offsets[d], sizes[d], strides[d], full_shape[d]);
        if [o, s, st, n].contains(&DYNAMIC) {
            continue;
        }
        if o < 0 || s < 0 || (s > 0 && o + (s - 1) * st >= n) {
            return Err(ctx.op_error(
                op,
                format!("slice along dimension {d} runs out-of-bounds: offset {o}, size {s}, stride {st}, dimension {n}"),
            ));
        }
    }
    let n_dyn = count_dynamic(&offsets) + count_dynamic(&sizes) + count_dynamic(&strides);
    let n_operands = ctx.operands(op).len() - if what == "result" { 1 } else { 2 };
    if n_dyn != n_operands {
        return Err(ctx.op_error(
            op,
            format!("expected {n_dyn} dynamic index operands, got {n_operands}"),
        ));
    }
    Ok(())
}

fn verify_extract_slice(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    verify_slice(ctx, op, src, res, "result")
}

#[op(
    name = "tensor.insert_slice",
    def = INSERT_SLICE,
    operands(
        source: RANKED_TENSOR,
        dest: RANKED_TENSOR,
        offsets: variadic(INDEX),
        sizes: variadic(INDEX),
        strides: variadic(INDEX),
    ),
    results(result: RANKED_TENSOR),
    attrs(static_offsets: STATIC_OFFSETS, static_sizes: STATIC_SIZES, static_strides: STATIC_STRIDES),
    traits(Pure, AttrSizedOperandSegments),
    verify = verify_insert_slice,
    parse = syntax::parse_insert_slice,
    print = syntax::print_insert_slice,
)]
/// insert_slice operation
///
/// Writes a tensor into a strided box of another, giving the updated tensor; the box is
/// given as by `tensor.extract_slice`.
///
/// ```mlir
/// %2 = tensor.insert_slice %1 into %0[0, 2] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
/// ```
pub struct InsertSliceOp;

fn verify_insert_slice(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let dest = ctx.value_type(ctx.operand(op, 1));
    if ctx.value_type(ctx.result(op, 0)) != dest {
        return Err(ctx.op_error(op, "failed to verify that result type matches type of dest"));
    }
    verify_slice(ctx, op, dest, src, "source")
}

#[op(
    name = "tensor.pad",
    def = PAD,
    operands(source: RANKED_TENSOR, low: variadic(INDEX), high: variadic(INDEX)),
    results(result: RANKED_TENSOR),
    attrs(
        static_low: AttrDef::required("static_low", DENSE_I64_ARRAY, "Padding before each dimension, `kDynamic` where an operand gives it."),
        static_high: AttrDef::required("static_high", DENSE_I64_ARRAY, "Padding after each dimension, `kDynamic` where an operand gives it."),
        nofold: optional(AttrDef::optional("nofold", c::UNIT_ATTR, "Keeps a pad by zero from folding away.")),
    ),
    regions(region: PAD_REGION),
    traits(Pure, AttrSizedOperandSegments, SingleBlock),
    verify = verify_pad,
    parse = syntax::parse_pad,
    print = syntax::print_pad,
)]
/// tensor pad operation
///
/// Pads a tensor with `low` elements before and `high` after each dimension. The region
/// receives the index of each element of the result (one `index` per dimension) and yields
/// the value of padding elements with `tensor.yield`.
///
/// ```mlir
/// %1 = tensor.pad %0 low[1, 2] high[1, 2] {
/// ^bb0(%i: index, %j: index):
///   tensor.yield %zero : f32
/// } : tensor<4x4xf32> to tensor<6x8xf32>
/// ```
pub struct PadOp;

fn verify_pad(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    let shape = tensor_shape(ctx, src).unwrap_or(&[]).to_vec();
    let res_shape = tensor_shape(ctx, res).unwrap_or(&[]).to_vec();
    let low = dense_prop(ctx, op, "static_low");
    let high = dense_prop(ctx, op, "static_high");
    if low.len() != shape.len() || high.len() != shape.len() || res_shape.len() != shape.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected {} low and high padding values and a result of rank {}",
                shape.len(),
                shape.len()
            ),
        ));
    }
    for d in 0..shape.len() {
        if [shape[d], low[d], high[d], res_shape[d]].contains(&DYNAMIC) {
            continue;
        }
        let want = shape[d] + low[d] + high[d];
        if want != res_shape[d] {
            return Err(ctx.op_error(
                op,
                format!(
                    "specified type '{}' does not match the inferred type 'tensor<{}x{}>'",
                    ty_str(ctx, res),
                    shape_str(
                        &shape
                            .iter()
                            .zip(&low)
                            .zip(&high)
                            .map(|((a, b), c)| a + b + c)
                            .collect::<Vec<_>>()
                    ),
                    ty_str(ctx, ctx.element_type(src))
                ),
            ));
        }
    }
    if count_dynamic(&low) + count_dynamic(&high) != ctx.operands(op).len() - 1 {
        return Err(ctx.op_error(op, "expected one operand per dynamic padding value"));
    }
    let region = ctx.region(op, 0);
    if let Some(&block) = ctx.region_blocks(region).first() {
        let args = ctx.block_args(block);
        if args.len() != shape.len()
            || args
                .iter()
                .any(|&a| !matches!(ctx.type_data(ctx.value_type(a)), TypeData::Index))
        {
            return Err(ctx.op_error(
                op,
                format!("expected the block to have {} index arguments", shape.len()),
            ));
        }
        if let Some(term) = ctx.block_last_op(block) {
            if ctx.op_name_str(term) == "tensor.yield" {
                let yt = ctx.value_type(ctx.operand(term, 0));
                if yt != ctx.element_type(src) {
                    return Err(ctx.op_error(
                        op,
                        format!(
                            "expected yield type to match shape element type, got '{}'",
                            ty_str(ctx, yt)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[op(
    name = "tensor.yield",
    def = YIELD,
    operands(value: c::ANY),
    traits(Pure, Terminator, ReturnLike),
    parents("tensor.pad"),
    format = "$value attr-dict `:` type($value)",
)]
/// Yield a value from a region
///
/// Ends the region of `tensor.pad`, giving the value of the padding element.
///
/// ```mlir
/// tensor.yield %zero : f32
/// ```
pub struct YieldOp;

#[op(
    name = "tensor.collapse_shape",
    def = COLLAPSE_SHAPE,
    operands(src: RANKED_TENSOR),
    results(result: RANKED_TENSOR),
    attrs(reassociation: AttrDef::required("reassociation", REASSOCIATION, "The source dimensions each result dimension is made of.")),
    traits(Pure),
    verify = verify_collapse,
    format = "$src $reassociation attr-dict `:` type($src) `into` type($result)",
)]
/// operation to produce a tensor with a smaller rank
///
/// Merges groups of consecutive dimensions: result dimension `i` is the product of the source
/// dimensions listed in group `i` of `reassociation`. The data does not move.
///
/// ```mlir
/// %1 = tensor.collapse_shape %0 [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
/// ```
pub struct CollapseShapeOp;

/// Checks that `groups` partitions the dimensions of `big` in order, and that each dimension
/// of `small` is the product of its group's (static ones only).
fn verify_reassociation(
    ctx: &Context,
    op: Op,
    groups: &[Vec<i64>],
    big: &[i64],
    small: &[i64],
) -> Result<(), Diagnostic> {
    if groups.len() != small.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected {} reassociation groups, got {}",
                small.len(),
                groups.len()
            ),
        ));
    }
    // To or from rank 0: no groups, and every dimension of the other side is a unit, as
    // upstream allows (`tensor<1x1xf32>` into `tensor<f32>`).
    if small.is_empty() {
        if big.iter().any(|&d| d != 1) {
            return Err(ctx.op_error(
                op,
                "expected every expanded dimension to be 1 when the collapsed rank is 0",
            ));
        }
        return Ok(());
    }
    let mut next = 0i64;
    for (g, group) in groups.iter().enumerate() {
        let mut prod = 1i64;
        let mut dynamic = false;
        for &d in group {
            if d != next {
                return Err(ctx.op_error(
                    op,
                    "expected reassociation map #".to_string()
                        + &g.to_string()
                        + " to be valid and contiguous",
                ));
            }
            next += 1;
            let Some(&n) = big.get(d as usize) else {
                return Err(ctx.op_error(op, "reassociation indices exceed the expanded rank"));
            };
            if n == DYNAMIC {
                dynamic = true;
            } else {
                prod *= n;
            }
        }
        if !dynamic && small[g] != DYNAMIC && prod != small[g] {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected collapsed dimension {g} to be {prod}, but got {}",
                    small[g]
                ),
            ));
        }
    }
    if next as usize != big.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected reassociation to cover all {} expanded dimensions",
                big.len()
            ),
        ));
    }
    Ok(())
}

fn verify_collapse(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    let groups = ctx
        .attr(op, "reassociation")
        .and_then(|a| reassociation_of(ctx, a))
        .unwrap_or_default();
    if ctx.element_type(src) != ctx.element_type(res) {
        return Err(ctx.op_error(op, "expected source and result element types to match"));
    }
    verify_reassociation(
        ctx,
        op,
        &groups,
        tensor_shape(ctx, src).unwrap_or(&[]),
        tensor_shape(ctx, res).unwrap_or(&[]),
    )
}

#[op(
    name = "tensor.expand_shape",
    def = EXPAND_SHAPE,
    operands(src: RANKED_TENSOR, output_shape: variadic(INDEX)),
    results(result: RANKED_TENSOR),
    attrs(
        reassociation: AttrDef::required("reassociation", REASSOCIATION, "The result dimensions each source dimension is split into."),
        static_output_shape: AttrDef::required("static_output_shape", DENSE_I64_ARRAY, "The result shape, `kDynamic` where an operand gives the size."),
    ),
    traits(Pure),
    verify = verify_expand,
    parse = syntax::parse_expand_shape,
    print = syntax::print_expand_shape,
)]
/// operation to produce a tensor with a higher rank
///
/// Splits dimensions: source dimension `i` becomes the result dimensions listed in group `i`
/// of `reassociation`, whose sizes `output_shape` gives. The data does not move.
///
/// ```mlir
/// %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
/// ```
pub struct ExpandShapeOp;

fn verify_expand(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    let groups = ctx
        .attr(op, "reassociation")
        .and_then(|a| reassociation_of(ctx, a))
        .unwrap_or_default();
    if ctx.element_type(src) != ctx.element_type(res) {
        return Err(ctx.op_error(op, "expected source and result element types to match"));
    }
    let res_shape = tensor_shape(ctx, res).unwrap_or(&[]).to_vec();
    let out = dense_prop(ctx, op, "static_output_shape");
    if out.len() != res_shape.len() {
        return Err(ctx.op_error(op, format!("expected number of static shape dims to be equal to the output rank ({}) but found {} inputs instead", res_shape.len(), out.len())));
    }
    for (d, (&o, &r)) in out.iter().zip(&res_shape).enumerate() {
        if o != DYNAMIC && r != DYNAMIC && o != r {
            return Err(ctx.op_error(op, format!("invalid output shape provided at pos {d}")));
        }
    }
    verify_reassociation(
        ctx,
        op,
        &groups,
        &res_shape,
        tensor_shape(ctx, src).unwrap_or(&[]),
    )
}

#[op(
    name = "tensor.concat",
    def = CONCAT,
    operands(inputs: variadic(RANKED_TENSOR)),
    results(result: RANKED_TENSOR),
    attrs(dim: AttrDef::required("dim", INT64, "The dimension along which the inputs are joined.")),
    traits(Pure),
    verify = verify_concat,
    parse = syntax::parse_concat,
    print = syntax::print_concat,
)]
/// tensor concatenation operation
///
/// Joins tensors of equal rank along dimension `dim`; every other dimension must agree.
///
/// ```mlir
/// %2 = tensor.concat dim(1) %0, %1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
/// ```
pub struct ConcatOp;

fn verify_concat(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let res = ctx.value_type(ctx.result(op, 0));
    let res_shape = tensor_shape(ctx, res).unwrap_or(&[]).to_vec();
    let dim = ctx
        .attr(op, "dim")
        .and_then(|a| ctx.attr_int(a))
        .unwrap_or(0);
    let inputs = ctx.operands(op);
    if inputs.is_empty() {
        return Err(ctx.op_error(op, "requires at least one input"));
    }
    if dim < 0 || dim as usize >= res_shape.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "concatenation dim must be less than the tensor rank {}, but got {dim}",
                res_shape.len()
            ),
        ));
    }
    let dim = dim as usize;
    let mut sum = Some(0i64);
    for (i, &v) in inputs.iter().enumerate() {
        let t = ctx.value_type(v);
        let s = tensor_shape(ctx, t).unwrap_or(&[]);
        if s.len() != res_shape.len() {
            return Err(ctx.op_error(op, format!("rank of concatenated inputs must match result rank ({}), but input {i} has rank {}", res_shape.len(), s.len())));
        }
        if ctx.element_type(t) != ctx.element_type(res) {
            return Err(ctx.op_error(op, "inputs and result element type must match"));
        }
        for d in 0..s.len() {
            if d == dim {
                sum = match (sum, s[d]) {
                    (Some(a), n) if n != DYNAMIC => Some(a + n),
                    _ => None,
                };
            } else if s[d] != DYNAMIC && res_shape[d] != DYNAMIC && s[d] != res_shape[d] {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "static concatenation size mismatch along non-concatenated dimension {d}"
                    ),
                ));
            }
        }
    }
    if let Some(total) = sum {
        if res_shape[dim] != DYNAMIC && res_shape[dim] != total {
            return Err(ctx.op_error(op, format!("result type '{}' does not match inferred shape along dimension {dim} ({total})", ty_str(ctx, res))));
        }
    }
    Ok(())
}
