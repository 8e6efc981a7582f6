//! [`OpAsmParser`]: what a custom op parser sees. See [`crate::asm`] for a worked example.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::registry::OpDef;
use crate::{
    Attr, AttrData, Block, Context, Diagnostic, Location, NamedAttr, OperationState, Region, Type,
    Value,
};

/// An SSA use (`%x` or `%x#1`) read but not yet given a type; resolve it with
/// [`OpAsmParser::resolve_operand`] once its type is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnresolvedOperand {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) number: u32,
    pub(crate) pos: u32,
}

impl UnresolvedOperand {
    pub(crate) fn name<'s>(&self, src: &'s str) -> &'s str {
        src.get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }

    /// The result number (`#N`), 0 when absent.
    pub fn number(&self) -> u32 {
        self.number
    }
}

/// A region argument declared in a signature: `%arg0: i32 {attrs} loc(...)`.
#[derive(Clone, Debug)]
pub struct Argument {
    /// The name.
    pub ssa: UnresolvedOperand,
    /// The type (`none` until set when parsed without a type).
    pub ty: Type,
    /// The attribute dictionary written after the type, if any.
    pub attrs: Option<Attr>,
    /// The location written after it, if any.
    pub loc: Option<Location>,
}

/// A position in the text being parsed (a byte offset), to report an error there later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourcePos(u32);

impl SourcePos {
    pub(crate) fn at(pos: u32) -> SourcePos {
        SourcePos(pos)
    }
}

/// Brackets around a list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Delimiter {
    /// No brackets.
    None,
    /// `( ... )`.
    Paren,
    /// `[ ... ]`.
    Square,
    /// `< ... >`.
    LessGreater,
    /// `{ ... }`.
    Braces,
    /// `( ... )` if the list starts with `(`, otherwise nothing.
    OptionalParen,
    /// `[ ... ]` if present.
    OptionalSquare,
}

/// The parser state exposed to custom op parsers.
///
/// The op name (and `%results =`) have been read when the hook runs; the hook reads the rest
/// of the op (not the trailing `loc(...)`) and fills the [`OperationState`]. Methods named
/// `parse_optional_*` return `Ok(None)`/`Ok(false)` when the construct is absent and consume
/// nothing; the others fail with a located diagnostic.
pub struct OpAsmParser<'a, 'c> {
    base: AsmParser<'a, 'c>,
    def: &'static OpDef,
    num_results: usize,
}

/// The parser state exposed to the parse hooks of dialect types and attributes (and, through
/// [`OpAsmParser`], to custom op parsers): punctuation, keywords, numbers, strings, nested
/// types and attributes.
///
/// Methods named `parse_optional_*` return `Ok(None)`/`Ok(false)` when the construct is absent
/// and consume nothing; the others fail with a located diagnostic.
pub struct AsmParser<'a, 'c> {
    pub(crate) p: &'a mut Parser<'c>,
    /// The custom op being parsed, when this parser reads one (or a type or attribute inside
    /// one): its errors start with `custom op 'name'`, as upstream's.
    op: Option<&'static str>,
}

impl<'a, 'c> std::ops::Deref for OpAsmParser<'a, 'c> {
    type Target = AsmParser<'a, 'c>;
    fn deref(&self) -> &AsmParser<'a, 'c> {
        &self.base
    }
}

impl<'a, 'c> std::ops::DerefMut for OpAsmParser<'a, 'c> {
    fn deref_mut(&mut self) -> &mut AsmParser<'a, 'c> {
        &mut self.base
    }
}

impl<'a, 'c> AsmParser<'a, 'c> {
    pub(crate) fn new(p: &'a mut Parser<'c>) -> Self {
        AsmParser { p, op: None }
    }

    /// A parser whose errors name the custom op `op` (see [`AsmParser::emit_error`]).
    pub(crate) fn with_op(p: &'a mut Parser<'c>, op: Option<&'static str>) -> Self {
        AsmParser { p, op }
    }

    /// The context (to build types and attributes).
    pub fn ctx(&mut self) -> &mut Context {
        self.p.ctx
    }

