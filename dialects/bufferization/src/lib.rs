//! The `bufferization` dialect: upstream MLIR's `bufferization.to_tensor` and
//! `bufferization.to_buffer`, the casts that stand where a tensor value meets a buffer (a
//! memref) while a function is being bufferized, with upstream's syntax and checks.
//!
//! `nart-bufferize` uses them as the materializations of its type conversion; after a complete
//! bufferization none is left.

#![deny(missing_docs)]

use nart_ir::registry::{constraints as c, AttrDef, TypeConstraint};
use nart_ir::{Context, Diagnostic, DialectDef, Op, OpDef, Type, TypeData};
use nart_macros::op;

/// A ranked or unranked tensor.
const TENSOR: TypeConstraint = TypeConstraint::new("tensor of any type values", |ctx, t| {
    matches!(
        ctx.type_data(t),
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
    )
});

/// A ranked or unranked memref.
const MEMREF: TypeConstraint = TypeConstraint::new("memref of any type values", |ctx, t| {
    matches!(
        ctx.type_data(t),
        TypeData::MemRef { .. } | TypeData::UnrankedMemRef { .. }
    )
});

const RESTRICT: AttrDef = AttrDef::optional(
    "restrict",
    c::UNIT_ATTR,
    "No other `to_tensor` reads the same buffer: bufferization may write it in place.",
);
const WRITABLE: AttrDef = AttrDef::optional(
    "writable",
    c::UNIT_ATTR,
    "The buffer may be written by the ops that bufferize the tensor's users.",
);
const READ_ONLY: AttrDef = AttrDef::optional("read_only", c::UNIT_ATTR, "The buffer is only read.");

/// The shape and element type of a tensor or memref: `(Some(dims), elem)` when ranked.
fn shape_and_elem(ctx: &Context, t: Type) -> Option<(Option<Vec<i64>>, Type)> {
    match ctx.type_data(t) {
        TypeData::RankedTensor { shape, elem, .. } | TypeData::MemRef { shape, elem, .. } => {
            Some((Some(shape.to_vec()), *elem))
        }
        TypeData::UnrankedTensor { elem } | TypeData::UnrankedMemRef { elem, .. } => {
            Some((None, *elem))
        }
        _ => None,
    }
}

/// Upstream's `TensorAndBufferMatch`: the same element type and, when both are ranked, the
/// same shape (an unranked side matches only an unranked one). Upstream reports the mismatch
/// twice (`shapes do not match`, then the constraint); nart reports the constraint, once.
fn verify_match(ctx: &Context, op: Op, tensor: Type, buffer: Type) -> Result<(), Diagnostic> {
    let (Some((ts, te)), Some((bs, be))) =
        (shape_and_elem(ctx, tensor), shape_and_elem(ctx, buffer))
    else {
        return Ok(());
    };
    if ts != bs || te != be {
        return Err(ctx.op_error(
            op,
            "failed to verify that specified tensor and buffer types match",
        ));
    }
    Ok(())
}

fn verify_to_tensor(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (buffer, tensor) = (
        ctx.value_type(ctx.operand(op, 0)),
        ctx.value_type(ctx.result(op, 0)),
    );
    verify_match(ctx, op, tensor, buffer)
}

fn verify_to_buffer(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (tensor, buffer) = (
        ctx.value_type(ctx.operand(op, 0)),
        ctx.value_type(ctx.result(op, 0)),
    );
    verify_match(ctx, op, tensor, buffer)
}

#[op(
    name = "bufferization.to_tensor",
    def = TO_TENSOR,
    operands(buffer: MEMREF),
    results(result: TENSOR),
    attrs(restrict: optional(RESTRICT), writable: optional(WRITABLE)),
    verify = verify_to_tensor,
    format = "$buffer (`restrict` $restrict^)? (`writable` $writable^)? attr-dict `:` type($buffer) `to` type($result)",
)]
/// Create a buffer-semantic tensor from a buffer
///
/// The tensor whose elements are those of the buffer when the op runs: where bufferization
/// meets a value that is a buffer but a tensor is expected.
///
/// ```mlir
/// %t = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
/// ```
pub struct ToTensorOp;

