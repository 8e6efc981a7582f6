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
//! Inside the regions of an op of the `func` dialect (such as `func.func`), custom op names
//! may omit the `func.` prefix (`return`), and the printer omits it there. A bare name is looked
//! up as `<default dialect>.name`, then as `builtin.name` (so `module` works everywhere).
//! Other ops reset the default dialect for their regions, as in MLIR.

use std::cell::RefCell;
use std::rc::Rc;

pub use crate::parser::{Argument, AsmParser, Delimiter, OpAsmParser, UnresolvedOperand};
pub use crate::printer::OpAsmPrinter;
use crate::registry::{Arity, OpDef};
use crate::{Diagnostic, NamedAttr, Op, OperationState};

/// A hand-written custom parser: reads the op's text after its name into `state`.
pub type CustomParseFn =
    fn(&mut OpAsmParser<'_, '_>, &mut crate::OperationState) -> Result<(), crate::Diagnostic>;

/// A hand-written custom printer: prints the op after its name (and after `%results = `).
pub type CustomPrintFn = fn(&mut OpAsmPrinter<'_>, crate::Op) -> std::fmt::Result;

/// One element of a compiled assembly format.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FElem {
    Lit(String),
    Operand(usize),
    Result(usize),
    Attr(usize),
    Region(usize),
    Successor(usize),
    AttrDict(bool),
    Operands,
    Results,
    Regions,
    Successors,
    Type(Box<FElem>),
    FunctionalType(Box<FElem>, Box<FElem>),
    Optional {
        elems: Vec<FElem>,
        anchor: Box<FElem>,
    },
}

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

#[derive(Clone, Debug, PartialEq)]
enum FTok {
    Lit(String),
    Var(String),
    Word(String),
    Punct(char),
}

fn tokenize(fmt: &str) -> Result<Vec<FTok>, String> {
    let b = fmt.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'`' => {
                let s = i + 1;
                let e = fmt[s..].find('`').ok_or("unterminated literal")? + s;
                out.push(FTok::Lit(fmt[s..e].to_string()));
                i = e + 1;
            }
            b'$' => {
                let s = i + 1;
                let mut e = s;
                while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
                    e += 1;
                }
                out.push(FTok::Var(fmt[s..e].to_string()));
                i = e;
            }
            b'(' | b')' | b'?' | b'^' | b',' | b':' | b'<' | b'>' => {
                out.push(FTok::Punct(c as char));
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-')
                {
                    i += 1;
                }
                out.push(FTok::Word(fmt[s..i].to_string()));
            }
            _ => {
                return Err(format!(
                    "unexpected character '{}' in assembly format",
                    c as char
                ))
            }
        }
    }
    Ok(out)
}

struct Compiler<'d> {
    def: &'d OpDef,
    toks: Vec<FTok>,
    pos: usize,
    successors: Vec<String>,
}