    /// The location of the current token.
    pub fn current_location(&mut self) -> Location {
        let pos = self.p.tok.start;
        self.p.loc_at(pos)
    }

    /// An error at the current token. Inside a custom op it reads `custom op 'name' msg`, as
    /// upstream's `OpAsmParser::emitError` writes it.
    pub fn emit_error(&mut self, msg: impl Into<String>) -> Diagnostic {
        let pos = self.current_pos();
        self.emit_error_at_pos(pos, msg)
    }

    /// Where the current token starts, for an error reported later
    /// ([`AsmParser::emit_error_at_pos`]), as upstream's `getCurrentLocation`.
    pub fn current_pos(&self) -> SourcePos {
        SourcePos(self.p.tok.start)
    }

    /// An error at `pos`, prefixed like [`AsmParser::emit_error`].
    pub fn emit_error_at_pos(&mut self, pos: SourcePos, msg: impl Into<String>) -> Diagnostic {
        match self.op {
            Some(name) => self
                .p
                .err_at(pos.0, format!("custom op '{name}' {}", msg.into())),
            None => self.p.err_at(pos.0, msg),
        }
    }

    fn punct(s: &str) -> Option<Tok> {
        Some(match s {
            "(" => Tok::LParen,
            ")" => Tok::RParen,
            "[" => Tok::LSquare,
            "]" => Tok::RSquare,
            "{" => Tok::LBrace,
            "}" => Tok::RBrace,
            "<" => Tok::Less,
            ">" => Tok::Greater,
            "," => Tok::Comma,
            ":" => Tok::Colon,
            "::" => Tok::ColonColon,
            "=" => Tok::Equal,
            "->" => Tok::Arrow,
            "?" => Tok::Question,
            "*" => Tok::Star,
            "+" => Tok::Plus,
            "-" => Tok::Minus,
            "..." => Tok::Ellipsis,
            "|" => Tok::Vertical,
            _ => return None,
        })
    }

    /// Consumes the punctuation or keyword `lit` if it is next (`"("`, `"->"`, `"to"`, ...).
    pub fn parse_optional_literal(&mut self, lit: &str) -> bool {
        match Self::punct(lit) {
            Some(k) => self.p.consume_if(k),
            None => {
                if self.p.is_keyword(lit) {
                    self.p.advance();
                    true
                } else {
                    false
                }
            }
        }
    }

    /// Requires the punctuation or keyword `lit`.
    pub fn parse_literal(&mut self, lit: &str) -> PResult<()> {
        if self.parse_optional_literal(lit) {
            Ok(())
        } else {
            Err(self.p.err(format!("expected '{lit}'")))
        }
    }

    /// `,`.
    pub fn parse_comma(&mut self) -> PResult<()> {
        self.parse_literal(",")
    }

    /// Optional `,`.
    pub fn parse_optional_comma(&mut self) -> bool {
        self.p.consume_if(Tok::Comma)
    }

    /// `:`.
    pub fn parse_colon(&mut self) -> PResult<()> {
        self.parse_literal(":")
    }

    /// Optional `:`.
    pub fn parse_optional_colon(&mut self) -> bool {
        self.p.consume_if(Tok::Colon)
    }

    /// `=`.
    pub fn parse_equal(&mut self) -> PResult<()> {
        self.parse_literal("=")
    }

    /// Optional `=`.
    pub fn parse_optional_equal(&mut self) -> bool {
        self.p.consume_if(Tok::Equal)
    }

    /// `->`.
    pub fn parse_arrow(&mut self) -> PResult<()> {
        self.parse_literal("->")
    }

    /// Optional `->`.
    pub fn parse_optional_arrow(&mut self) -> bool {
        self.p.consume_if(Tok::Arrow)
    }

    /// `(`.
    pub fn parse_lparen(&mut self) -> PResult<()> {
        self.parse_literal("(")
    }

    /// Optional `(`.
    pub fn parse_optional_lparen(&mut self) -> bool {
        self.p.consume_if(Tok::LParen)
    }

    /// `)`.
    pub fn parse_rparen(&mut self) -> PResult<()> {
        self.parse_literal(")")
    }

