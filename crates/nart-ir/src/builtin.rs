//! The `builtin` dialect: `builtin.module` and `builtin.unrealized_conversion_cast`.

use crate::asm::{DefaultDialect, OpAsmOpInterface};
use crate::registry::{
    constraints as c, Arity, AttrDef, DialectDef, OpDef, RegionDef, Trait, ValueDef,
};
use crate::{Context, Location, Op, OperationState};

/// `builtin.module`: the top-level container of a program.
pub static MODULE: OpDef = OpDef {
    name: "builtin.module",
    summary: "A top level container operation",
    description: "A `module` holds one region with one block of ops, which need no terminator.\n\
It is a symbol table, and may itself be named.\n\n\
```mlir\nmodule @m {\n  func.func @f() { return }\n}\n```",
    attrs: &[
        AttrDef {
            default: None,
            name: "sym_name",
            constraint: c::SYMBOL_NAME_ATTR,
            optional: true,
            doc: "The module's symbol name.",
        },
        AttrDef {
            default: None,
            name: "sym_visibility",
            constraint: c::STRING_ATTR,
            optional: true,
            doc: "Symbol visibility.",
        },
    ],
    regions: &[RegionDef {
        name: "bodyRegion",
        single_block: true,
        may_be_empty: false,
    }],
    traits: &[
        Trait::IsolatedFromAbove,
        Trait::NoTerminator,
        Trait::SymbolTable,
        Trait::Symbol,
        Trait::SingleBlock,
        Trait::GraphRegion,
    ],
    parse: Some(crate::asm::parse_module),
    print: Some(crate::asm::print_module),
    interfaces: &[crate::interface_impl!(OpAsmOpInterface => DefaultDialect("builtin"))],
    ..OpDef::DEFAULT
};

/// `builtin.unrealized_conversion_cast`: a placeholder cast between type systems during
/// partial conversions.
pub static UNREALIZED_CONVERSION_CAST: OpDef = OpDef {
    name: "builtin.unrealized_conversion_cast",
    summary: "An unrealized conversion from one set of types to another",
    description: "Stands for a conversion that a later pass will resolve.\n\n\
```mlir\n%1 = builtin.unrealized_conversion_cast %0 : i32 to i64\n```",
    operands: &[ValueDef {
        name: "inputs",
        constraint: c::ANY,
        arity: Arity::Variadic,
    }],
    results: &[ValueDef {
        name: "outputs",
        constraint: c::ANY,
        arity: Arity::Variadic,
    }],
    traits: &[Trait::Pure],
    assembly_format: Some("($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict"),
    ..OpDef::DEFAULT
};

static OPS: [&OpDef; 2] = [&MODULE, &UNREALIZED_CONVERSION_CAST];

/// Registers the builtin dialect (done by [`Context::new`]).
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(DialectDef {
        name: "builtin",
        summary: "The builtin dialect: the module container and the builtin types and attributes.",
        description: "Holds `builtin.module`, which every nart program lives in, and \
`builtin.unrealized_conversion_cast`. Builtin types and attributes keep MLIR's spelling.",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &[],
        enums: &[],
    });
}

/// Creates an empty `builtin.module` (one region, one block), detached.
pub fn create_module(ctx: &mut Context, loc: Location) -> Op {
    let region = ctx.create_region();
    let block = ctx.create_block(&[], loc);
    ctx.append_block(region, block);
    let state = OperationState::new(ctx, "builtin.module", loc).regions(&[region]);
    ctx.create_op(state)
}

/// The single block of a module.
pub fn module_body(ctx: &Context, module: Op) -> crate::Block {
    ctx.region_blocks(ctx.region(module, 0))[0]
}