impl Compiler<'_> {
    fn peek(&self) -> Option<&FTok> {
        self.toks.get(self.pos)
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.peek() == Some(&FTok::Punct(c)) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected '{c}' in assembly format"))
        }
    }

    fn var(&mut self, name: &str, in_type: bool) -> Result<FElem, String> {
        let d = self.def;
        if let Some(i) = d.operands.iter().position(|o| o.name == name) {
            return Ok(FElem::Operand(i));
        }
        if let Some(i) = d.results.iter().position(|o| o.name == name) {
            if !in_type {
                return Err(format!(
                    "result '${name}' can only be used in a type directive"
                ));
            }
            return Ok(FElem::Result(i));
        }
        if let Some(i) = d.attrs.iter().position(|o| o.name == name) {
            return Ok(FElem::Attr(i));
        }
        if let Some(i) = d.regions.iter().position(|o| o.name == name) {
            return Ok(FElem::Region(i));
        }
        if d.num_successors != Some(0) {
            let i = match self.successors.iter().position(|s| s == name) {
                Some(i) => i,
                None => {
                    self.successors.push(name.to_string());
                    self.successors.len() - 1
                }
            };
            return Ok(FElem::Successor(i));
        }
        Err(format!("unknown variable '${name}' in assembly format"))
    }

    fn type_arg(&mut self) -> Result<FElem, String> {
        match self.toks.get(self.pos).cloned() {
            Some(FTok::Var(v)) => {
                self.pos += 1;
                let e = self.var(&v, true)?;
                match e {
                    FElem::Operand(_) | FElem::Result(_) => Ok(e),
                    _ => Err(format!("'${v}' is not an operand or result")),
                }
            }
            Some(FTok::Word(w)) if w == "operands" => {
                self.pos += 1;
                Ok(FElem::Operands)
            }
            Some(FTok::Word(w)) if w == "results" => {
                self.pos += 1;
                Ok(FElem::Results)
            }
            _ => Err("expected an operand or result in a type directive".into()),
        }
    }

    /// Elements until `)` or the end; records an anchor marked `^`.
    fn elems(&mut self, anchor: &mut Option<FElem>) -> Result<Vec<FElem>, String> {
        let mut out = Vec::new();
        while let Some(t) = self.peek().cloned() {
            match t {
                FTok::Punct(')') => break,
                FTok::Lit(s) => {
                    self.pos += 1;
                    out.push(FElem::Lit(s));
                }
                FTok::Var(v) => {
                    self.pos += 1;
                    let e = self.var(&v, false)?;
                    if self.peek() == Some(&FTok::Punct('^')) {
                        self.pos += 1;
                        *anchor = Some(e.clone());
                    }
                    out.push(e);
                }
                FTok::Punct('(') => {
                    self.pos += 1;
                    let mut inner_anchor = None;
                    let inner = self.elems(&mut inner_anchor)?;
                    self.expect(')')?;
                    if self.peek() == Some(&FTok::Punct(':')) {
                        return Err("else-groups are not supported".into());
                    }
                    self.expect('?')?;
                    let anchor = match inner_anchor {
                        Some(a) => a,
                        None => inner
                            .iter()
                            .find(|e| !matches!(e, FElem::Lit(_)))
                            .cloned()
                            .ok_or("optional group without a variable")?,
                    };
                    if inner.is_empty() {
                        return Err("empty optional group".into());
                    }
                    out.push(FElem::Optional {
                        elems: inner,
                        anchor: Box::new(anchor),
                    });
                }
                FTok::Word(w) => {
                    self.pos += 1;
                    let e = match w.as_str() {
                        "attr-dict" => FElem::AttrDict(false),
                        "attr-dict-with-keyword" => FElem::AttrDict(true),
                        "operands" => FElem::Operands,
                        "results" => {
                            return Err("'results' can only be used in a type directive".into())
                        }
                        "regions" => FElem::Regions,
                        "successors" => FElem::Successors,
                        "type" => {
                            self.expect('(')?;
                            let a = self.type_arg()?;
                            self.expect(')')?;
                            FElem::Type(Box::new(a))
                        }
                        "functional-type" => {
                            self.expect('(')?;
                            let a = self.type_arg()?;
                            self.expect(',')?;
                            let b = self.type_arg()?;
                            self.expect(')')?;
                            FElem::FunctionalType(Box::new(a), Box::new(b))
                        }
                        "qualified" => {
                            self.expect('(')?;
                            let mut a = None;
                            let inner = self.elems(&mut a)?;
                            self.expect(')')?;
                            if let Some(a) = a {
                                *anchor = Some(a);
                            }
                            out.extend(inner);
                            continue;
                        }
                        other => {
                            return Err(format!(
                                "unsupported directive '{other}' in assembly format"
                            ))
                        }
                    };
                    if self.peek() == Some(&FTok::Punct('^')) {
                        self.pos += 1;
                        *anchor = Some(e.clone());
                    }
                    out.push(e);
                }
                FTok::Punct(c) => return Err(format!("unexpected '{c}' in assembly format")),
            }
        }
        Ok(out)
    }
}

/// Compiles an assembly format string against an op definition.
pub(crate) fn compile_format(def: &OpDef, fmt: &str) -> Result<Vec<FElem>, String> {
    let toks = tokenize(fmt)?;
    let mut c = Compiler {
        def,
        toks,
        pos: 0,
        successors: Vec::new(),
    };
    let mut anchor = None;
    let elems = c.elems(&mut anchor)?;
    if c.pos != c.toks.len() {
        return Err("unbalanced ')' in assembly format".into());
    }
    if def
        .operands
        .iter()
        .filter(|o| o.arity != Arity::Single)
        .count()
        > 1
        && !def.has_trait(crate::Trait::AttrSizedOperandSegments)
    {
        return Err("several variadic operands need AttrSizedOperandSegments".into());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{constraints as c, ValueDef};

    static ADD: OpDef = OpDef {
        name: "t.add",
        operands: &[
            ValueDef {
                name: "lhs",
                constraint: c::ANY,
                arity: Arity::Single,
            },
            ValueDef {
                name: "rhs",
                constraint: c::ANY,
                arity: Arity::Single,
            },
        ],
        results: &[ValueDef {
            name: "result",
            constraint: c::ANY,
            arity: Arity::Single,
        }],
        ..OpDef::DEFAULT
    };

    #[test]
    fn compiles_formats() {
        let f = compile_format(&ADD, "$lhs `,` $rhs attr-dict `:` type($result)").unwrap();
        assert_eq!(
            f,
            vec![
                FElem::Operand(0),
                FElem::Lit(",".into()),
                FElem::Operand(1),
                FElem::AttrDict(false),
                FElem::Lit(":".into()),
                FElem::Type(Box::new(FElem::Result(0))),
            ]
        );
        let g = compile_format(&ADD, "(`x` $lhs^)? attr-dict").unwrap();
        assert!(matches!(&g[0], FElem::Optional { anchor, .. } if **anchor == FElem::Operand(0)));
        assert!(compile_format(&ADD, "custom<Foo>($lhs)").is_err());
        assert!(compile_format(&ADD, "$nope").is_err());
    }
}