    /// Optional `)`.
    pub fn parse_optional_rparen(&mut self) -> bool {
        self.p.consume_if(Tok::RParen)
    }

    /// `[`.
    pub fn parse_lsquare(&mut self) -> PResult<()> {
        self.parse_literal("[")
    }

    /// Optional `[`.
    pub fn parse_optional_lsquare(&mut self) -> bool {
        self.p.consume_if(Tok::LSquare)
    }

    /// `]`.
    pub fn parse_rsquare(&mut self) -> PResult<()> {
        self.parse_literal("]")
    }

    /// `<`.
    pub fn parse_less(&mut self) -> PResult<()> {
        self.parse_literal("<")
    }

    /// Optional `<`.
    pub fn parse_optional_less(&mut self) -> bool {
        self.p.consume_if(Tok::Less)
    }

    /// `>`.
    pub fn parse_greater(&mut self) -> PResult<()> {
        self.parse_literal(">")
    }

    /// Requires the keyword `kw`.
    pub fn parse_keyword(&mut self, kw: &str) -> PResult<()> {
        if self.parse_optional_keyword(kw) {
            Ok(())
        } else {
            Err(self.emit_error(format!("expected '{kw}'")))
        }
    }

    /// Consumes the keyword `kw` if it is next.
    pub fn parse_optional_keyword(&mut self, kw: &str) -> bool {
        if self.p.is_keyword(kw) {
            self.p.advance();
            true
        } else {
            false
        }
    }

    /// Reads any bare keyword (`slt`, `to`, `private`).
    pub fn parse_keyword_any(&mut self) -> PResult<String> {
        match self.parse_optional_keyword_any() {
            Some(s) => Ok(s),
            None => Err(self.emit_error("expected valid keyword")),
        }
    }

    /// Reads a bare keyword if one is next.
    pub fn parse_optional_keyword_any(&mut self) -> Option<String> {
        if self.p.is(Tok::BareIdent) {
            let s = self.p.tok_text().to_string();
            self.p.advance();
            Some(s)
        } else {
            None
        }
    }

    /// Reads a keyword that must be one of `allowed`, returning its index
    /// (for enum-like attributes such as `arith.cmpi`'s predicate).
    pub fn parse_keyword_of(&mut self, allowed: &[&str]) -> PResult<usize> {
        let pos = self.p.tok.start;
        let kw = self.parse_keyword_any()?;
        match allowed.iter().position(|a| *a == kw) {
            Some(i) => Ok(i),
            None => Err(self.emit_error_at_pos(
                SourcePos(pos),
                format!("expected one of [{}], got '{kw}'", allowed.join(", ")),
            )),
        }
    }

    /// Reads a string literal.
    pub fn parse_string(&mut self) -> PResult<String> {
        self.p.parse_string_lit()
    }

    /// Reads a string literal if one is next.
    pub fn parse_optional_string(&mut self) -> PResult<Option<String>> {
        if self.p.is(Tok::String) {
            Ok(Some(self.p.parse_string_lit()?))
        } else {
            Ok(None)
        }
    }

    /// Reads an integer literal, optionally negative.
    pub fn parse_integer(&mut self) -> PResult<i128> {
        match self.parse_optional_integer()? {
            Some(v) => Ok(v),
            None => Err(self.emit_error("expected integer value")),
        }
    }

    /// Reads an integer literal if one is next.
    pub fn parse_optional_integer(&mut self) -> PResult<Option<i128>> {
        let neg_tok = self.p.tok;
        if self.p.is(Tok::Minus) {
            let next = super::lexer::lex(self.p.b, neg_tok.end as usize);
            if next.kind != Tok::Integer {
                return Ok(None);
            }
            self.p.advance();
        } else if !self.p.is(Tok::Integer) {
            return Ok(None);
        }
        let t = self.p.tok;
        let v = self.p.int_value(t)?;
        if v > i128::MAX as u128 {
            return Err(self.p.err_at(t.start, "integer constant out of range"));
        }
        self.p.advance();
        Ok(Some(if neg_tok.kind == Tok::Minus {
            -(v as i128)
        } else {
            v as i128
        }))
    }

