//! The hand-written ops of the graph dialect: `graph.constant`, `graph.none` and `graph.yield`,
//! and the constant materializer used by folding.

use nart_ir::registry::{constraints as c, Arity, AttrDef, OpDef, Trait, ValueDef};
use nart_ir::{Attr, AttrData, Context, Diagnostic, Location, Op, OperationState, Type};

/// `graph.constant`: a tensor constant (ONNX initializers and `Constant` nodes).
pub static CONSTANT: OpDef = OpDef {
    name: "graph.constant",
    summary: "A constant tensor",
    description: "Holds a tensor value in its `value` attribute; the result has the attribute's type.\n\
The importer turns every ONNX initializer and every `Constant` node into one of these.\n\n\
```mlir\n%w = \"graph.constant\"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>\n```",
    results: &[ValueDef {
        name: "output",
        constraint: c::ANY,
        arity: Arity::Single,
    }],
    attrs: &[AttrDef {
        default: None,
        name: "value",
        constraint: crate::constraints::ELEMENTS_ATTR,
        optional: false,
        doc: "The tensor value.",
    }],
    traits: &[Trait::Pure, Trait::ConstantLike],
    interfaces: &[nart_ir::interface_impl!(
        nart_ir::interfaces::ConstantOpInterface => nart_ir::interfaces::ValueProperty
    )],
    verify: Some(verify_constant),
    fold: Some(fold_constant),
    ..OpDef::DEFAULT
};

fn verify_constant(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(value) = ctx.attr(op, "value") else {
        return Err(ctx.op_error(op, "requires attribute 'value'"));
    };
    let attr_ty = ctx.typed_attr_type(value);
    let res_ty = ctx.value_type(ctx.result(op, 0));
    if attr_ty != Some(res_ty) {
        return Err(ctx.op_error(
            op,
            format!(
                "result type {} does not match the type of the 'value' attribute",
                crate::infer::fmt_type(ctx, res_ty)
            ),
        ));
    }
    Ok(())
}

fn fold_constant(ctx: &mut Context, op: Op, _: &[Option<Attr>]) -> nart_ir::registry::FoldOutcome {
    match ctx.attr(op, "value") {
        Some(v) => {
            nart_ir::registry::FoldOutcome::Replace(vec![nart_ir::registry::FoldResult::Attr(v)])
        }
        None => nart_ir::registry::FoldOutcome::None,
    }
}

/// `graph.none`: the value of an absent optional input or output.
pub static NONE: OpDef = OpDef {
    name: "graph.none",
    summary: "The absent value of an optional operand",
    description:
        "ONNX marks an optional input as absent with an empty name; nart passes the result \
of one `graph.none` (of type `none`) in that position, so every op keeps all its operands in \
schema order.\n\n```mlir\n%none = \"graph.none\"() : () -> none\n\
%y = \"graph.Clip\"(%x, %none, %max) : (tensor<4xf32>, none, tensor<f32>) -> tensor<4xf32>\n```",
    results: &[ValueDef {
        name: "none",
        constraint: nart_ir::registry::TypeConstraint {
            buildable: None,
            desc: "none type",
            check: |ctx, ty| matches!(ctx.type_data(ty), nart_ir::TypeData::None),
        },
        arity: Arity::Single,
    }],
    traits: &[Trait::Pure],
    ..OpDef::DEFAULT
};

/// `graph.yield`: ends the body of `graph.If`, `graph.Loop`, `graph.Scan` and
/// `graph.SequenceMap`, returning the subgraph's outputs.
pub static YIELD: OpDef = OpDef {
    name: "graph.yield",
    summary: "Returns the outputs of an ONNX subgraph",
    description: "Terminates the single block of a region that holds an ONNX subgraph; its operands \
are the subgraph's outputs, in order.\n\n```mlir\n\"graph.yield\"(%a, %b) : (tensor<f32>, tensor<2xf32>) -> ()\n```",
    operands: &[ValueDef {
        name: "values",
        constraint: c::ANY,
        arity: Arity::Variadic,
    }],
    traits: &[Trait::Pure, Trait::Terminator, Trait::ReturnLike],
    // The ops whose regions hold ONNX subgraphs; a `func.func` ends in `func.return`.
    parents: &["graph.If", "graph.Loop", "graph.Scan", "graph.SequenceMap"],
    ..OpDef::DEFAULT
};

/// Builds a detached `graph.constant` for `value` (the dialect's materializer).
pub fn materialize_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    if !matches!(
        ctx.attr_data(value),
        AttrData::DenseElements { .. } | AttrData::DenseResource { .. }
    ) || ctx.typed_attr_type(value) != Some(ty)
    {
        return None;
    }
    let state = OperationState::new(ctx, "graph.constant", loc)
        .results(&[ty])
        .prop(ctx, "value", value);
    Some(ctx.create_op(state))
}
