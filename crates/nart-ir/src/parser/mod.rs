//! The MLIR text parser: generic and custom op forms, builtin types and attributes, locations,
//! aliases and the resource section.
//!
//! The entry point is [`parse_source`]. Custom op syntax is read by the op's hook through
//! [`OpAsmParser`] (see [`crate::asm`] for how to write one), or by the interpreter of the op's
//! declarative `assembly_format`.
//!
//! Error handling: as upstream's parser, the parse stops at the first error, with upstream's
//! message at upstream's place. A syntax error stops it at once; a semantic one (an undeclared
//! or redefined SSA name, a type mismatch between uses) at the end of the op it is found in,
//! and only errors found together are reported together (every undefined block of a region,
//! every undeclared name), so one mistake never cascades into others. Every diagnostic points
//! at the offending token as `loc("file":line:col)`.
//!
//! The parser never panics and stays bounded, whatever the input: nesting is limited to
//! [`MAX_DEPTH`] levels and affine expressions to 1000, the uses of aliases may expand to at
//! most [`MAX_ALIAS_EXPANSION`] elements, and the chunks of `--split-input-file` cost nothing per
//! line before them ([`parse_chunk`], or the leading empty lines of a padded chunk).

mod asm_parser;
mod attrs;
mod format;
pub(crate) mod lexer;
pub(crate) mod num;
mod types;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::context::ResourceValue;
use crate::registry::{OpDef, Trait};
use crate::{
    Attr, Block, Context, Diagnostic, Ident, Location, NamedAttr, Op, OperationState, Region, Type,
    Value,
};
pub use asm_parser::{Argument, AsmParser, Delimiter, OpAsmParser, SourcePos, UnresolvedOperand};
pub(crate) use attrs::{elem_storage_bytes, is_bare_name as is_bare_ident};
use lexer::{lex, Tok, Token};

pub(crate) type PResult<T> = Result<T, Diagnostic>;

/// Parses a whole buffer named `file` into a `builtin.module`. Top-level ops that are not a
/// single module are wrapped in an implicit module, as MLIR does. Every error found is returned.
/// The module is verified by the caller, not here.
pub fn parse_source(ctx: &mut Context, file: &str, text: &str) -> Result<Op, Vec<Diagnostic>> {
    let mut p = Parser::new(ctx, file, text);
    p.parse_top()
}

/// Parses one type from `text` (which must hold nothing else), as MLIR's `parseType`.
pub fn parse_type_str(ctx: &mut Context, text: &str) -> Result<crate::Type, Diagnostic> {
    let mut p = Parser::new(ctx, "<type>", text);
    let ty = p.parse_type()?;
    if !p.is(Tok::Eof) {
        return Err(p.err("expected end of string after the type"));
    }
    Ok(ty)
}

/// Parses one attribute from `text` (which must hold nothing else), as MLIR's `parseAttribute`.
pub fn parse_attr_str(ctx: &mut Context, text: &str) -> Result<crate::Attr, Diagnostic> {
    let mut p = Parser::new(ctx, "<attribute>", text);
    let a = p.parse_attribute()?;
    if !p.is(Tok::Eof) {
        return Err(p.err("expected end of string after the attribute"));
    }
    Ok(a)
}

/// Like [`parse_source`], with the location given to an implicit top-level module.
/// `mlir-opt --split-input-file` puts it where the chunk starts: just after the `// -----`
/// line that precedes it (see [`chunk_module_loc`]); [`parse_source`] uses line 0, column 0.
pub fn parse_source_with_module_loc(
    ctx: &mut Context,
    file: &str,
    text: &str,
    module_loc: Location,
) -> Result<Op, Vec<Diagnostic>> {
    let mut p = Parser::new(ctx, file, text);
    p.module_loc = Some(module_loc);
    p.parse_top()
}

/// Parses one chunk of a `--split-input-file` buffer, as [`parse_source_with_module_loc`]
/// parses it padded with empty lines: `chunk` starts at 0-based line `first_line` of `file`,
/// and its locations say so. Unlike padding, this costs nothing per line before the chunk, so
/// parsing every chunk of a buffer is linear in its size.
pub fn parse_chunk(
    ctx: &mut Context,
    file: &str,
    chunk: &str,
    first_line: u32,
    module_loc: Location,
) -> Result<Op, Vec<Diagnostic>> {
    let mut p = Parser::new(ctx, file, chunk);
    p.line_base = first_line;
    p.module_loc = Some(module_loc);
    p.parse_top()
}

/// The location `mlir-opt --split-input-file` gives the implicit module of a chunk that starts
/// at 0-based line `first_line` of the original buffer `text` (as [`split_input_file`] returns
/// it): the end of the separator line, or line 0, column 0 for the first chunk.
pub fn chunk_module_loc(ctx: &mut Context, file: &str, text: &str, first_line: u32) -> Location {
    if first_line == 0 {
        return ctx.file_loc(file, 0, 0);
    }
    let start = line_offset(text, first_line - 1);
    let sep = text[start..].split('\n').next().unwrap_or("");
    let len = sep.trim_end_matches('\r').len() as u32;
    ctx.file_loc(file, first_line, len + 1)
}

thread_local! {
    /// Where the last [`line_offset`] call left off: the buffer (address and length), a line
    /// and its byte offset. The chunks of a buffer ask for increasing lines, so resuming from
    /// there makes finding every chunk's line linear in the buffer.
    static LINE_CURSOR: std::cell::Cell<(usize, usize, u32, usize)> =
        const { std::cell::Cell::new((0, 0, 0, 0)) };
}

/// The byte offset of 0-based line `line` of `text` (its end when it has fewer lines).
fn line_offset(text: &str, line: u32) -> usize {
    let key = (text.as_ptr() as usize, text.len());
    let (ptr, len, mut at_line, mut at) = LINE_CURSOR.get();
    let resumable = (ptr, len) == key
        && at_line <= line
        && at <= text.len()
        && (at == 0 || text.as_bytes()[at - 1] == b'\n');
    if !resumable {
        (at_line, at) = (0, 0);
    }
    let b = text.as_bytes();
    while at_line < line && at < b.len() {
        at = b[at..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |i| at + i + 1);
        at_line += 1;
    }
    LINE_CURSOR.set((key.0, key.1, at_line, at));
    at
}

/// Splits a buffer at lines consisting of `// -----` (`--split-input-file`): each chunk with
/// the 0-based line number where it starts in the original buffer.
pub fn split_input_file(text: &str) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 0u32;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if line.trim_end() == "// -----" {
            out.push((std::mem::take(&mut cur), start));
            start = i as u32 + 1;
        } else {
            cur.push_str(line);
        }
    }
    out.push((cur, start));
    out
}

/// One SSA value bound to a name (or a forward reference to one).
#[derive(Clone, Copy)]
struct Slot {
    value: Value,
    forward: bool,
    pos: u32,
}