    /// Reads a type.
    pub fn parse_type(&mut self) -> PResult<Type> {
        self.p.parse_type()
    }

    /// Reads a type if one is next.
    pub fn parse_optional_type(&mut self) -> PResult<Option<Type>> {
        if self.p.can_start_type() {
            Ok(Some(self.p.parse_type()?))
        } else {
            Ok(None)
        }
    }

    /// Reads `: type`.
    pub fn parse_colon_type(&mut self) -> PResult<Type> {
        self.parse_colon()?;
        self.parse_type()
    }

    /// Reads a comma-separated list of types (possibly empty).
    pub fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut out = Vec::new();
        if self.p.can_start_type() {
            loop {
                out.push(self.p.parse_type()?);
                if !self.p.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Reads `: t1, t2`.
    pub fn parse_colon_type_list(&mut self) -> PResult<Vec<Type>> {
        self.parse_colon()?;
        self.parse_type_list()
    }

    /// Reads `(t1, t2)`.
    pub fn parse_paren_type_list(&mut self) -> PResult<Vec<Type>> {
        self.p.parse_paren_type_list()
    }

    /// Reads function results after an arrow: `t` or `(t1, t2)`.
    pub fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        self.p.parse_function_result_types()
    }

    /// Reads `-> results` if an arrow is next; otherwise returns an empty list.
    pub fn parse_optional_arrow_type_list(&mut self) -> PResult<Vec<Type>> {
        if self.p.consume_if(Tok::Arrow) {
            self.p.parse_function_result_types()
        } else {
            Ok(Vec::new())
        }
    }

    /// Reads an attribute.
    pub fn parse_attribute(&mut self) -> PResult<Attr> {
        self.p.parse_attribute()
    }

    /// Reads an attribute whose type the context gives: an elements literal may leave out its
    /// `: type` and then has `ty` (upstream's `parseAttribute(attr, type)`, as in
    /// `memref.global @w : memref<2xf32> = dense<[1.0, 2.0]>`).
    pub fn parse_attribute_with_type(&mut self, ty: Type) -> PResult<Attr> {
        self.p.implied_type = Some(ty);
        let r = self.p.parse_attribute();
        self.p.implied_type = None;
        r
    }

    /// Reads an attribute if one can start here.
    pub fn parse_optional_attribute(&mut self) -> PResult<Option<Attr>> {
        if self.p.can_start_attr() {
            Ok(Some(self.p.parse_attribute()?))
        } else {
            Ok(None)
        }
    }

    /// Reads `{...}` and returns its entries in written order.
    pub fn parse_attr_dict_entries(&mut self) -> PResult<Vec<NamedAttr>> {
        self.p.parse_attr_dict()
    }

    /// Reads `@name` or `@"name"` and returns the name.
    pub fn parse_symbol_name(&mut self) -> PResult<String> {
        if !self.p.is(Tok::AtIdent) {
            return Err(self.emit_error("expected valid '@'-identifier for symbol name"));
        }
        self.p.parse_symbol_name_tok()
    }

    /// Reads `@name` if present.
    pub fn parse_optional_symbol_name(&mut self) -> PResult<Option<String>> {
        if self.p.is(Tok::AtIdent) {
            Ok(Some(self.p.parse_symbol_name_tok()?))
        } else {
            Ok(None)
        }
    }

    /// Reads `@name` and returns it as a string attribute (the form `sym_name` is stored in).
    pub fn parse_symbol_name_attr(&mut self) -> PResult<Attr> {
        let s = self.parse_symbol_name()?;
        Ok(self.p.ctx.string_attr(&s))
    }

    /// Reads `loc(...)`.
    pub fn parse_location(&mut self) -> PResult<Location> {
        self.p.parse_location()
    }

    /// Whether the next token is `kind`-like text: `"{"`, `"("`, `"%"`, `"^"`, `"@"`, or a keyword.
    pub fn peek_is(&self, what: &str) -> bool {
        match what {
            "%" => self.p.is(Tok::PercentIdent),
            "^" => self.p.is(Tok::CaretIdent),
            "@" => self.p.is(Tok::AtIdent),
            _ => match Self::punct(what) {
                Some(k) => self.p.is(k),
                None => what == "{" && self.p.is(Tok::LBrace) || self.p.is_keyword(what),
            },
        }
    }

    /// Whether `attr` is a unit attribute (helper for optional keywords stored as `unit`).
    pub fn is_unit(&self, attr: Attr) -> bool {
        matches!(self.p.ctx.attr_data(attr), AttrData::Unit)
    }

    /// Whether the next token is an integer literal (optionally negative), which a float
    /// position rejects in MLIR ("unexpected decimal integer literal for a floating point
    /// value").
    pub fn peek_is_integer_literal(&self) -> bool {
        if self.p.is(Tok::Minus) {
            return super::lexer::lex(self.p.b, self.p.tok.end as usize).kind == Tok::Integer;
        }
        self.p.is(Tok::Integer)
    }

    /// Reads a float literal (`1.5`, `-2.0e-3`, `7`), as an `f64`.
    pub fn parse_float(&mut self) -> PResult<f64> {
        let neg = self.p.consume_if(Tok::Minus);
        let t = self.p.tok;
        let v = match t.kind {
            Tok::Float | Tok::Integer => self
                .p
                .text(t)
                .parse::<f64>()
                .ok()
                .or_else(|| self.p.int_value(t).ok().map(|v| v as f64)),
            _ => None,
        };
        let Some(v) = v else {
            return Err(self.p.err("expected floating point literal"));
        };
        self.p.advance();
        Ok(if neg { -v } else { v })
    }
}

impl<'a, 'c> OpAsmParser<'a, 'c> {
    pub(crate) fn new(p: &'a mut Parser<'c>, def: &'static OpDef, num_results: usize) -> Self {
        OpAsmParser {
            base: AsmParser::with_op(p, Some(def.name)),
            def,
            num_results,
        }
    }