#[op(
    name = "bufferization.to_buffer",
    def = TO_BUFFER,
    operands(tensor: TENSOR),
    results(buffer: MEMREF),
    attrs(read_only: optional(READ_ONLY)),
    traits(Pure),
    verify = verify_to_buffer,
    format = "$tensor (`read_only` $read_only^)? attr-dict `:` type($tensor) `to` type($buffer)",
)]
/// Cast a tensor to a buffer
///
/// A buffer holding the tensor's elements: where bufferization meets a value that is a tensor
/// but a buffer is expected.
///
/// ```mlir
/// %m = bufferization.to_buffer %t read_only : tensor<4xf32> to memref<4xf32>
/// ```
pub struct ToBufferOp;

static OPS: [&OpDef; 2] = [&TO_BUFFER, &TO_TENSOR];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        summary: "Casts between tensors and buffers, for bufferization.",
        description: "Bufferization turns values of tensor type into buffers (memrefs); where a \
tensor value meets a buffer before the conversion is complete, these casts stand between them.\n\n\
```mlir\n%t = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>\n\
%m2 = bufferization.to_buffer %t read_only : tensor<4xf32> to memref<4xf32>\n```",
        ops: &OPS,
        ..DialectDef::new("bufferization")
    }
}

/// Registers the `bufferization` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

/// Renders `docs/dialects/bufferization.md` from the declarations.
pub fn render_docs() -> String {
    nart_ir::docs::render_dialect_docs(&dialect())
}

#[cfg(test)]
mod tests {
    use nart_ir::printer::{print_op, PrintOptions};
    use nart_ir::Context;

    fn ctx() -> Context {
        let mut ctx = Context::new();
        nart_dialect_func::register(&mut ctx);
        crate::register(&mut ctx);
        ctx
    }

    fn check(src: &str) -> Result<String, String> {
        let mut ctx = ctx();
        let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", src)
            .map_err(|d| d[0].message.clone())?;
        nart_ir::verify::verify(&ctx, m).map_err(|d| d[0].message.clone())?;
        Ok(print_op(&ctx, m, &PrintOptions::default()))
    }

    #[test]
    fn casts_round_trip_in_upstream_syntax() {
        let src = "func.func @f(%m: memref<4xf32>, %t: tensor<2x3xf32>) -> (tensor<4xf32>, memref<2x3xf32>) {
  %0 = bufferization.to_tensor %m restrict writable : memref<4xf32> to tensor<4xf32>
  %1 = bufferization.to_buffer %t read_only : tensor<2x3xf32> to memref<2x3xf32>
  %2 = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  return %0, %1 : tensor<4xf32>, memref<2x3xf32>
}
";
        let out = check(src).unwrap();
        assert!(out.contains(
            "%0 = bufferization.to_tensor %arg0 restrict writable : memref<4xf32> to tensor<4xf32>"
        ));
        assert!(out.contains(
            "%1 = bufferization.to_buffer %arg1 read_only : tensor<2x3xf32> to memref<2x3xf32>"
        ));
        assert!(out.contains("%2 = bufferization.to_tensor %arg0 : memref<4xf32> to tensor<4xf32>"));
        assert_eq!(check(&out).unwrap(), out);
    }

    #[test]
    fn mismatched_types_are_rejected_as_upstream_does() {
        // mlir-opt 22 gives this message too (after a first one naming the shape or the
        // element type).
        let message = "failed to verify that specified tensor and buffer types match";
        for (from, to, op) in [
            ("memref<4xf32>", "tensor<5xf32>", "to_tensor"),
            ("memref<4xf32>", "tensor<4xf16>", "to_tensor"),
            ("tensor<4xf32>", "memref<*xf32>", "to_buffer"),
        ] {
            let src = format!(
                "func.func @f(%a: {from}) {{\n  %0 = bufferization.{op} %a : {from} to {to}\n  return\n}}\n"
            );
            let err = check(&src).unwrap_err();
            assert!(err.contains(message), "{op} {from} -> {to}: {err}");
        }
        let src = "func.func @f(%a: tensor<4xf32>) {\n  %0 = bufferization.to_tensor %a : tensor<4xf32> to tensor<4xf32>\n  return\n}\n";
        assert!(check(src).unwrap_err().contains("memref"));
    }
}

/// `docs/dialects/bufferization.md` is generated; `NART_BLESS=1` rewrites it.
#[cfg(test)]
#[test]
fn docs_are_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/dialects/bufferization.md");
    if let Err(e) =
        nart_ir::docs::check_generated_file(&path, &render_docs(), "nart-dialect-bufferization")
    {
        panic!("{e}");
    }
}
