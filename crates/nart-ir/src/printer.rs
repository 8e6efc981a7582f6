//! The MLIR text printer (placeholder until the full printer lands; the signatures below are the
//! contract other crates use).

use crate::{Attr, Context, Op, Type};

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in the generic form (`--mlir-print-op-generic`).
    pub generic: bool,
    /// Print locations (`--mlir-print-debuginfo`).
    pub debug_info: bool,
    /// Elide dense elements attributes with more elements than this
    /// (`--mlir-elide-elementsattrs-if-larger=N`).
    pub elide_elements_larger_than: Option<usize>,
}

/// The printer state exposed to custom op printers.
pub struct OpAsmPrinter<'a> {
    _p: std::marker::PhantomData<&'a ()>,
}

/// Prints `op` (usually a module) and everything in it, ending with a newline.
pub fn print_op(ctx: &Context, op: Op, opts: &PrintOptions) -> String {
    let _ = opts;
    format!("{}\n", ctx.op_name_str(op))
}

/// Prints a type in MLIR syntax.
pub fn type_to_string(ctx: &Context, ty: Type) -> String {
    format!("{:?}", ctx.type_data(ty))
}

/// Prints an attribute in MLIR syntax.
pub fn attr_to_string(ctx: &Context, attr: Attr) -> String {
    format!("{:?}", ctx.attr_data(attr))
}