    /// The definition of the op being parsed.
    pub fn op_def(&self) -> &'static OpDef {
        self.def
    }

    /// How many results the text binds (`%a, %b:2 = ...` binds 3); 0 when none are named.
    pub fn num_results(&self) -> usize {
        self.num_results
    }

    /// An error at the location of an operand.
    pub fn emit_error_at(
        &mut self,
        operand: &UnresolvedOperand,
        msg: impl Into<String>,
    ) -> Diagnostic {
        self.base.p.err_at(operand.pos, msg)
    }

    /// Reads `%x` or `%x#N`.
    pub fn parse_operand(&mut self) -> PResult<UnresolvedOperand> {
        self.base.p.parse_unresolved_operand()
    }

    /// Reads upstream's `custom<DynamicIndexList>`: `[` (operand | integer), ... `]`, as the
    /// offsets, sizes and strides of views and slices are written. Returns the static list
    /// (an operand's entry is [`crate::DYNAMIC`]) and the operands, in order.
    pub fn parse_dynamic_index_list(&mut self) -> PResult<(Vec<i64>, Vec<UnresolvedOperand>)> {
        let mut statics = Vec::new();
        let mut dynamics = Vec::new();
        self.parse_lsquare()?;
        if self.parse_optional_literal("]") {
            return Ok((statics, dynamics));
        }
        loop {
            if let Some(o) = self.parse_optional_operand()? {
                statics.push(crate::DYNAMIC);
                dynamics.push(o);
            } else {
                let v = self.parse_integer()?;
                let Ok(v) = i64::try_from(v) else {
                    return Err(self.emit_error("integer value too large"));
                };
                statics.push(v);
            }
            if !self.parse_optional_comma() {
                break;
            }
        }
        self.parse_rsquare()?;
        Ok((statics, dynamics))
    }

    /// Reads an operand if `%` is next.
    pub fn parse_optional_operand(&mut self) -> PResult<Option<UnresolvedOperand>> {
        if self.base.p.is(Tok::PercentIdent) {
            Ok(Some(self.base.p.parse_unresolved_operand()?))
        } else {
            Ok(None)
        }
    }

    /// Reads a comma-separated list of operands, possibly empty.
    pub fn parse_operand_list(&mut self) -> PResult<Vec<UnresolvedOperand>> {
        self.parse_operand_list_delimited(Delimiter::None)
    }

