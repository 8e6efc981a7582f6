//! The ops of the `linalg` dialect, each declared once: `linalg.generic`, its terminator and
//! `linalg.index`, and the named structured ops, whose structure lives in [`crate::named`].

use nart_ir::registry::{constraints as c, AttrConstraint, AttrDef, RegionDef, TypeConstraint};
use nart_ir::{Context, Diagnostic, Op, TypeData};
use nart_macros::op;

use crate::attrs::{AFFINE_MAP_ARRAY, I64_ELEMENTS_2, ITERATOR_TYPE_ARRAY};
use crate::named::{self, Named};
use crate::structured::{
    iterators_of, maps_of, structured, verify_structured, StructuredOpInterface,
};
use crate::syntax;
use nart_dialect_tensor::util::DENSE_I64_ARRAY;

/// Tensors and memrefs.
pub const SHAPED: TypeConstraint = TypeConstraint::new("ranked tensor or memref", |ctx, t| {
    matches!(
        ctx.type_data(t),
        TypeData::RankedTensor { .. } | TypeData::MemRef { .. }
    )
});

/// Any type: inputs may be scalars (`linalg.fill`'s value).
pub const ANY_INPUT: TypeConstraint = c::ANY;

const BODY: RegionDef = RegionDef {
    name: "region",
    single_block: true,
    may_be_empty: false,
};

const INT64: AttrConstraint = AttrConstraint::new(
    "64-bit signless integer attribute",
    |ctx, a| matches!(ctx.attr_data(a), nart_ir::AttrData::Integer { ty, .. } if ctx.type_data(*ty) == &TypeData::int(64)),
);

/// `linalg.generic` as a structured op: its maps and iterator types are its properties.
struct GenericStructure;

impl StructuredOpInterface for GenericStructure {
    fn num_inputs(&self, ctx: &Context, op: Op) -> usize {
        named::segment_inputs(ctx, op)
    }
    fn indexing_maps(&self, ctx: &Context, op: Op) -> Result<Vec<nart_ir::AffineMap>, String> {
        ctx.attr(op, "indexing_maps")
            .and_then(|a| maps_of(ctx, a))
            .ok_or_else(|| "expected indexing_maps to be an array of affine maps".to_string())
    }
    fn iterator_types(&self, ctx: &Context, op: Op) -> Result<Vec<crate::IteratorType>, String> {
        ctx.attr(op, "iterator_types")
            .and_then(|a| iterators_of(ctx, a))
            .ok_or_else(|| "expected iterator_types to be an array of iterator types".to_string())
    }
}

#[op(
    name = "linalg.generic",
    def = GENERIC,
    operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
    results(result_tensors: variadic(c::ANY_TENSOR)),
    attrs(
        indexing_maps: AttrDef::required("indexing_maps", AFFINE_MAP_ARRAY, "One map per operand, from the loops to the operand's indices."),
        iterator_types: AttrDef::required("iterator_types", ITERATOR_TYPE_ARRAY, "One iterator type per loop."),
        doc: optional(AttrDef::optional("doc", c::STRING_ATTR, "Documentation.")),
        library_call: optional(AttrDef::optional("library_call", c::STRING_ATTR, "The name of a library function computing the op.")),
    ),
    regions(region: BODY),
    traits(AttrSizedOperandSegments, SingleBlock),
    interfaces(StructuredOpInterface => GenericStructure),
    verify = verify_structured,
    parse = syntax::parse_generic,
    print = syntax::print_generic,
)]
/// Generic Linalg op form where the key properties of the computation are specified as attributes.
///
/// Runs a perfect loop nest with one loop per entry of `iterator_types`; at each point, the
/// body receives the element of every operand at the index its indexing map gives, and
/// yields the new value of each init (`outs`) element. On tensors the op has one result per
/// init, the updated tensor; on memrefs it writes the inits in place and has none.
/// `linalg.index` reads a loop's index in the body.
///
/// ```mlir
/// #map = affine_map<(d0, d1) -> (d0, d1)>
/// %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
///     ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
/// ^bb0(%in: f32, %out: f32):
///   %1 = arith.addf %in, %in : f32
///   linalg.yield %1 : f32
/// } -> tensor<4x8xf32>
/// ```
pub struct GenericOp;