/// The names of one isolated-from-above region (and the regions nested in it).
#[derive(Default)]
struct IsoScope<'c> {
    names: FxHashMap<&'c str, SmallVec<[Option<Slot>; 1]>>,
    /// Names defined per nested region level, removed when that region ends.
    levels: Vec<Vec<&'c str>>,
}

/// Blocks named in one region.
struct BlockScope<'c> {
    blocks: FxHashMap<&'c str, (Block, bool, u32)>,
}

/// A location that may refer to an alias defined later in the file.
pub(crate) enum LocRef<'c> {
    Known(Location),
    Deferred(&'c str, u32),
}

enum DeferTarget {
    Op(Op),
    Arg(Value),
}

/// The parser state shared by the generic parser, the custom hooks and the format interpreter.
pub(crate) struct Parser<'c> {
    pub(crate) ctx: &'c mut Context,
    pub(crate) src: &'c str,
    pub(crate) b: &'c [u8],
    file: Ident,
    line_starts: Vec<u32>,
    pub(crate) tok: Token,
    pub(crate) errors: Vec<Diagnostic>,
    type_aliases: FxHashMap<&'c str, Type>,
    attr_aliases: FxHashMap<&'c str, Attr>,
    scopes: Vec<IsoScope<'c>>,
    block_scopes: Vec<BlockScope<'c>>,
    default_dialect: Vec<&'static str>,
    deferred: Vec<(DeferTarget, &'c str, u32)>,
    placeholder: Ident,
    depth: u32,
    /// Names already reported for a type mismatch between uses.
    mismatched: Vec<&'c str>,
    /// The location of the implicit top-level module.
    module_loc: Option<Location>,
    /// How many more attribute and type elements uses of aliases may expand to (see
    /// [`MAX_ALIAS_EXPANSION`]).
    alias_budget: u64,
    /// The type an elements literal without `: type` takes (set by
    /// [`AsmParser::parse_attribute_with_type`](crate::asm::AsmParser::parse_attribute_with_type)).
    pub(crate) implied_type: Option<Type>,
    /// The line of the file the text starts at (0-based), for a chunk parsed on its own.
    line_base: u32,
    /// The number of elements each attribute and type expands to when printed, as computed.
    expansion: FxHashMap<ExpansionKey, u64>,
}

/// The deepest nesting of regions, types and attributes the parser reads.
pub const MAX_DEPTH: u32 = 500;

/// The most attribute and type elements the uses of aliases in one buffer may expand to. An
/// alias may name an attribute built from other aliases, each used twice (`#a1 = [#a0, #a0]`),
/// so that a few lines expand to more elements than any printer can write; past this budget
/// such input is an error, which bounds the printed output.
pub const MAX_ALIAS_EXPANSION: u64 = 1 << 24;

/// An attribute or a type whose expanded size is cached.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum ExpansionKey {
    Attr(Attr),
    Type(Type),
}

impl<'c> Parser<'c> {
    pub(crate) fn new(ctx: &'c mut Context, file: &str, text: &'c str) -> Parser<'c> {
        let b = text.as_bytes();
        // A chunk of `--split-input-file` comes padded with one empty line per line before it,
        // so that its line numbers are the file's: those lines are counted, not indexed, so
        // that parsing every chunk of a file stays linear in its size.
        let pad = b.iter().take_while(|&&c| c == b'\n').count();
        let mut line_starts = vec![pad as u32];
        for (i, &c) in b.iter().enumerate().skip(pad) {
            if c == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        let file = ctx.ident(file);
        let placeholder = ctx.ident("builtin.unrealized_conversion_cast");
        let tok = lex(b, pad);
        Parser {
            ctx,
            src: text,
            b,
            file,
            line_starts,
            tok,
            errors: Vec::new(),
            type_aliases: FxHashMap::default(),
            attr_aliases: FxHashMap::default(),
            scopes: Vec::new(),
            block_scopes: Vec::new(),
            default_dialect: Vec::new(),
            deferred: Vec::new(),
            placeholder,
            depth: 0,
            mismatched: Vec::new(),
            module_loc: None,
            alias_budget: MAX_ALIAS_EXPANSION,
            implied_type: None,
            line_base: 0,
            expansion: FxHashMap::default(),
        }
    }

    // ----- tokens and locations -----

    pub(crate) fn advance(&mut self) {
        self.tok = lex(self.b, self.tok.end as usize);
    }

    /// Re-lexes starting at byte `pos`.
    pub(crate) fn reset_to(&mut self, pos: usize) {
        self.tok = lex(self.b, pos);
    }