    /// Reads a comma-separated operand list inside the given brackets.
    pub fn parse_operand_list_delimited(
        &mut self,
        delim: Delimiter,
    ) -> PResult<Vec<UnresolvedOperand>> {
        let close = match self.open(delim)? {
            Some(c) => c,
            None => return Ok(Vec::new()),
        };
        let mut out = Vec::new();
        if self.base.p.is(Tok::PercentIdent) {
            loop {
                out.push(self.base.p.parse_unresolved_operand()?);
                if !self.base.p.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.close(close)?;
        Ok(out)
    }

    /// Opens a delimiter; `Ok(None)` when an optional one is absent.
    fn open(&mut self, delim: Delimiter) -> PResult<Option<Option<Tok>>> {
        Ok(Some(match delim {
            Delimiter::None => None,
            Delimiter::Paren => {
                self.base.p.expect(Tok::LParen, "'('")?;
                Some(Tok::RParen)
            }
            Delimiter::Square => {
                self.base.p.expect(Tok::LSquare, "'['")?;
                Some(Tok::RSquare)
            }
            Delimiter::LessGreater => {
                self.base.p.expect(Tok::Less, "'<'")?;
                Some(Tok::Greater)
            }
            Delimiter::Braces => {
                self.base.p.expect(Tok::LBrace, "'{'")?;
                Some(Tok::RBrace)
            }
            Delimiter::OptionalParen => {
                if !self.base.p.consume_if(Tok::LParen) {
                    return Ok(None);
                }
                Some(Tok::RParen)
            }
            Delimiter::OptionalSquare => {
                if !self.base.p.consume_if(Tok::LSquare) {
                    return Ok(None);
                }
                Some(Tok::RSquare)
            }
        }))
    }

    fn close(&mut self, close: Option<Tok>) -> PResult<()> {
        if let Some(c) = close {
            let what = match c {
                Tok::RParen => "')'",
                Tok::RSquare => "']'",
                Tok::Greater => "'>'",
                _ => "'}'",
            };
            self.base.p.expect(c, what)?;
        }
        Ok(())
    }

    /// Gives `operand` its type and returns the value (creating a forward reference if the name
    /// is defined later). Type mismatches with earlier uses are reported.
    pub fn resolve_operand(&mut self, operand: &UnresolvedOperand, ty: Type) -> Value {
        let name = operand.name(self.base.p.src);
        self.base
            .p
            .resolve_value(name, operand.number, ty, operand.pos)
    }

    /// Resolves `operands` with one type each and appends them to `out`.
    pub fn resolve_operands(
        &mut self,
        operands: &[UnresolvedOperand],
        types: &[Type],
        out: &mut Vec<Value>,
    ) -> PResult<()> {
        if operands.len() != types.len() {
            let pos = operands.first().map_or(self.base.p.tok.start, |o| o.pos);
            return Err(self.base.p.err_at(
                pos,
                format!(
                    "{} operands present, but expected {}",
                    operands.len(),
                    types.len()
                ),
            ));
        }
        for (o, &t) in operands.iter().zip(types) {
            let v = self.resolve_operand(o, t);
            out.push(v);
        }
        Ok(())
    }

    /// Resolves every operand in `operands` with the same type `ty` and appends them to `out`.
    pub fn resolve_operands_same(
        &mut self,
        operands: &[UnresolvedOperand],
        ty: Type,
        out: &mut Vec<Value>,
    ) {
        for o in operands {
            let v = self.resolve_operand(o, ty);
            out.push(v);
        }
    }

    /// Reads `{...}` if present, putting inherent attributes of the op into `state.props` and
    /// the others into `state.attrs`.
    pub fn parse_optional_attr_dict(&mut self, state: &mut OperationState) -> PResult<()> {
        if !self.base.p.is(Tok::LBrace) {
            return Ok(());
        }
        let entries = self.base.p.parse_attr_dict()?;
        self.add_attrs(state, entries);
        Ok(())
    }

    /// Reads `attributes {...}` if the keyword is present.
    pub fn parse_optional_attr_dict_with_keyword(
        &mut self,
        state: &mut OperationState,
    ) -> PResult<()> {
        if self.parse_optional_keyword("attributes") {
            if !self.base.p.is(Tok::LBrace) {
                return Err(self.base.p.err("expected '{' in attribute dictionary"));
            }
            return self.parse_optional_attr_dict(state);
        }
        Ok(())
    }

    pub(crate) fn add_attrs(&mut self, state: &mut OperationState, entries: Vec<NamedAttr>) {
        for a in entries {
            if self.def.is_inherent(self.base.p.ctx.str(a.name)) {
                state.props.push(a);
            } else {
                state.attrs.push(a);
            }
        }
    }

    /// Reads `%name: type {attrs} loc(...)`; with `allow_type` false just `%name`.
    pub fn parse_argument(&mut self, allow_type: bool, allow_attrs: bool) -> PResult<Argument> {
        let ssa = self.base.p.parse_unresolved_operand()?;
        let mut ty = self.base.p.ctx.none_type();
        let mut attrs = None;
        let mut loc = None;
        if allow_type {
            self.base.p.expect(Tok::Colon, "':'")?;
            ty = self.base.p.parse_type()?;
        }
        if allow_attrs && self.base.p.is(Tok::LBrace) {
            let entries = self.base.p.parse_attr_dict()?;
            attrs = Some(self.base.p.ctx.dict_attr(entries));
        }
        if self.base.p.is_keyword("loc") {
            loc = Some(self.base.p.parse_location()?);
        }
        Ok(Argument {
            ssa,
            ty,
            attrs,
            loc,
        })
    }

    /// Reads a comma-separated list of arguments in the given brackets.
    pub fn parse_argument_list(
        &mut self,
        delim: Delimiter,
        allow_type: bool,
        allow_attrs: bool,
    ) -> PResult<Vec<Argument>> {
        let close = match self.open(delim)? {
            Some(c) => c,
            None => return Ok(Vec::new()),
        };
        let mut out = Vec::new();
        if self.base.p.is(Tok::PercentIdent) {
            loop {
                out.push(self.parse_argument(allow_type, allow_attrs)?);
                if !self.base.p.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.close(close)?;
        Ok(out)
    }

    /// Reads `{ ... }` into a new detached region whose entry block gets `args` as arguments
    /// (pass `&[]` for none). Push the result into `state.regions`.
    pub fn parse_region(&mut self, args: &[Argument]) -> PResult<Region> {
        let isolated = Parser::is_isolated(Some(self.def));
        let name = self.base.p.ctx.ident(self.def.name);
        let dd = crate::asm::default_dialect_of(self.base.p.ctx, name);
        self.base.p.parse_region(isolated, dd, args)
    }

    /// Reads a region if `{` is next.
    pub fn parse_optional_region(&mut self, args: &[Argument]) -> PResult<Option<Region>> {
        if self.base.p.is(Tok::LBrace) {
            Ok(Some(self.parse_region(args)?))
        } else {
            Ok(None)
        }
    }

    /// Reads a successor `^bb1`.
    pub fn parse_successor(&mut self) -> PResult<Block> {
        self.base.p.parse_successor_ref()
    }

    /// Reads a successor if `^` is next.
    pub fn parse_optional_successor(&mut self) -> PResult<Option<Block>> {
        if self.base.p.is(Tok::CaretIdent) {
            Ok(Some(self.base.p.parse_successor_ref()?))
        } else {
            Ok(None)
        }
    }

    /// Reads `^bb1` or `^bb1(%a, %b : i32, f32)` and returns the block and resolved operands.
    pub fn parse_successor_and_use_list(&mut self) -> PResult<(Block, Vec<Value>)> {
        let b = self.base.p.parse_successor_ref()?;
        let mut vals = Vec::new();
        if self.base.p.consume_if(Tok::LParen) {
            let ops = self.parse_operand_list()?;
            let types = if ops.is_empty() {
                Vec::new()
            } else {
                self.parse_colon_type_list()?
            };
            self.resolve_operands(&ops, &types, &mut vals)?;
            self.base.p.expect(Tok::RParen, "')'")?;
        }
        Ok((b, vals))
    }
}