#[op(
    name = "linalg.yield",
    def = YIELD,
    operands(values: variadic(c::ANY)),
    traits(Pure, Terminator, ReturnLike),
    verify = verify_yield,
    format = "attr-dict ($values^ `:` type($values))?",
)]
/// Linalg yield operation
///
/// Ends the body of a structured op, giving the new value of each init element, in order.
///
/// ```mlir
/// linalg.yield %0 : f32
/// ```
pub struct YieldOp;

fn verify_yield(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(parent) = ctx.op_parent_op(op) else {
        return Err(ctx.op_error(op, "expected parent op with LinalgOp interface"));
    };
    let Some(s) = structured(ctx, parent) else {
        return Err(ctx.op_error(op, "expected parent op with LinalgOp interface"));
    };
    let operands = ctx.operands(parent);
    let inits = &operands[s.num_inputs(ctx, parent).min(operands.len())..];
    let values = ctx.operands(op);
    if values.len() != inits.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expected number of yield values ({}) to match the number of inits / outs operands of the enclosing LinalgOp ({})",
                values.len(),
                inits.len()
            ),
        ));
    }
    for (i, (&v, &init)) in values.iter().zip(inits).enumerate() {
        let want = ctx.element_type(ctx.value_type(init));
        if ctx.value_type(v) != want {
            return Err(ctx.op_error(
                op,
                format!(
                    "type of yield operand {} ('{}') doesn't match the element type of the enclosing linalg.generic op ('{}')",
                    i + 1,
                    nart_ir::printer::type_to_string(ctx, ctx.value_type(v)),
                    nart_ir::printer::type_to_string(ctx, want)
                ),
            ));
        }
    }
    Ok(())
}

#[op(
    name = "linalg.index",
    def = INDEX,
    results(result: c::INDEX),
    attrs(dim: AttrDef::required("dim", INT64, "The loop whose index is read.")),
    traits(Pure),
    verify = verify_index,
    parse = syntax::parse_index,
    print = syntax::print_index,
)]
/// linalg index operation
///
/// Gives the index of loop `dim` of the enclosing structured op at the current iteration.
///
/// ```mlir
/// %i = linalg.index 0 : index
/// ```
pub struct IndexOp;

fn verify_index(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let dim = ctx
        .attr(op, "dim")
        .and_then(|a| ctx.attr_int(a))
        .unwrap_or(0);
    let Some(parent) = ctx
        .op_parent_op(op)
        .filter(|&p| structured(ctx, p).is_some())
    else {
        return Err(ctx.op_error(op, "expected parent op with LinalgOp interface"));
    };
    let loops = structured(ctx, parent)
        .and_then(|s| s.iterator_types(ctx, parent).ok())
        .map_or(0, |v| v.len());
    if dim < 0 || dim as usize >= loops {
        return Err(ctx.op_error(
            op,
            format!("expected dim ({dim}) to be lower than the number of loops ({loops}) of the enclosing LinalgOp"),
        ));
    }
    Ok(())
}

macro_rules! named_op {
    (
        $(#[$doc:meta])*
        pub struct $ty:ident = $name:literal as $def:ident {
            maps: $maps:path, iters: $iters:path, inputs: $inputs:path,
            operands($($operands:tt)*),
            $(attrs($($attrs:tt)*),)?
            traits($($traits:tt)*),
        }
    ) => {
        #[op(
            name = $name,
            def = $def,
            operands($($operands)*),
            results(result_tensors: variadic(c::ANY_TENSOR)),
            $(attrs($($attrs)*),)?
            regions(region: BODY),
            traits($($traits)*),
            interfaces(StructuredOpInterface => Named {
                maps: $maps,
                iters: $iters,
                inputs: $inputs,
            }),
            verify = verify_structured,
            parse = syntax::parse_named,
            print = syntax::print_named,
        )]
        $(#[$doc])*
        pub struct $ty;
    };
}

