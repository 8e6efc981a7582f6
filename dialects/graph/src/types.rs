//! The graph dialect's own types: `!graph.seq<T>` (an ONNX sequence), `!graph.opt<T>` (an ONNX
//! optional) and `!graph.string` (the element type of ONNX string tensors), with typed storage
//! (see `nart_ir::extensible`).

use nart_ir::extensible::{AsmPrinter, DialectType, DialectTypeDef};
use nart_ir::parser::AsmParser;
use nart_ir::{Context, Diagnostic, Type, TypeData, Uniquer};

/// `!graph.seq<T>`: an ONNX sequence of `T` (a tensor type, or another sequence or optional).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SeqType {
    /// The element type.
    pub elem: Type,
}

/// `!graph.opt<T>`: an ONNX optional holding a `T` or nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct OptType {
    /// The type of the value when present.
    pub elem: Type,
}

/// `!graph.string`: the element type of ONNX string tensors.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct StringType;

/// The declaration of `!graph.seq`.
pub static SEQ: DialectTypeDef = DialectTypeDef {
    dialect: "graph",
    mnemonic: "seq",
    summary: "an ONNX sequence of values of one type",
    syntax: "!graph.seq<T>",
    parse: |p| {
        let elem = parse_param(p)?;
        Ok(p.ctx().dialect_type(SeqType { elem }))
    },
};

/// The declaration of `!graph.opt`.
pub static OPT: DialectTypeDef = DialectTypeDef {
    dialect: "graph",
    mnemonic: "opt",
    summary: "an ONNX optional: a value of one type, or none",
    syntax: "!graph.opt<T>",
    parse: |p| {
        let elem = parse_param(p)?;
        Ok(p.ctx().dialect_type(OptType { elem }))
    },
};

/// The declaration of `!graph.string`.
pub static STRING: DialectTypeDef = DialectTypeDef {
    dialect: "graph",
    mnemonic: "string",
    summary: "the element type of ONNX string tensors",
    syntax: "!graph.string",
    parse: |p| Ok(p.ctx().dialect_type(StringType)),
};

/// Every type of the dialect.
pub static TYPES: [&DialectTypeDef; 3] = [&SEQ, &OPT, &STRING];

fn parse_param(p: &mut AsmParser<'_, '_>) -> Result<Type, Diagnostic> {
    p.parse_less()?;
    let t = p.parse_type()?;
    p.parse_greater()?;
    Ok(t)
}

fn print_param(p: &mut AsmPrinter<'_>, t: Type) {
    p.write_str("<");
    p.print_type(t);
    p.write_str(">");
}

/// Sequence and optional elements are tensors, sequences or optionals (ONNX's type system).
fn check_container_elem(ctx: &Context, elem: Type) -> Result<(), String> {
    match ctx.type_data(elem) {
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. } => Ok(()),
        d if d.downcast::<SeqType>().is_some() || d.downcast::<OptType>().is_some() => Ok(()),
        _ => Err(format!(
            "sequence and optional elements must be tensors, sequences or optionals, got '{}'",
            nart_ir::printer::type_to_string(ctx, elem)
        )),
    }
}

impl DialectType for SeqType {
    fn def(&self) -> &'static DialectTypeDef {
        &SEQ
    }
    fn print(&self, p: &mut AsmPrinter<'_>) {
        print_param(p, self.elem);
    }
    fn verify(&self, ctx: &Context) -> Result<(), String> {
        check_container_elem(ctx, self.elem)
    }
}

impl DialectType for OptType {
    fn def(&self) -> &'static DialectTypeDef {
        &OPT
    }
    fn print(&self, p: &mut AsmPrinter<'_>) {
        print_param(p, self.elem);
    }
    fn verify(&self, ctx: &Context) -> Result<(), String> {
        check_container_elem(ctx, self.elem)
    }
}

impl DialectType for StringType {
    fn def(&self) -> &'static DialectTypeDef {
        &STRING
    }
    fn print(&self, _: &mut AsmPrinter<'_>) {}
}

/// `!graph.seq<elem>`.
pub fn seq_type(ctx: &mut Uniquer, elem: Type) -> Type {
    ctx.dialect_type(SeqType { elem })
}

/// `!graph.opt<elem>`.
pub fn opt_type(ctx: &mut Uniquer, elem: Type) -> Type {
    ctx.dialect_type(OptType { elem })
}

/// `!graph.string`.
pub fn string_type(ctx: &mut Uniquer) -> Type {
    ctx.dialect_type(StringType)
}

/// The element type of `ty` if it is a sequence.
pub fn seq_elem(ctx: &Context, ty: Type) -> Option<Type> {
    ctx.type_as::<SeqType>(ty).map(|s| s.elem)
}

/// The element type of `ty` if it is an optional.
pub fn opt_elem(ctx: &Context, ty: Type) -> Option<Type> {
    ctx.type_as::<OptType>(ty).map(|s| s.elem)
}

/// Whether `ty` is `!graph.string`.
pub fn is_string(ctx: &Context, ty: Type) -> bool {
    ctx.type_as::<StringType>(ty).is_some()
}
