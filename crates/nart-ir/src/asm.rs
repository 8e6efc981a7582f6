//! Custom op syntax: hand-written hooks ([`CustomParseFn`], [`CustomPrintFn`]) and the
//! interpreter of MLIR's declarative assembly format.
//!
//! # Choosing the form of an op
//!
//! For a registered op the parser and printer use, in this order: the `parse`/`print` hooks of
//! its [`OpDef`](crate::OpDef), else its `assembly_format` string, else the generic form
//! `"d.op"(%a) : (i32) -> i32`. With [`PrintOptions::generic`](crate::printer::PrintOptions)
//! every op prints generically.
//!
//! # Declarative assembly format
//!
//! `assembly_format` is written as in MLIR ODS and interpreted at run time (compiled once per
//! op definition and cached). Supported directives: `$operand`, `$attr`, `$region`,
//! `$successor`, `attr-dict`, `attr-dict-with-keyword`, `type($x)` (also for variadic operands
//! and for results: `type($result)`), `type(operands)`, `type(results)`,
//! `functional-type(operands, results)`, `operands`, `regions`, `successors`, `qualified(...)`,
//! literals in backticks (`` `,` `` `` `:` `` `` `to` `` `` `(` ``), and optional groups
//! `( ... )?` anchored with `^` (or on their first variable). Results are never spelled: they
//! come from `%r = ...`. Operand types that the format does not spell are taken from the result
//! type when the op has the `SameOperandsAndResultType` trait (and result types from the
//! operand types). A `$sym_name` attribute is written as `@name`. `custom<...>` directives and
//! else-groups are not supported: such ops print generically. Example (`arith.addi`):
//!
//! ```text
//! $lhs `,` $rhs attr-dict `:` type($result)      →   %2 = arith.addi %0, %1 : i32
//! ```
//!
//! # Writing hooks
//!
//! A parse hook runs after the op name; it reads the rest of the op (the driver reads the
//! trailing `loc(...)`) and fills the [`OperationState`](crate::OperationState): operand values,
//! result types, properties (inherent attributes), discardable attributes, regions, successors.
//! A print hook runs after `%results = name` has been written and writes the rest, starting
//! with a space (MLIR's convention: `p << ' ' << ...`). A sketch for
//! `arith.cmpi slt, %a, %b : i32` (predicate stored as an `i64` property):
//!
//! ```
//! use nart_ir::asm::{OpAsmParser, OpAsmPrinter};
//! use nart_ir::{Diagnostic, Op, OperationState};
//!
//! const PREDICATES: [&str; 10] = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];
//!
//! fn parse_cmpi(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> Result<(), Diagnostic> {
//!     let pred = p.parse_keyword_of(&PREDICATES)?;
//!     p.parse_comma()?;
//!     let lhs = p.parse_operand()?;
//!     p.parse_comma()?;
//!     let rhs = p.parse_operand()?;
//!     p.parse_optional_attr_dict(st)?;
//!     let ty = p.parse_colon_type()?;
//!     let i64t = p.ctx().i64_type();
//!     let pred_attr = p.ctx().int_attr(i64t, pred as i128);
//!     *st = st.clone().prop(p.ctx(), "predicate", pred_attr);
//!     p.resolve_operands_same(&[lhs, rhs], ty, &mut st.operands);
//!     let i1 = p.ctx().i1_type();
//!     st.result_types.push(i1);
//!     Ok(())
//! }
//!
//! fn print_cmpi(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
//!     let pred = p.ctx().attr(op, "predicate").and_then(|a| p.ctx().attr_int(a)).unwrap_or(0);
//!     p.write_str(" ");
//!     p.print_keyword(PREDICATES.get(pred as usize).copied().unwrap_or("eq"));
//!     p.write_str(", ");
//!     let operands = p.ctx().operands(op).to_vec();
//!     p.print_operands(&operands);
//!     p.print_optional_attr_dict(op, &["predicate"]);
//!     p.write_str(" : ");
//!     let ty = p.ctx().value_type(operands[0]);
//!     p.print_type(ty);
//!     Ok(())
//! }
//! # let _ = (parse_cmpi as nart_ir::asm::CustomParseFn, print_cmpi as nart_ir::asm::CustomPrintFn);
//! ```
//!
//! A function-like op reads its signature with [`OpAsmParser::parse_argument_list`] and its body
//! with [`OpAsmParser::parse_region`] passing the arguments, and prints the body with
//! [`OpAsmPrinter::print_region`]`(r, false, false)` after printing the arguments itself with
//! [`OpAsmPrinter::print_block_arg_decl`].
//!
//! # Default dialect
//!
//! Inside the regions of an op that implements [`OpAsmOpInterface`] (`func.func`, whose default
//! dialect is `func`), custom op names may omit that dialect's prefix (`return`), and the
//! printer omits it there, as in MLIR. The top level's default dialect is `builtin` (so
//! `module` needs no prefix there, and `builtin.module` does inside a function); the regions of
//! other ops in custom form have none, and those of an op in generic form keep the enclosing
//! one when parsed and have none when printed, as upstream's parser and printer do.

use std::cell::RefCell;
use std::rc::Rc;