named_op! {
    /// Fills the output tensor with the given value.
    ///
    /// Writes the scalar input into every element of the init.
    ///
    /// ```mlir
    /// %0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    /// ```
    pub struct FillOp = "linalg.fill" as FILL {
        maps: named::fill_maps, iters: named::all_parallel, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

named_op! {
    /// Performs a matrix multiplication of two 2D inputs without broadcast or transpose.
    ///
    /// `C(m, n) += A(m, k) * B(k, n)`, with the inputs cast to the init's element type.
    ///
    /// ```mlir
    /// %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
    /// ```
    pub struct MatmulOp = "linalg.matmul" as MATMUL {
        maps: named::matmul_maps, iters: named::matmul_iters, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        attrs(indexing_maps: optional(AttrDef::optional("indexing_maps", AFFINE_MAP_ARRAY, "The operands' maps; upstream prints them in the generic form."))),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

named_op! {
    /// Performs a batched matrix multiplication of two 3D inputs.
    ///
    /// `C(b, m, n) += A(b, m, k) * B(b, k, n)`.
    ///
    /// ```mlir
    /// %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x5xf32>) outs(%c : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
    /// ```
    pub struct BatchMatmulOp = "linalg.batch_matmul" as BATCH_MATMUL {
        maps: named::batch_matmul_maps, iters: named::batch_matmul_iters, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        attrs(indexing_maps: optional(AttrDef::optional("indexing_maps", AFFINE_MAP_ARRAY, "The operands' maps; upstream prints them in the generic form."))),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

const STRIDES: AttrDef = AttrDef::optional(
    "strides",
    I64_ELEMENTS_2,
    "Window strides (height, width); 1 when absent.",
);
const DILATIONS: AttrDef = AttrDef::optional(
    "dilations",
    I64_ELEMENTS_2,
    "Window dilations (height, width); 1 when absent.",
);

named_op! {
    /// Performs 2-D convolution.
    ///
    /// `O(n, f, oh, ow) += I(n, c, oh * sh + kh * dh, ow * sw + kw * dw) * F(f, c, kh, kw)`;
    /// padding is a `tensor.pad` of the input.
    ///
    /// ```mlir
    /// %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ///     ins(%i, %w : tensor<1x3x8x8xf32>, tensor<5x3x3x3xf32>) outs(%o : tensor<1x5x6x6xf32>) -> tensor<1x5x6x6xf32>
    /// ```
    pub struct Conv2DNchwFchwOp = "linalg.conv_2d_nchw_fchw" as CONV_2D_NCHW_FCHW {
        maps: named::conv_maps, iters: named::conv_iters, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        attrs(strides: optional(STRIDES), dilations: optional(DILATIONS)),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

named_op! {
    /// Performs depth-wise 2-D convolution.
    ///
    /// `O(n, c, oh, ow) += I(n, c, oh * sh + kh * dh, ow * sw + kw * dw) * F(c, kh, kw)`.
    ///
    /// ```mlir
    /// %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ///     ins(%i, %w : tensor<1x3x8x8xf32>, tensor<3x3x3xf32>) outs(%o : tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
    /// ```
    pub struct DepthwiseConv2DNchwChwOp = "linalg.depthwise_conv_2d_nchw_chw" as DEPTHWISE_CONV_2D_NCHW_CHW {
        maps: named::depthwise_maps, iters: named::window_iters, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        attrs(strides: optional(STRIDES), dilations: optional(DILATIONS)),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

named_op! {
    /// Performs max pooling.
    ///
    /// `O(n, c, oh, ow) = max(O(n, c, oh, ow), I(n, c, oh * sh + kh * dh, ow * sw + kw * dw))`;
    /// the second input's shape is the window.
    ///
    /// ```mlir
    /// %0 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ///     ins(%i, %k : tensor<1x3x8x8xf32>, tensor<3x3xf32>) outs(%o : tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
    /// ```
    pub struct PoolingNchwMaxOp = "linalg.pooling_nchw_max" as POOLING_NCHW_MAX {
        maps: named::pooling_maps, iters: named::window_iters, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        attrs(strides: optional(STRIDES), dilations: optional(DILATIONS)),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

named_op! {
    /// Performs sum pooling.
    ///
    /// `O(n, c, oh, ow) += I(n, c, oh * sh + kh * dh, ow * sw + kw * dw)`; the second input's
    /// shape is the window.
    ///
    /// ```mlir
    /// %0 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ///     ins(%i, %k : tensor<1x3x8x8xf32>, tensor<3x3xf32>) outs(%o : tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
    /// ```
    pub struct PoolingNchwSumOp = "linalg.pooling_nchw_sum" as POOLING_NCHW_SUM {
        maps: named::pooling_maps, iters: named::window_iters, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        attrs(strides: optional(STRIDES), dilations: optional(DILATIONS)),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

named_op! {
    /// Copies the tensor elementwise.
    ///
    /// `O(i...) = I(i...)`.
    ///
    /// ```mlir
    /// %0 = linalg.copy ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    /// ```
    pub struct CopyOp = "linalg.copy" as COPY {
        maps: named::identity_maps, iters: named::all_parallel, inputs: named::segment_inputs,
        operands(inputs: variadic(ANY_INPUT), outputs: variadic(SHAPED)),
        traits(AttrSizedOperandSegments, SingleBlock),
    }
}

named_op! {
    /// Transpose operator
    ///
    /// `O(i_0, ..., i_n) = I(...)` where dimension `i` of the result is dimension
    /// `permutation[i]` of the input.
    ///
    /// ```mlir
    /// %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
    /// ```
    pub struct TransposeOp = "linalg.transpose" as TRANSPOSE {
        maps: named::transpose_maps, iters: named::all_parallel, inputs: named::one_input,
        operands(input: SHAPED, init: SHAPED),
        attrs(permutation: AttrDef::required("permutation", DENSE_I64_ARRAY, "Which input dimension each result dimension is.")),
        traits(SingleBlock),
    }
}

named_op! {
    /// Static broadcast operator
    ///
    /// Repeats the input along the init's dimensions listed in `dimensions`.
    ///
    /// ```mlir
    /// %b = linalg.broadcast ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8x16xf32>) dimensions = [2]
    /// ```
    pub struct BroadcastOp = "linalg.broadcast" as BROADCAST {
        maps: named::broadcast_maps, iters: named::all_parallel, inputs: named::one_input,
        operands(input: SHAPED, init: SHAPED),
        attrs(dimensions: AttrDef::required("dimensions", DENSE_I64_ARRAY, "The init dimensions the input does not have.")),
        traits(SingleBlock),
    }
}

named_op! {
    /// Elementwise operations
    ///
    /// Applies its body to the elements of the inputs at each index, writing the init; the
    /// body's last argument is the init's element.
    ///
    /// ```mlir
    /// %m = linalg.map ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>)
    ///   (%x: f32, %y: f32, %init: f32) {
    ///     %s = arith.addf %x, %y : f32
    ///     linalg.yield %s : f32
    ///   }
    /// ```
    pub struct MapOp = "linalg.map" as MAP {
        maps: named::identity_maps, iters: named::all_parallel, inputs: named::all_but_last,
        operands(inputs: variadic(SHAPED), init: SHAPED),
        traits(SingleBlock),
    }
}

named_op! {
    /// Reduce operator
    ///
    /// Folds the inputs over `dimensions` into the inits with its body, which takes the input
    /// elements then the accumulators.
    ///
    /// ```mlir
    /// %r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%e : tensor<4xf32>) dimensions = [1]
    ///   (%in: f32, %init: f32) {
    ///     %s = arith.addf %in, %init : f32
    ///     linalg.yield %s : f32
    ///   }
    /// ```
    pub struct ReduceOp = "linalg.reduce" as REDUCE {
        maps: named::reduce_maps, iters: named::reduce_iters, inputs: named::half,
        operands(operands: variadic(SHAPED)),
        attrs(dimensions: AttrDef::required("dimensions", DENSE_I64_ARRAY, "The input dimensions reduced.")),
        traits(SingleBlock),
    }
}

/// The body function of a named op whose body is implied by its name (`None` for
/// `linalg.map` and `linalg.reduce`, whose bodies are written, and for `linalg.generic`).
pub fn body_fn(name: &str) -> Option<named::BodyFn> {
    Some(match name {
        "linalg.fill" | "linalg.copy" | "linalg.transpose" | "linalg.broadcast" => named::body_copy,
        "linalg.matmul"
        | "linalg.batch_matmul"
        | "linalg.conv_2d_nchw_fchw"
        | "linalg.depthwise_conv_2d_nchw_chw" => named::body_mul_add,
        "linalg.pooling_nchw_max" => named::body_max,
        "linalg.pooling_nchw_sum" => named::body_sum,
        _ => return None,
    })
}