    pub(crate) fn text(&self, t: Token) -> &'c str {
        let src: &'c str = self.src;
        src.get(t.start as usize..t.end as usize).unwrap_or("")
    }

    pub(crate) fn tok_text(&self) -> &'c str {
        self.text(self.tok)
    }

    pub(crate) fn is(&self, kind: Tok) -> bool {
        self.tok.kind == kind
    }

    pub(crate) fn is_keyword(&self, kw: &str) -> bool {
        self.tok.kind == Tok::BareIdent && self.tok_text() == kw
    }

    pub(crate) fn consume_if(&mut self, kind: Tok) -> bool {
        if self.tok.kind == kind {
            self.advance();
            true
        } else {
            false
        }
    }

    pub(crate) fn loc_at(&mut self, pos: u32) -> Location {
        // `line_starts` starts after the leading empty lines (see `new`), one per byte.
        let pad = self.line_starts[0];
        let (line, col) = if pos < pad {
            (pos as usize, 1)
        } else {
            let i = match self.line_starts.binary_search(&pos) {
                Ok(i) => i,
                Err(i) => i - 1,
            };
            (pad as usize + i, pos - self.line_starts[i] + 1)
        };
        let line = line + self.line_base as usize;
        let file = self.file;
        self.ctx.loc(crate::LocData::FileLineCol {
            file,
            line: line as u32 + 1,
            col,
            end: None,
        })
    }

    pub(crate) fn err_at(&mut self, pos: u32, msg: impl Into<String>) -> Diagnostic {
        let loc = self.loc_at(pos);
        Diagnostic::error(loc, msg)
    }

    /// An error at the current token. Messages that start with "expected" are placed as MLIR
    /// places wrong-token errors: just after the previous token, skipping back over blank
    /// lines and `//` comments.
    pub(crate) fn err(&mut self, msg: impl Into<String>) -> Diagnostic {
        if self.tok.kind == Tok::Error {
            let t = self.tok_text();
            let m = match t.as_bytes().first() {
                Some(b'"') => {
                    // MLIR points at the end of the line the string runs into.
                    let e = self.tok.end;
                    return self.err_at(e, "expected '\"' in string literal");
                }
                Some(b'%') if t.len() == 1 => "invalid SSA name".to_string(),
                Some(b'^') if t.len() == 1 => "invalid block name".to_string(),
                Some(b'#') if t.len() == 1 => "invalid attribute name".to_string(),
                Some(b'!') if t.len() == 1 => "invalid type identifier".to_string(),
                Some(b'@') if t.as_bytes().get(1) == Some(&b'"') => {
                    let e = self.tok.end;
                    return self.err_at(e, "expected '\"' in string literal");
                }
                Some(b'@') => {
                    let e = self.tok.start + 1;
                    return self.err_at(e, "@ identifier expected to start with letter or '_'");
                }
                Some(b'.') => {
                    // Upstream's lexer reports it after the first dot.
                    let e = self.tok.start + 1;
                    return self.err_at(e, "expected three consecutive dots for an ellipsis");
                }
                _ => format!("unexpected character '{t}'"),
            };
            return self.err_at(self.tok.start, m);
        }
        let msg = msg.into();
        let pos = if msg.starts_with("expected") {
            self.wrong_token_pos()
        } else {
            self.tok.start
        };
        self.err_at(pos, msg)
    }

    /// Where MLIR reports a wrong-token error: the end of the text before the current token,
    /// ignoring whitespace, blank lines and trailing `//` comments.
    pub(crate) fn wrong_token_pos(&self) -> u32 {
        let mut orig = self.tok.start as usize;
        // At the end of the buffer MLIR first steps back one character.
        if self.tok.kind == Tok::Eof {
            orig = orig.saturating_sub(1);
        }
        let b = self.b;
        let mut end = orig.min(b.len());
        loop {
            while end > 0 && matches!(b[end - 1], b' ' | b'\t') {
                end -= 1;
            }
            if end == 0 {
                return orig as u32;
            }
            if !matches!(b[end - 1], b'\n' | b'\r') {
                return end as u32;
            }
            end -= 1;
            let line_start = b[..end]
                .iter()
                .rposition(|&c| c == b'\n' || c == b'\r')
                .map_or(0, |i| i + 1);
            if let Some(c) = b[line_start..end].windows(2).position(|w| w == b"//") {
                end = line_start + c;
            }
        }
    }

    pub(crate) fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.tok.kind == kind {
            let t = self.tok;
            self.advance();
            Ok(t)
        } else {
            Err(self.err(format!("expected {what}")))
        }
    }

    pub(crate) fn expect_keyword(&mut self, kw: &str) -> PResult<()> {
        if self.is_keyword(kw) {
            self.advance();
            Ok(())
        } else {
            Err(self.err(format!("expected '{kw}'")))
        }
    }

    /// Decodes a string literal token.
    pub(crate) fn string_value(&mut self, t: Token) -> PResult<Vec<u8>> {
        let body = &self.b[t.start as usize + 1..t.end as usize - 1];
        match lexer::unescape_or_offset(body) {
            Ok(v) => Ok(v),
            Err(at) => {
                Err(self.err_at(t.start + 1 + at as u32, "unknown escape in string literal"))
            }
        }
    }

    /// Parses a string literal into UTF-8 text.
    pub(crate) fn parse_string_lit(&mut self) -> PResult<String> {
        let t = self.expect(Tok::String, "string literal")?;
        let v = self.string_value(t)?;
        String::from_utf8(v).map_err(|_| self.err_at(t.start, "expected UTF-8 string"))
    }

    /// The value of an integer token (decimal or hex).
    pub(crate) fn int_value(&mut self, t: Token) -> PResult<u128> {
        let s = self.text(t);
        let r = if let Some(h) = s.strip_prefix("0x") {
            u128::from_str_radix(h, 16)
        } else {
            s.parse::<u128>()
        };
        r.map_err(|_| self.err_at(t.start, "integer constant out of range"))
    }

    /// Records an error found while parsing goes on (a semantic one: an SSA name, a block, a
    /// type between uses). Parsing stops at the end of the current op, as upstream stops at the
    /// first error; only the first is kept.
    pub(crate) fn fail(&mut self, e: Diagnostic) {
        if self.errors.is_empty() {
            self.errors.push(e);
        }
    }

    /// Records a batch of errors found at once (every undefined block of a region), unless an
    /// error was recorded before.
    fn fail_all(&mut self, errs: Vec<Diagnostic>) {
        if self.errors.is_empty() {
            self.errors = errs;
        }
    }

    /// Stops the parse if an error was recorded.
    fn stop_if_failed(&self) -> PResult<()> {
        match self.errors.first() {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// The number of elements `key` expands to when printed (saturating), counting each
    /// nested attribute and type once per occurrence.
    fn expansion_of(&mut self, key: ExpansionKey) -> u64 {
        if let Some(&n) = self.expansion.get(&key) {
            return n;
        }
        let mut children: SmallVec<[ExpansionKey; 4]> = SmallVec::new();
        let ctx = &*self.ctx;
        match key {
            ExpansionKey::Attr(a) => match ctx.attr_data(a) {
                crate::AttrData::Array(items) => {
                    children.extend(items.iter().map(|&i| ExpansionKey::Attr(i)))
                }
                crate::AttrData::Dictionary(entries) => {
                    children.extend(entries.iter().map(|e| ExpansionKey::Attr(e.value)))
                }
                crate::AttrData::Type(t)
                | crate::AttrData::DenseElements { ty: t, .. }
                | crate::AttrData::DenseResource { ty: t, .. } => {
                    children.push(ExpansionKey::Type(*t))
                }
                crate::AttrData::Location(l) => match l {
                    crate::LocData::Name { child: Some(c), .. } => {
                        children.push(ExpansionKey::Attr(c.attr()))
                    }
                    crate::LocData::CallSite { callee, caller } => {
                        children.push(ExpansionKey::Attr(callee.attr()));
                        children.push(ExpansionKey::Attr(caller.attr()));
                    }
                    crate::LocData::Fused { metadata, locs } => {
                        children.extend(metadata.iter().map(|&m| ExpansionKey::Attr(m)));
                        children.extend(locs.iter().map(|l| ExpansionKey::Attr(l.attr())));
                    }
                    _ => {}
                },
                _ => {}
            },
            ExpansionKey::Type(t) => match ctx.type_data(t) {
                crate::TypeData::Function { inputs, results } => {
                    children.extend(inputs.iter().chain(results).map(|&t| ExpansionKey::Type(t)))
                }
                crate::TypeData::Tuple(items) => {
                    children.extend(items.iter().map(|&t| ExpansionKey::Type(t)))
                }
                crate::TypeData::RankedTensor { elem, encoding, .. } => {
                    children.push(ExpansionKey::Type(*elem));
                    children.extend(encoding.iter().map(|&a| ExpansionKey::Attr(a)));
                }
                crate::TypeData::MemRef {
                    elem,
                    layout,
                    memory_space,
                    ..
                } => {
                    children.push(ExpansionKey::Type(*elem));
                    children.extend(
                        layout
                            .iter()
                            .chain(memory_space)
                            .map(|&a| ExpansionKey::Attr(a)),
                    );
                }
                crate::TypeData::UnrankedMemRef { elem, memory_space } => {
                    children.push(ExpansionKey::Type(*elem));
                    children.extend(memory_space.iter().map(|&a| ExpansionKey::Attr(a)));
                }
                crate::TypeData::UnrankedTensor { elem }
                | crate::TypeData::Vector { elem, .. }
                | crate::TypeData::Complex(elem) => children.push(ExpansionKey::Type(*elem)),
                _ => {}
            },
        }
        let mut n = 1u64;
        for c in children {
            n = n.saturating_add(self.expansion_of(c));
        }
        self.expansion.insert(key, n);
        n
    }

    /// Charges a use of an alias naming `key` at byte `pos` to the alias budget.
    fn charge_alias_use(&mut self, key: ExpansionKey, pos: u32) -> PResult<()> {
        let n = self.expansion_of(key);
        if n > self.alias_budget {
            return Err(self.err_at(
                pos,
                format!(
                    "aliases expand to more than {MAX_ALIAS_EXPANSION} attribute and type elements"
                ),
            ));
        }
        self.alias_budget -= n;
        Ok(())
    }

    /// Charges a use of an attribute alias (see [`MAX_ALIAS_EXPANSION`]).
    pub(crate) fn charge_attr_alias(&mut self, a: Attr, pos: u32) -> PResult<()> {
        self.charge_alias_use(ExpansionKey::Attr(a), pos)
    }

    /// Charges a use of a type alias (see [`MAX_ALIAS_EXPANSION`]).
    pub(crate) fn charge_type_alias(&mut self, t: Type, pos: u32) -> PResult<()> {
        self.charge_alias_use(ExpansionKey::Type(t), pos)
    }

    pub(crate) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- SSA names -----

    fn push_iso_scope(&mut self) {
        self.scopes.push(IsoScope {
            names: FxHashMap::default(),
            levels: vec![Vec::new()],
        });
    }

    fn pop_iso_scope(&mut self) {
        let Some(scope) = self.scopes.pop() else {
            return;
        };
        let mut fwd: Vec<(u32, &str)> = Vec::new();
        for (name, slots) in &scope.names {
            for s in slots.iter().flatten() {
                if s.forward {
                    fwd.push((s.pos, name));
                }
            }
        }
        fwd.sort();
        let errs = fwd
            .into_iter()
            .map(|(pos, _)| self.err_at(pos, "use of undeclared SSA value name"))
            .collect();
        self.fail_all(errs);
    }

    fn push_level(&mut self) {
        if let Some(s) = self.scopes.last_mut() {
            s.levels.push(Vec::new());
        }
    }

    fn pop_level(&mut self) {
        if let Some(s) = self.scopes.last_mut() {
            if let Some(names) = s.levels.pop() {
                for n in names {
                    s.names.remove(n);
                }
            }
        }
    }

    fn make_placeholder(&mut self, ty: Type) -> Value {
        let loc = self.ctx.unknown_loc();
        let op = self.ctx.create_op(OperationState {
            name: self.placeholder,
            operands: Vec::new(),
            result_types: vec![ty],
            props: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            successors: Vec::new(),
            loc,
        });
        self.ctx.result(op, 0)
    }

    /// Binds `name` to `values` in the current scope, resolving forward references.
    pub(crate) fn define_values(&mut self, name: &'c str, values: &[Value], pos: u32) {
        if self.scopes.is_empty() {
            self.push_iso_scope();
        }
        let existing = self
            .scopes
            .last_mut()
            .and_then(|s| s.names.get(name).cloned());
        if let Some(slots) = &existing {
            if slots.iter().flatten().any(|s| !s.forward) {
                let prev = slots
                    .iter()
                    .flatten()
                    .find(|s| !s.forward)
                    .map(|s| s.pos)
                    .unwrap_or(pos);
                let ploc = self.loc_at(prev);
                let e = self
                    .err_at(pos, format!("redefinition of SSA value '%{name}'"))
                    .with_note(ploc, "previously defined here");
                self.fail(e);
                return;
            }
            for (i, s) in slots.iter().enumerate() {
                let Some(s) = s else { continue };
                match values.get(i) {
                    Some(&v) => {
                        let vt = self.ctx.value_type(v);
                        let pt = self.ctx.value_type(s.value);
                        if vt != pt {
                            let (a, b) = (self.type_str(vt), self.type_str(pt));
                            let ploc = self.loc_at(s.pos);
                            let e = self
                                .err_at(
                                    pos,
                                    format!("definition of SSA value '%{name}#{i}' has type '{a}'"),
                                )
                                .with_note(ploc, format!("previously used here with type '{b}'"));
                            self.fail(e);
                        }
                        self.ctx.replace_all_uses(s.value, v);
                        if let Some(op) = self.ctx.defining_op(s.value) {
                            self.ctx.erase_op(op);
                        }
                    }
                    None => {
                        let e = self.err_at(
                            s.pos,
                            format!("reference to invalid result number of '%{name}'"),
                        );
                        self.fail(e);
                    }
                }
            }
        }
        let slots: SmallVec<[Option<Slot>; 1]> = values
            .iter()
            .map(|&value| {
                Some(Slot {
                    value,
                    forward: false,
                    pos,
                })
            })
            .collect();
        let scope = self.scopes.last_mut().expect("a scope was pushed above");
        scope.names.insert(name, slots);
        if let Some(l) = scope.levels.last_mut() {
            l.push(name);
        }
    }

    /// The value named `%name#number`, expected to have type `ty`; creates a forward reference
    /// if the name is not defined yet.
    pub(crate) fn resolve_value(
        &mut self,
        name: &'c str,
        number: u32,
        ty: Type,
        pos: u32,
    ) -> Value {
        if self.scopes.is_empty() {
            self.push_iso_scope();
        }
        let idx = number as usize;
        let found = self
            .scopes
            .last()
            .and_then(|s| s.names.get(name))
            .map(|slots| {
                let defined = slots.iter().flatten().any(|s| !s.forward);
                (defined, slots.len(), slots.get(idx).copied().flatten())
            });
        match found {
            Some((_, _, Some(slot))) => {
                let vt = self.ctx.value_type(slot.value);
                if vt != ty {
                    // MLIR stops at the first mismatch; report each name once.
                    if !self.mismatched.contains(&name) {
                        self.mismatched.push(name);
                        let (a, b) = (self.type_str(ty), self.type_str(vt));
                        let ploc = self.loc_at(slot.pos);
                        let e = self
                            .err_at(pos, format!("use of value '%{name}' expects different type than prior uses: '{a}' vs '{b}'"))
                            .with_note(ploc, "prior use here");
                        self.fail(e);
                    }
                    return self.make_placeholder(ty);
                }
                slot.value
            }
            Some((true, n, None)) => {
                let e = self.err_at(
                    pos,
                    format!("reference to invalid result number of '%{name}': #{number} (the value has {n} results)"),
                );
                self.fail(e);
                self.make_placeholder(ty)
            }
            _ => {
                let value = self.make_placeholder(ty);
                let scope = self.scopes.last_mut().expect("a scope was pushed above");
                let slots = scope.names.entry(name).or_default();
                if slots.len() <= idx {
                    slots.resize(idx + 1, None);
                }
                slots[idx] = Some(Slot {
                    value,
                    forward: true,
                    pos,
                });
                value
            }
        }
    }

    /// Where `%name` was first defined or referenced, if anywhere in scope.
    fn reference_pos(&self, name: &str) -> Option<u32> {
        let slots = self.scopes.last()?.names.get(name)?;
        slots.iter().flatten().map(|s| s.pos).min()
    }

    pub(crate) fn type_str(&self, ty: Type) -> String {
        crate::printer::type_to_string(self.ctx, ty)
    }

    // ----- blocks -----

    fn push_block_scope(&mut self) {
        self.block_scopes.push(BlockScope {
            blocks: FxHashMap::default(),
        });
    }

    /// Leaves the blocks of a region; when `report`, names the blocks referenced but never
    /// defined (not when the region's parse failed, so that one error does not cascade).
    fn pop_block_scope(&mut self, report: bool) {
        let Some(scope) = self.block_scopes.pop() else {
            return;
        };
        if !report {
            return;
        }
        let mut undefined: Vec<(u32, &str)> = scope
            .blocks
            .iter()
            .filter(|(_, v)| !v.1)
            .map(|(k, v)| (v.2, *k))
            .collect();
        undefined.sort();
        let errs = undefined
            .into_iter()
            .map(|(pos, _)| self.err_at(pos, "reference to an undefined block"))
            .collect();
        self.fail_all(errs);
    }

    /// The block named `^name` in the current region (created on first reference).
    pub(crate) fn block_ref(&mut self, name: &'c str, pos: u32) -> Block {
        if self.block_scopes.is_empty() {
            self.push_block_scope();
        }
        if let Some(&(b, _, _)) = self.block_scopes.last().and_then(|s| s.blocks.get(name)) {
            return b;
        }
        let loc = self.ctx.unknown_loc();
        let b = self.ctx.create_block(&[], loc);
        if let Some(s) = self.block_scopes.last_mut() {
            s.blocks.insert(name, (b, false, pos));
        }
        b
    }

    /// Parses a successor reference `^bb1`.
    pub(crate) fn parse_successor_ref(&mut self) -> PResult<Block> {
        let t = self.expect(Tok::CaretIdent, "block name")?;
        let name = &self.text(t)[1..];
        Ok(self.block_ref(name, t.start))
    }

    // ----- ops -----

    /// The default dialect for bare op names in the regions being parsed.
    pub(crate) fn current_default_dialect(&self) -> &'static str {
        self.default_dialect.last().copied().unwrap_or("")
    }

    pub(crate) fn is_isolated(def: Option<&OpDef>) -> bool {
        def.is_some_and(|d| d.has_trait(Trait::IsolatedFromAbove))
    }

    fn parse_operation(&mut self, block: Block) -> PResult<()> {
        let start = self.tok.start;
        let mut results: SmallVec<[(&'c str, u32, u32); 2]> = SmallVec::new();
        if self.is(Tok::PercentIdent) {
            loop {
                let t = self.expect(Tok::PercentIdent, "valid ssa identifier")?;
                let name = &self.text(t)[1..];
                let mut count = 1u32;
                if self.consume_if(Tok::Colon) {
                    let n = self.expect(Tok::Integer, "integer number of results")?;
                    let v = self.int_value(n)?;
                    if v == 0 || v > u32::MAX as u128 {
                        return Err(self.err_at(
                            n.start,
                            "expected named operation to have at least 1 result",
                        ));
                    }
                    count = v as u32;
                }
                results.push((name, count, t.start));
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::Equal, "'=' after SSA name")?;
        }
        let total: usize = results.iter().map(|r| r.1 as usize).sum();
        // `i32` is a type token to upstream's lexer, not a bare identifier.
        let is_int_type = self.is(Tok::BareIdent) && types::int_keyword(self.tok_text()).is_some();
        let (op, loc) = match self.tok.kind {
            Tok::String => self.parse_generic_op(start)?,
            Tok::BareIdent if !is_int_type => self.parse_custom_op(start, total)?,
            _ => return Err(self.err("expected operation name in quotes")),
        };
        if let LocRef::Deferred(name, pos) = loc {
            self.deferred.push((DeferTarget::Op(op), name, pos));
        }
        let nres = self.ctx.results(op).len();
        if total != 0 && nres == 0 {
            let e = self.err_at(start, "cannot name an operation with no results");
            self.fail(e);
        } else if total != 0 && total != nres {
            let e = self.err_at(
                start,
                format!("operation defines {nres} results but was provided {total} to bind"),
            );
            self.fail(e);
        }
        self.ctx.append_op(block, op);
        if total == nres {
            let vals: SmallVec<[Value; 4]> = self.ctx.results(op).iter().copied().collect();
            let mut at = 0usize;
            for (name, count, pos) in results {
                let n = count as usize;
                self.define_values(name, &vals[at..at + n], pos);
                at += n;
            }
        }
        self.stop_if_failed()
    }

    /// Parses `loc(...)` if present.
    pub(crate) fn parse_trailing_loc(&mut self, default: Location) -> PResult<LocRef<'c>> {
        if !self.is_keyword("loc") {
            return Ok(LocRef::Known(default));
        }
        // `loc(#alias)` may name an alias defined later in the file.
        let save = self.tok;
        self.advance();
        if self.is(Tok::LParen) {
            let lp = self.tok;
            self.advance();
            if self.is(Tok::HashIdent) {
                let t = self.tok;
                let name = &self.text(t)[1..];
                let next = lex(self.b, t.end as usize);
                if next.kind == Tok::RParen && !self.attr_aliases.contains_key(name) {
                    self.reset_to(next.end as usize);
                    return Ok(LocRef::Deferred(name, t.start));
                }
            }
            let _ = lp;
        }
        self.tok = save;
        Ok(LocRef::Known(self.parse_location()?))
    }

    fn check_registered(&mut self, name: &str, pos: u32) {
        let dialect = name.split_once('.').map_or(name, |(d, _)| d);
        if self.ctx.allow_unregistered {
            return;
        }
        let msg = if self.ctx.registry.has_dialect(dialect) {
            format!(
                "unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"
            )
        } else {
            "operation being parsed with an unregistered dialect. If this is intended, please use \
             -allow-unregistered-dialect with the MLIR tool used"
                .to_string()
        };
        let e = self.err_at(pos, msg);
        self.fail(e);
    }

    fn parse_generic_op(&mut self, start: u32) -> PResult<(Op, LocRef<'c>)> {
        let name_tok = self.tok;
        let raw = self.string_value(name_tok)?;
        let name = String::from_utf8(raw)
            .map_err(|_| self.err_at(name_tok.start, "invalid operation name"))?;
        if name.is_empty() {
            return Err(self.err_at(name_tok.start, "empty operation name is invalid"));
        }
        self.advance();
        let name_id = self.ctx.ident(&name);
        let def = self.ctx.op_def_by_name(name_id);
        if def.is_none() {
            let pos = self.tok.start;
            self.check_registered(&name, pos);
        }
        self.expect(Tok::LParen, "'(' to start operand list")?;
        let mut operands: SmallVec<[UnresolvedOperand; 4]> = SmallVec::new();
        if self.is(Tok::PercentIdent) || self.tok_text() == "%" {
            loop {
                operands.push(self.parse_unresolved_operand()?);
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')' to end operand list")?;
        let mut successors = Vec::new();
        let mut succ_operands: Vec<Value> = Vec::new();
        if self.is(Tok::LSquare) {
            if def.is_some_and(|d| !d.has_trait(Trait::Terminator)) {
                return Err(self.err("successors in non-terminator"));
            }
            self.advance();
            loop {
                successors.push(self.parse_successor_ref()?);
                if self.consume_if(Tok::LParen) {
                    loop {
                        let u = self.parse_unresolved_operand()?;
                        self.expect(Tok::Colon, "':' and type of successor operand")?;
                        let ty = self.parse_type()?;
                        let v = self.resolve_value(u.name(self.src), u.number, ty, u.pos);
                        succ_operands.push(v);
                        if !self.consume_if(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RParen, "')'")?;
                }
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RSquare, "']' to end successor list")?;
        }
        let mut props = Vec::new();
        if self.is(Tok::Less) {
            self.advance();
            if !self.is(Tok::LBrace) {
                return Err(self.err("expected '{' to start properties"));
            }
            props = self.parse_attr_dict()?;
            self.expect(Tok::Greater, "'>' to close properties")?;
        }
        let mut regions = Vec::new();
        if self.is(Tok::LParen) {
            self.advance();
            let isolated = Self::is_isolated(def);
            // The regions of an op in generic form keep the enclosing default dialect.
            let dd = self.current_default_dialect();
            loop {
                regions.push(self.parse_region(isolated, dd, &[])?);
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "')' to end region list")?;
        }
        let mut attrs = Vec::new();
        if self.is(Tok::LBrace) {
            attrs = self.parse_attr_dict()?;
        }
        if let Some(def) = def {
            let ctx = &*self.ctx;
            let (inh, rest): (Vec<NamedAttr>, Vec<NamedAttr>) = attrs
                .into_iter()
                .partition(|a| def.is_inherent(ctx.str(a.name)));
            for a in inh {
                if !props.iter().any(|p: &NamedAttr| p.name == a.name) {
                    props.push(a);
                }
            }
            attrs = rest;
        }
        let colon = self.tok.start;
        self.expect(Tok::Colon, "':' followed by operation type")?;
        let fty_pos = self.tok.start;
        let fty = self.parse_type()?;
        let fty = if self.is(Tok::Arrow) {
            self.advance();
            let results = self.parse_function_result_types()?;
            self.ctx.function_type(vec![fty], results)
        } else {
            fty
        };
        let (inputs, results) = match self.ctx.type_data(fty) {
            crate::TypeData::Function { inputs, results } => (inputs.clone(), results.clone()),
            _ => return Err(self.err_at(fty_pos, "expected function type")),
        };
        let _ = colon;
        if inputs.len() != operands.len() {
            return Err(self.err_at(
                fty_pos,
                format!(
                    // Upstream's wording, with its double space after "type".
                    "expected {} operand type{} but had {}",
                    operands.len(),
                    if operands.len() == 1 { " " } else { "s" },
                    inputs.len()
                ),
            ));
        }
        let mut values: Vec<Value> = Vec::with_capacity(operands.len() + succ_operands.len());
        for (u, &ty) in operands.iter().zip(&inputs) {
            let v = self.resolve_value(u.name(self.src), u.number, ty, u.pos);
            values.push(v);
        }
        values.extend(succ_operands);
        let _ = start;
        let default = self.loc_at(name_tok.start);
        let loc = self.parse_trailing_loc(default)?;
        let state = OperationState {
            name: name_id,
            operands: values,
            result_types: results,
            props,
            attrs,
            regions,
            successors,
            loc: match loc {
                LocRef::Known(l) => l,
                LocRef::Deferred(..) => default,
            },
        };
        Ok((self.ctx.create_op(state), loc))
    }

    fn parse_custom_op(&mut self, start: u32, num_results: usize) -> PResult<(Op, LocRef<'c>)> {
        let name_tok = self.tok;
        let written = self.text(name_tok);
        self.advance();
        let mut def = None;
        if written.contains('.') {
            if let Some(id) = self.ctx.lookup_ident(written) {
                def = self.ctx.op_def_by_name(id);
            }
        } else {
            let dd = self.current_default_dialect();
            if !dd.is_empty() {
                let full = format!("{dd}.{written}");
                if let Some(id) = self.ctx.lookup_ident(&full) {
                    def = self.ctx.op_def_by_name(id);
                }
            }
        }
        let Some(def) = def else {
            let msg = match written.split_once('.') {
                Some((d, _)) if !self.ctx.registry.has_dialect(d) => {
                    format!("Dialect `{d}' not found for custom op '{written}' ")
                }
                Some(_) => format!("custom op '{written}' is unknown"),
                None => match self.current_default_dialect() {
                    "" => format!("custom op '{written}' is unknown"),
                    dd => {
                        format!("custom op '{written}' is unknown (tried '{dd}.{written}' as well)")
                    }
                },
            };
            return Err(self.err_at(name_tok.start, msg));
        };
        let _ = start;
        let default = self.loc_at(name_tok.start);
        let mut state = OperationState {
            name: self.ctx.ident(def.name),
            operands: Vec::new(),
            result_types: Vec::new(),
            props: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            successors: Vec::new(),
            loc: default,
        };
        if let Some(hook) = def.parse {
            let mut ap = OpAsmParser::new(self, def, num_results);
            hook(&mut ap, &mut state)?;
        } else if let Some(fmt) = def.assembly_format {
            format::parse_custom(self, def, fmt, &mut state, name_tok.start)?;
        } else {
            return Err(self.err_at(
                name_tok.start,
                format!("custom op '{written}' has no custom assembly form; use the generic form"),
            ));
        }
        let loc = self.parse_trailing_loc(state.loc)?;
        if let LocRef::Known(l) = loc {
            state.loc = l;
        }
        Ok((self.ctx.create_op(state), loc))
    }

    /// Parses `%name` or `%name#N`.
    pub(crate) fn parse_unresolved_operand(&mut self) -> PResult<UnresolvedOperand> {
        let t = self.expect(Tok::PercentIdent, "SSA operand")?;
        let mut number = 0u32;
        if self.is(Tok::HashIdent) && self.tok.start == t.end {
            let h = self.tok;
            let digits = &self.text(h)[1..];
            number = digits
                .parse::<u32>()
                .map_err(|_| self.err_at(h.start, "invalid SSA value result number"))?;
            self.advance();
        }
        Ok(UnresolvedOperand {
            start: t.start + 1,
            end: t.end,
            number,
            pos: t.start,
        })
    }

    // ----- regions -----

    /// Parses `{ blocks }` into a new detached region. `args` become the entry block's
    /// arguments (named, as in `func.func @f(%a: i32) { ... }`).
    pub(crate) fn parse_region(
        &mut self,
        isolated: bool,
        dialect: &'static str,
        args: &[Argument],
    ) -> PResult<Region> {
        // MLIR's parser resolves names through enclosing regions even for
        // isolated-from-above ops; the verifier reports values used across the boundary.
        let _ = isolated;
        self.enter()?;
        self.push_level();
        self.push_block_scope();
        self.default_dialect.push(dialect);
        let r = self.parse_region_body(args);
        self.default_dialect.pop();
        self.pop_block_scope(r.is_ok());
        self.pop_level();
        self.leave();
        let region = r?;
        self.stop_if_failed()?;
        Ok(region)
    }

    fn parse_region_body(&mut self, args: &[Argument]) -> PResult<Region> {
        self.expect(Tok::LBrace, "'{' to begin a region")?;
        let region = self.ctx.create_region();
        if self.is(Tok::RBrace) {
            if !args.is_empty() {
                let b = self.new_entry_block(args);
                self.ctx.append_block(region, b);
            }
            self.advance();
            return Ok(region);
        }
        if self.is(Tok::CaretIdent) {
            if !args.is_empty() {
                return Err(self.err("invalid block name in region with named arguments"));
            }
        } else {
            let b = self.new_entry_block(args);
            self.ctx.append_block(region, b);
            self.parse_block_ops(b)?;
        }
        while self.is(Tok::CaretIdent) {
            self.parse_block(region)?;
        }
        self.expect(Tok::RBrace, "'}' to end region")?;
        Ok(region)
    }

    fn new_entry_block(&mut self, args: &[Argument]) -> Block {
        let loc = self.ctx.unknown_loc();
        let b = self.ctx.create_block(&[], loc);
        for a in args {
            let aloc = match a.loc {
                Some(l) => l,
                None => self.loc_at(a.ssa.pos),
            };
            let v = self.ctx.add_block_arg(b, a.ty, aloc);
            let name = a.ssa.name(self.src);
            if let Some(prev) = self.reference_pos(name) {
                let ploc = self.loc_at(prev);
                let e = self
                    .err_at(
                        a.ssa.pos,
                        format!("region entry argument '%{name}' is already in use"),
                    )
                    .with_note(ploc, "previously referenced here");
                self.fail(e);
                continue;
            }
            self.define_values(name, &[v], a.ssa.pos);
        }
        b
    }

    fn parse_block_ops(&mut self, block: Block) -> PResult<()> {
        while !matches!(self.tok.kind, Tok::CaretIdent | Tok::RBrace | Tok::Eof) {
            self.parse_operation(block)?;
        }
        if self.is(Tok::Eof) {
            return Err(self.err("expected operation name in quotes"));
        }
        Ok(())
    }

    fn parse_block(&mut self, region: Region) -> PResult<()> {
        let t = self.tok;
        let name = &self.text(t)[1..];
        self.advance();
        let b = self.block_ref(name, t.start);
        let scope = self
            .block_scopes
            .last_mut()
            .expect("a block scope is pushed in a region");
        if let Some(e) = scope.blocks.get_mut(name) {
            if e.1 {
                let e = self.err_at(t.start, format!("redefinition of block '^{name}'"));
                return Err(e);
            }
            e.1 = true;
        }
        self.ctx.append_block(region, b);
        if self.consume_if(Tok::LParen) {
            if !self.is(Tok::RParen) {
                loop {
                    let u = self.parse_unresolved_operand()?;
                    self.expect(Tok::Colon, "':' and type for SSA operand")?;
                    let ty = self.parse_type()?;
                    let default = self.loc_at(u.pos);
                    let loc = self.parse_trailing_loc(default)?;
                    let l = match loc {
                        LocRef::Known(l) => l,
                        LocRef::Deferred(..) => default,
                    };
                    let v = self.ctx.add_block_arg(b, ty, l);
                    if let LocRef::Deferred(n, p) = loc {
                        self.deferred.push((DeferTarget::Arg(v), n, p));
                    }
                    let nm = u.name(self.src);
                    self.define_values(nm, &[v], u.pos);
                    if !self.consume_if(Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RParen, "')'")?;
        }
        self.expect(Tok::Colon, "':' after block name")?;
        self.parse_block_ops(b)
    }

    // ----- top level -----

    fn parse_top(&mut self) -> Result<Op, Vec<Diagnostic>> {
        let region = self.ctx.create_region();
        let loc = self.ctx.unknown_loc();
        let block = self.ctx.create_block(&[], loc);
        self.ctx.append_block(region, block);
        self.push_iso_scope();
        self.push_block_scope();
        self.default_dialect.push("builtin");
        let r = self.parse_top_items(block);
        if let Err(e) = r {
            // An error recorded earlier came first; `e` is then that error again, or one found
            // after it.
            self.fail(e);
            return Err(std::mem::take(&mut self.errors));
        }
        self.pop_block_scope(true);
        self.pop_iso_scope();
        for (target, name, pos) in std::mem::take(&mut self.deferred) {
            let loc = match self.attr_aliases.get(name).copied() {
                Some(a) => self.ctx.as_location(a),
                None => None,
            };
            let Some(loc) = loc else {
                let e = self.err_at(pos, "operation location alias was never defined");
                self.fail(e);
                continue;
            };
            match target {
                DeferTarget::Op(op) => self.ctx.set_op_loc(op, loc),
                DeferTarget::Arg(v) => self.ctx.values[v.0 as usize].loc = Some(loc),
            }
        }
        if !self.errors.is_empty() {
            return Err(std::mem::take(&mut self.errors));
        }
        let ops = self.ctx.block_ops(block);
        if ops.len() == 1 && self.ctx.op_name_str(ops[0]) == "builtin.module" {
            self.ctx.detach_op(ops[0]);
            return Ok(ops[0]);
        }
        let loc = match self.module_loc {
            Some(l) => l,
            None => {
                let file = self.file;
                self.ctx.loc(crate::LocData::FileLineCol {
                    file,
                    line: 0,
                    col: 0,
                    end: None,
                })
            }
        };
        let module = crate::builtin::create_module(self.ctx, loc);
        let body = crate::builtin::module_body(self.ctx, module);
        for op in ops {
            self.ctx.detach_op(op);
            self.ctx.append_op(body, op);
        }
        Ok(module)
    }

    fn parse_top_items(&mut self, block: Block) -> PResult<()> {
        loop {
            match self.tok.kind {
                Tok::Eof => return Ok(()),
                Tok::HashIdent | Tok::ExclIdent => {
                    let t = self.tok;
                    let name = &self.text(t)[1..];
                    let (kind, defined) = if t.kind == Tok::HashIdent {
                        ("attribute", self.attr_aliases.contains_key(name))
                    } else {
                        ("type", self.type_aliases.contains_key(name))
                    };
                    if defined {
                        return Err(self
                            .err_at(t.start, format!("redefinition of {kind} alias id '{name}'")));
                    }
                    if name.contains('.') {
                        return Err(self.err_at(
                            t.start,
                            format!(
                                "{kind} names with a '.' are reserved for dialect-defined names"
                            ),
                        ));
                    }
                    self.advance();
                    self.expect(Tok::Equal, &format!("'=' in {kind} alias definition"))?;
                    if t.kind == Tok::HashIdent {
                        let a = self.parse_attribute()?;
                        self.attr_aliases.insert(name, a);
                    } else {
                        let ty = self.parse_type()?;
                        self.type_aliases.insert(name, ty);
                    }
                }
                Tok::MetaBegin => self.parse_resources()?,
                _ => self.parse_operation(block)?,
            }
        }
    }

    fn parse_resources(&mut self) -> PResult<()> {
        self.advance();
        loop {
            if self.consume_if(Tok::MetaEnd) {
                return Ok(());
            }
            let t = self.expect(Tok::BareIdent, "resource section name")?;
            let section = self.text(t);
            self.expect(Tok::Colon, "':'")?;
            self.expect(Tok::LBrace, "'{'")?;
            if !self.is(Tok::RBrace) {
                loop {
                    let d = self.tok;
                    if !matches!(d.kind, Tok::BareIdent | Tok::String) {
                        return Err(self.err("expected resource group name"));
                    }
                    let group = if d.kind == Tok::String {
                        self.parse_string_lit()?
                    } else {
                        self.advance();
                        self.text(d).to_string()
                    };
                    self.expect(Tok::Colon, "':'")?;
                    self.expect(Tok::LBrace, "'{'")?;
                    let mut entries: Vec<(String, ResourceValue)> = Vec::new();
                    if !self.is(Tok::RBrace) {
                        loop {
                            let k = self.tok;
                            let key = match k.kind {
                                Tok::BareIdent => {
                                    self.advance();
                                    self.text(k).to_string()
                                }
                                Tok::String => self.parse_string_lit()?,
                                _ => return Err(self.err("expected resource key")),
                            };
                            self.expect(Tok::Colon, "':'")?;
                            if let Some(v) = self.parse_resource_value()? {
                                entries.push((key, v));
                            }
                            if !self.consume_if(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    self.expect(Tok::RBrace, "'}'")?;
                    let target = match section {
                        "dialect_resources" => Some(&mut self.ctx.resources.dialect),
                        "external_resources" => Some(&mut self.ctx.resources.external),
                        _ => None,
                    };
                    if let Some(map) = target {
                        let g = map.entry(group).or_default();
                        for (k, v) in entries {
                            g.insert(k, v);
                        }
                    }
                    if !self.consume_if(Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RBrace, "'}'")?;
            self.consume_if(Tok::Comma);
        }
    }

    /// A resource value; `None` for a kind nart does not keep (skipped).
    fn parse_resource_value(&mut self) -> PResult<Option<ResourceValue>> {
        match self.tok.kind {
            Tok::String => {
                let t = self.tok;
                let s = self.parse_string_lit()?;
                if let Some(hex) = s.strip_prefix("0x") {
                    let bytes = decode_hex(hex)
                        .ok_or_else(|| self.err_at(t.start, "malformed hex blob"))?;
                    if bytes.len() < 4 {
                        return Err(
                            self.err_at(t.start, "expected blob to start with a 4-byte alignment")
                        );
                    }
                    let alignment = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                    return Ok(Some(ResourceValue::Blob {
                        alignment,
                        data: bytes[4..].to_vec(),
                    }));
                }
                Ok(Some(ResourceValue::String(s)))
            }
            Tok::BareIdent if matches!(self.tok_text(), "true" | "false") => {
                let v = self.tok_text() == "true";
                self.advance();
                Ok(Some(ResourceValue::Bool(v)))
            }
            _ => {
                // Skip one balanced value.
                let mut depth = 0i32;
                loop {
                    match self.tok.kind {
                        Tok::Eof | Tok::MetaEnd => return Err(self.err("expected resource value")),
                        Tok::LBrace | Tok::LSquare | Tok::LParen => depth += 1,
                        Tok::RBrace | Tok::RSquare | Tok::RParen => {
                            if depth == 0 {
                                return Ok(None);
                            }
                            depth -= 1;
                        }
                        Tok::Comma if depth == 0 => return Ok(None),
                        _ => {}
                    }
                    self.advance();
                }
            }
        }
    }
}

/// Decodes hex digits into bytes.
pub(crate) fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    let b = hex.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 2);
    for pair in b.chunks(2) {
        out.push((lexer::hex_val(pair[0])? << 4) | lexer::hex_val(pair[1])?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_input_file() {
        let parts = split_input_file("a\n// -----\nb\n//   -----\nc\n");
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[1], ("b\n//   -----\nc\n".to_string(), 2));
    }

    #[test]
    fn wraps_top_level_ops_in_a_module() {
        let mut ctx = Context::new();
        ctx.allow_unregistered = true;
        let m = parse_source(
            &mut ctx,
            "t.mlir",
            "%0 = \"a.b\"() : () -> i32\n\"a.c\"(%0) : (i32) -> ()",
        )
        .unwrap();
        assert_eq!(ctx.op_name_str(m), "builtin.module");
        let body = crate::builtin::module_body(&ctx, m);
        assert_eq!(ctx.block_ops(body).len(), 2);
    }

    #[test]
    fn reports_undeclared_values() {
        let mut ctx = Context::new();
        ctx.allow_unregistered = true;
        let errs = parse_source(&mut ctx, "t.mlir", "\"a.c\"(%x) : (i32) -> ()").unwrap_err();
        assert_eq!(errs[0].message, "use of undeclared SSA value name");
    }
}