pub use crate::parser::{
    Argument, AsmParser, Delimiter, OpAsmParser, SourcePos, UnresolvedOperand,
};
pub use crate::printer::OpAsmPrinter;
use crate::registry::OpDef;
use crate::{Diagnostic, NamedAttr, Op, OperationState};

/// Upstream's `OpAsmOpInterface`, for the default dialect of the regions of an op in custom
/// form (see the module docs).
pub trait OpAsmOpInterface: Sync {
    /// The dialect whose ops are written without their prefix in this op's regions.
    fn default_dialect(&self) -> &'static str;
}

/// The [`OpAsmOpInterface`] implementation that names a dialect:
/// `interface_impl!(OpAsmOpInterface => DefaultDialect("func"))`.
pub struct DefaultDialect(pub &'static str);

impl OpAsmOpInterface for DefaultDialect {
    fn default_dialect(&self) -> &'static str {
        self.0
    }
}

/// The default dialect of the regions of the ops named `name` in custom form: `""` for none.
pub(crate) fn default_dialect_of(ctx: &crate::Context, name: crate::Ident) -> &'static str {
    ctx.op_interface_by_name::<dyn OpAsmOpInterface>(name)
        .map_or("", |i| i.default_dialect())
}

/// A hand-written custom parser: reads the op's text after its name into `state`.
pub type CustomParseFn =
    fn(&mut OpAsmParser<'_, '_>, &mut crate::OperationState) -> Result<(), crate::Diagnostic>;

/// A hand-written custom printer: prints the op after its name (and after `%results = `).
pub type CustomPrintFn = fn(&mut OpAsmPrinter<'_>, crate::Op) -> std::fmt::Result;

pub(crate) use nart_asm_format::Elem as FElem;

type Compiled = Rc<Result<Vec<FElem>, String>>;

thread_local! {
    static CACHE: RefCell<rustc_hash::FxHashMap<usize, Compiled>> = RefCell::new(Default::default());
}

/// The compiled assembly format of `def` (cached per definition).
pub(crate) fn compiled_format(def: &'static OpDef) -> Option<Compiled> {
    let fmt = def.assembly_format?;
    let key = def as *const OpDef as usize;
    Some(CACHE.with(|c| {
        if let Some(v) = c.borrow().get(&key) {
            return v.clone();
        }
        let v = Rc::new(compile_format(def, fmt));
        c.borrow_mut().insert(key, v.clone());
        v
    }))
}

/// Whether `def`'s assembly format can be used (parses and uses only supported directives).
pub fn format_is_supported(def: &'static OpDef) -> bool {
    compiled_format(def).is_some_and(|c| c.is_ok())
}

/// Compiles `def`'s assembly format (if it has one) and says what is wrong with it.
pub fn check_format(def: &'static OpDef) -> Result<(), String> {
    match compiled_format(def) {
        Some(c) => c.as_ref().as_ref().map(|_| ()).map_err(Clone::clone),
        None => Ok(()),
    }
}

/// The signature a format of `def` may refer to.
pub(crate) fn signature(def: &OpDef) -> nart_asm_format::Signature<'static> {
    nart_asm_format::Signature {
        operands: def.operands.iter().map(|o| (o.name, o.arity)).collect(),
        results: def.results.iter().map(|o| (o.name, o.arity)).collect(),
        attrs: def.attrs.iter().map(|a| a.name).collect(),
        regions: def.regions.iter().map(|r| r.name).collect(),
        has_successors: def.num_successors != Some(0),
        attr_sized_operand_segments: def.has_trait(crate::Trait::AttrSizedOperandSegments),
    }
}

/// Compiles an assembly format string against an op definition. A format with a
/// `custom<...>` directive documents syntax the op's hooks implement; the format engine cannot
/// run it.
pub(crate) fn compile_format(def: &OpDef, fmt: &str) -> Result<Vec<FElem>, String> {
    let elems = nart_asm_format::compile(&signature(def), fmt)?;
    if nart_asm_format::has_custom(&elems) && def.parse.is_none() {
        return Err("a custom<...> directive needs the op's parse and print hooks".into());
    }
    Ok(elems)
}

// ----- builtin.module -----

/// Parses `module @name attributes {...} { ... }` (after `module`).
pub fn parse_module(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    if let Some(name) = p.parse_optional_symbol_name()? {
        let value = p.ctx().string_attr(&name);
        let name = p.ctx().ident("sym_name");
        state.props.push(NamedAttr { name, value });
    }
    p.parse_optional_attr_dict_with_keyword(state)?;
    let r = p.parse_region(&[])?;
    if p.ctx().region_blocks(r).is_empty() {
        let loc = p.ctx().unknown_loc();
        let b = p.ctx().create_block(&[], loc);
        p.ctx().append_block(r, b);
    }
    state.regions.push(r);
    Ok(())
}

/// Prints `builtin.module` as `module @name attributes {...} { ... }`.
pub fn print_module(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    if let Some(name) = crate::symbol::symbol_name(ctx, op) {
        p.write_str(" ");
        p.print_symbol_name(name);
    }
    p.print_optional_attr_dict_with_keyword(op, &["sym_name"]);
    p.write_str(" ");
    let r = ctx.region(op, 0);
    p.print_region(r, false, false);
    Ok(())
}
