//! The rule text: a lexer and a recursive-descent parser that turn
//! `source => result if constraint, ...` into a [`Compiled`] rule whose captures and native
//! calls are all resolved, or into a [`RuleError`] that points at the offending token.
//!
//! Nothing here needs a [`Context`](crate::Context): a rule compiles once, the first time it
//! is used, and the checks that need the registered ops (operand counts, attribute names) are
//! in [`Rule::check`](super::Rule::check).

use std::ops::Range;

use super::{Native, NativeKind, RuleError, BUILTINS};

/// Byte offsets into the rule text.
pub(super) type Span = Range<usize>;

/// The index of a capture in [`Compiled::captures`].
pub(super) type CapId = usize;

/// What a capture stands for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum CaptureKind {
    /// An operand value (`$x`) or the value of a matched constant (`(constant:$v $c)`).
    Value,
    /// A matched op (`(arith.addi:$r ...)`): as a value, the result that was matched; `$r#1`
    /// is its result 1.
    Op,
    /// An attribute: a constant's value (`(constant $c)`) or an op's attribute
    /// (`{overflowFlags = $f}`).
    Attr,
}

impl CaptureKind {
    fn describe(self) -> &'static str {
        match self {
            CaptureKind::Value => "a value",
            CaptureKind::Op => "an op",
            CaptureKind::Attr => "an attribute",
        }
    }
}

/// A name bound by the source pattern.
#[derive(Debug)]
pub(super) struct Capture {
    /// The name without `$`.
    pub name: &'static str,
    /// What it binds.
    pub kind: CaptureKind,
    /// Whether it binds the root op, whose results the rewrite replaces.
    pub is_root: bool,
}

/// An op in the source pattern.
#[derive(Debug)]
pub(super) struct SrcOp {
    pub name: &'static str,
    pub bind: Option<CapId>,
    pub operands: Vec<SrcOperand>,
    /// Attributes to match, by name; `None` only requires the attribute to be present.
    pub attrs: Vec<(&'static str, Option<CapId>, Span)>,
    pub span: Span,
}

/// An operand position in the source pattern.
#[derive(Debug)]
pub(super) enum SrcOperand {
    /// `$x`: binds the operand, or checks it equals what `$x` already holds.
    Capture(CapId),
    /// `_`: anything.
    Any,
    /// `(name ...)`: the operand is a result of a matching op.
    Op(SrcOp),
    /// `(constant:$v $c)`: the operand is the result of a `ConstantLike` op; `$c` binds its
    /// `value` attribute and `$v` the operand.
    Constant {
        value: Option<CapId>,
        attr: Option<CapId>,
    },
}

/// A capture used in the result or a constraint; `#n` picks result `n` of an op capture.
#[derive(Debug)]
pub(super) struct CapRef {
    pub id: CapId,
    pub result: Option<usize>,
    pub span: Span,
}

/// What replaces the root.
#[derive(Debug)]
pub(super) enum Results {
    /// One tree or capture standing for all the root's results (a new op replaces them all).
    One(ResNode),
    /// `[a, b]`: one value per root result; `[]` erases a root without results.
    List(Vec<ResNode>),
}

/// A node of the result tree.
#[derive(Debug)]
pub(super) enum ResNode {
    /// An existing value.
    Capture(CapRef),
    /// A new op.
    Op(ResOp),
}

/// A new op in the result tree.
#[derive(Debug)]
pub(super) struct ResOp {
    pub name: &'static str,
    pub operands: Vec<ResNode>,
    pub attrs: Vec<(&'static str, AttrExpr, Span)>,
    /// `-> $x`: the op has one result, of `$x`'s type.
    pub ty: Option<CapRef>,
    pub span: Span,
}

/// An attribute of a new op.
#[derive(Debug)]
pub(super) enum AttrExpr {
    /// A captured attribute.
    Capture(CapRef),
    /// A native attribute builder.
    Call(Call),
}

/// A call of a native function.
#[derive(Debug)]
pub(super) struct Call {
    pub native: Native,
    pub args: Vec<ArgExpr>,
    pub span: Span,
}

/// An argument of a native call.
#[derive(Debug)]
pub(super) enum ArgExpr {
    Capture(CapRef),
    Call(Call),
    Int(i64),
}

/// A rule ready to match.
#[derive(Debug)]
pub(super) struct Compiled {
    pub text: &'static str,
    pub root: &'static str,
    pub source: SrcOp,
    pub results: Results,
    pub constraints: Vec<Call>,
    pub captures: Vec<Capture>,
    /// Ops in the source pattern (constants not counted): the default benefit, as in DRR.
    pub n_ops: usize,
}

// ----- lexer -----

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok {
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Eq,
    FatArrow,
    Arrow,
    Colon,
    Hash,
    /// `$name`, without the `$`.
    Cap(&'static str),
    /// `_` or `$_`.
    Underscore,
    /// A name: an op (`arith.addi`), an attribute, a native function, `constant`, `if`.
    Ident(&'static str),
    Int(i64),
    Eof,
}

impl Tok {
    fn describe(self) -> String {
        match self {
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Eq => "`=`".into(),
            Tok::FatArrow => "`=>`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Hash => "`#`".into(),
            Tok::Cap(n) => format!("`${n}`"),
            Tok::Underscore => "`_`".into(),
            Tok::Ident(n) => format!("`{n}`"),
            Tok::Int(v) => format!("`{v}`"),
            Tok::Eof => "the end of the rule".into(),
        }
    }
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

fn lex(text: &'static str) -> Result<Vec<(Tok, Span)>, (String, Span)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        let two = |s: &[u8]| b[i..].starts_with(s);
        let tok = if two(b"=>") {
            i += 2;
            Tok::FatArrow
        } else if two(b"->") {
            i += 2;
            Tok::Arrow
        } else if c == b'$' || c.is_ascii_alphabetic() || c == b'_' {
            let name_start = if c == b'$' { i + 1 } else { i };
            i = name_start;
            while i < b.len() && is_name_char(b[i]) {
                i += 1;
            }
            let name = &text[name_start..i];
            match (c == b'$', name) {
                (true, "") => return Err(("expected a capture name after `$`".into(), start..i)),
                (true, "_") | (false, "_") => Tok::Underscore,
                (true, n) if n.contains('.') => {
                    return Err((format!("a capture name has no `.`: `${n}`"), start..i))
                }
                (true, n) => Tok::Cap(n),
                (false, n) => Tok::Ident(n),
            }
        } else if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let v = text[start..i]
                .parse::<i64>()
                .map_err(|_| ("integer out of range".to_string(), start..i))?;
            Tok::Int(v)
        } else {
            i += 1;
            match c {
                b'(' => Tok::LParen,
                b')' => Tok::RParen,
                b'{' => Tok::LBrace,
                b'}' => Tok::RBrace,
                b'[' => Tok::LBracket,
                b']' => Tok::RBracket,
                b',' => Tok::Comma,
                b'=' => Tok::Eq,
                b':' => Tok::Colon,
                b'#' => Tok::Hash,
                _ => {
                    let ch = text[start..].chars().next().unwrap_or('?');
                    let end = start + ch.len_utf8();
                    return Err((format!("unexpected character `{ch}`"), start..end));
                }
            }
        };
        out.push((tok, start..i));
    }
    out.push((Tok::Eof, text.len()..text.len()));
    Ok(out)
}

// ----- parser -----

struct Parser<'n> {
    text: &'static str,
    toks: Vec<(Tok, Span)>,
    pos: usize,
    natives: &'n [Native],
    captures: Vec<Capture>,
    n_ops: usize,
}

type PResult<T> = Result<T, (String, Span)>;

impl Parser<'_> {
    fn peek(&self) -> Tok {
        self.toks[self.pos].0
    }

    fn span(&self) -> Span {
        self.toks[self.pos].1.clone()
    }

    fn bump(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos].clone();
        if t.0 != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, t: Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error<T>(&self, what: &str) -> PResult<T> {
        Err((
            format!("expected {what}, found {}", self.peek().describe()),
            self.span(),
        ))
    }

    fn expect(&mut self, t: Tok) -> PResult<Span> {
        if self.peek() == t {
            Ok(self.bump().1)
        } else {
            self.error(&t.describe())
        }
    }

    fn op_name(&mut self) -> PResult<(&'static str, Span)> {
        match self.peek() {
            Tok::Ident(n) if n.contains('.') => {
                let s = self.bump().1;
                Ok((n, s))
            }
            Tok::Ident(n) => Err((
                format!("expected an op name such as `arith.addi`, found `{n}`"),
                self.span(),
            )),
            _ => self.error("an op name"),
        }
    }

    fn lookup(&self, name: &str) -> Option<CapId> {
        self.captures.iter().position(|c| c.name == name)
    }

    /// Binds `name` in the source pattern: a new capture, or the same one again (an equality
    /// check), which must bind the same kind of thing.
    fn define(&mut self, name: &'static str, kind: CaptureKind, span: Span) -> PResult<CapId> {
        if let Some(id) = self.lookup(name) {
            let had = self.captures[id].kind;
            if had != kind || kind == CaptureKind::Op {
                let msg = if kind == CaptureKind::Op && had == CaptureKind::Op {
                    format!("`${name}` already names an op; an op is bound once")
                } else {
                    format!(
                        "`${name}` is {} here but {} where it was bound first",
                        kind.describe(),
                        had.describe()
                    )
                };
                return Err((msg, span));
            }
            return Ok(id);
        }
        self.captures.push(Capture {
            name,
            kind,
            is_root: false,
        });
        Ok(self.captures.len() - 1)
    }

    /// `:$name` after an op name, if present.
    fn bind(&mut self, kind: CaptureKind) -> PResult<Option<CapId>> {
        if !self.eat(Tok::Colon) {
            return Ok(None);
        }
        match self.bump() {
            (Tok::Cap(n), s) => Ok(Some(self.define(n, kind, s)?)),
            (t, s) => Err((
                format!("expected a capture after `:`, found {}", t.describe()),
                s,
            )),
        }
    }

    // ----- source -----

    fn src_op(&mut self) -> PResult<SrcOp> {
        let open = self.expect(Tok::LParen)?;
        let (name, _) = self.op_name()?;
        self.n_ops += 1;
        let bind = self.bind(CaptureKind::Op)?;
        let mut operands = Vec::new();
        let mut attrs = Vec::new();
        loop {
            match self.peek() {
                Tok::RParen => break,
                Tok::LBrace => {
                    attrs = self.src_attrs()?;
                    break;
                }
                _ => operands.push(self.src_operand()?),
            }
        }
        let close = self.expect(Tok::RParen)?;
        Ok(SrcOp {
            name,
            bind,
            operands,
            attrs,
            span: open.start..close.end,
        })
    }

    fn src_operand(&mut self) -> PResult<SrcOperand> {
        match self.peek() {
            Tok::Cap(n) => {
                let s = self.bump().1;
                Ok(SrcOperand::Capture(self.define(
                    n,
                    CaptureKind::Value,
                    s,
                )?))
            }
            Tok::Underscore => {
                self.bump();
                Ok(SrcOperand::Any)
            }
            Tok::LParen if self.toks[self.pos + 1].0 == Tok::Ident("constant") => {
                self.bump();
                self.bump();
                let value = self.bind(CaptureKind::Value)?;
                let attr = match self.bump() {
                    (Tok::Cap(n), s) => Some(self.define(n, CaptureKind::Attr, s)?),
                    (Tok::Underscore, _) => None,
                    (t, s) => {
                        return Err((
                            format!(
                                "expected a capture for the constant's value, found {}",
                                t.describe()
                            ),
                            s,
                        ))
                    }
                };
                self.expect(Tok::RParen)?;
                Ok(SrcOperand::Constant { value, attr })
            }
            Tok::LParen => Ok(SrcOperand::Op(self.src_op()?)),
            _ => self.error("an operand: `$name`, `_`, `(op ...)` or `(constant $c)`"),
        }
    }

    fn src_attrs(&mut self) -> PResult<Vec<(&'static str, Option<CapId>, Span)>> {
        self.expect(Tok::LBrace)?;
        let mut out = Vec::new();
        loop {
            let (name, s) = match self.bump() {
                (Tok::Ident(n), s) => (n, s),
                (t, s) => {
                    return Err((
                        format!("expected an attribute name, found {}", t.describe()),
                        s,
                    ))
                }
            };
            self.expect(Tok::Eq)?;
            let cap = match self.bump() {
                (Tok::Cap(n), cs) => Some(self.define(n, CaptureKind::Attr, cs)?),
                (Tok::Underscore, _) => None,
                (t, ts) => {
                    return Err((
                        format!(
                            "expected a capture for attribute `{name}`, found {}",
                            t.describe()
                        ),
                        ts,
                    ))
                }
            };
            out.push((name, cap, s));
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBrace)?;
        Ok(out)
    }

    // ----- result and constraints -----

    fn cap_ref(&mut self) -> PResult<CapRef> {
        let (name, s) = match self.bump() {
            (Tok::Cap(n), s) => (n, s),
            (t, s) => return Err((format!("expected a capture, found {}", t.describe()), s)),
        };
        let Some(id) = self.lookup(name) else {
            let known: Vec<String> = self
                .captures
                .iter()
                .map(|c| format!("`${}`", c.name))
                .collect();
            let known = if known.is_empty() {
                "the source binds none".to_string()
            } else {
                format!("the source binds {}", known.join(", "))
            };
            return Err((format!("unknown capture `${name}`: {known}"), s));
        };
        let mut span = s;
        let result = if self.eat(Tok::Hash) {
            let (t, ts) = self.bump();
            span.end = ts.end;
            match t {
                Tok::Int(n) if n >= 0 && self.captures[id].kind == CaptureKind::Op => {
                    Some(n as usize)
                }
                Tok::Int(_) if self.captures[id].kind != CaptureKind::Op => {
                    return Err((format!("`${name}#n` needs `${name}` to name an op"), span))
                }
                _ => return Err(("expected a result number after `#`".into(), ts)),
            }
        } else {
            None
        };
        Ok(CapRef { id, result, span })
    }

    /// A capture used as a value (an operand of a new op, a replacement, a `->` type).
    fn value_ref(&mut self, replaces: bool) -> PResult<CapRef> {
        let r = self.cap_ref()?;
        let c = &self.captures[r.id];
        if c.kind == CaptureKind::Attr {
            return Err((
                format!(
                    "`${}` is an attribute, not a value; build a constant from it",
                    c.name
                ),
                r.span,
            ));
        }
        if replaces && c.is_root {
            return Err((
                format!(
                    "`${}` is the root, which the rewrite replaces; use it only in constraints \
                     or after `->`",
                    c.name
                ),
                r.span,
            ));
        }
        Ok(r)
    }

    fn results(&mut self) -> PResult<Results> {
        if self.eat(Tok::LBracket) {
            let mut list = Vec::new();
            if !self.eat(Tok::RBracket) {
                loop {
                    list.push(self.res_node()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RBracket)?;
            }
            return Ok(Results::List(list));
        }
        Ok(Results::One(self.res_node()?))
    }

    fn res_node(&mut self) -> PResult<ResNode> {
        match self.peek() {
            Tok::Cap(_) => Ok(ResNode::Capture(self.value_ref(true)?)),
            Tok::LParen => Ok(ResNode::Op(self.res_op()?)),
            _ => self.error("a capture or `(op ...)`"),
        }
    }

    fn res_op(&mut self) -> PResult<ResOp> {
        let open = self.expect(Tok::LParen)?;
        if self.peek() == Tok::Ident("constant") {
            return Err((
                "`constant` only matches; build a constant with the dialect's constant op and a \
                 `value` attribute"
                    .into(),
                self.span(),
            ));
        }
        let (name, _) = self.op_name()?;
        let mut operands = Vec::new();
        let mut attrs = Vec::new();
        while matches!(self.peek(), Tok::Cap(_) | Tok::LParen) {
            operands.push(self.res_node()?);
        }
        if self.eat(Tok::LBrace) {
            loop {
                let (aname, s) = match self.bump() {
                    (Tok::Ident(n), s) => (n, s),
                    (t, s) => {
                        return Err((
                            format!("expected an attribute name, found {}", t.describe()),
                            s,
                        ))
                    }
                };
                self.expect(Tok::Eq)?;
                let e = self.attr_expr()?;
                attrs.push((aname, e, s));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RBrace)?;
        }
        let ty = if self.eat(Tok::Arrow) {
            Some(self.value_ref(false)?)
        } else {
            None
        };
        let close = self.expect(Tok::RParen)?;
        Ok(ResOp {
            name,
            operands,
            attrs,
            ty,
            span: open.start..close.end,
        })
    }

    fn attr_expr(&mut self) -> PResult<AttrExpr> {
        match self.peek() {
            Tok::Cap(_) => {
                let r = self.cap_ref()?;
                let c = &self.captures[r.id];
                if c.kind != CaptureKind::Attr {
                    return Err((
                        format!("`${}` is {}, not an attribute", c.name, c.kind.describe()),
                        r.span,
                    ));
                }
                Ok(AttrExpr::Capture(r))
            }
            Tok::Ident(_) => Ok(AttrExpr::Call(self.call(NativeKindTag::Attr)?)),
            _ => self.error("a captured attribute or a native call"),
        }
    }

    fn call(&mut self, want: NativeKindTag) -> PResult<Call> {
        let (name, s) = match self.bump() {
            (Tok::Ident(n), s) => (n, s),
            (t, s) => {
                return Err((
                    format!("expected a native function, found {}", t.describe()),
                    s,
                ))
            }
        };
        let Some(native) = self
            .natives
            .iter()
            .chain(BUILTINS.iter())
            .find(|n| n.name == name)
            .copied()
        else {
            return Err((
                format!(
                    "unknown native function `{name}` (not in the rule's natives nor the builtins)"
                ),
                s,
            ));
        };
        let is_attr = matches!(native.kind, NativeKind::Attr(_));
        match (want, is_attr) {
            (NativeKindTag::Attr, false) => {
                return Err((
                    format!("`{name}` is a constraint, not an attribute builder"),
                    s,
                ))
            }
            (NativeKindTag::Constraint, true) => {
                return Err((
                    format!("`{name}` builds an attribute; a constraint must return a bool"),
                    s,
                ))
            }
            _ => {}
        }
        self.expect(Tok::LParen)?;
        let mut args = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                args.push(self.arg()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
        }
        let span = s.start..self.toks[self.pos - 1].1.end;
        if args.len() != native.arity {
            return Err((
                format!(
                    "`{name}` takes {} argument{}, the rule gives {}",
                    native.arity,
                    if native.arity == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
            ));
        }
        Ok(Call { native, args, span })
    }

    fn arg(&mut self) -> PResult<ArgExpr> {
        match self.peek() {
            Tok::Cap(_) => Ok(ArgExpr::Capture(self.cap_ref()?)),
            Tok::Int(v) => {
                self.bump();
                Ok(ArgExpr::Int(v))
            }
            Tok::Ident(_) => Ok(ArgExpr::Call(self.call(NativeKindTag::Attr)?)),
            _ => self.error("an argument: a capture, an integer or a native call"),
        }
    }
}

#[derive(Clone, Copy)]
enum NativeKindTag {
    Constraint,
    Attr,
}

/// The line (1-based), column (1-based) and text of the line holding byte `at` of `text`.
pub(super) fn line_col(text: &str, at: usize) -> (u32, u32, &str) {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[..at].matches('\n').count() as u32 + 1;
    let col = text[line_start..at].chars().count() as u32 + 1;
    (line, col, &text[line_start..line_end])
}

/// Compiles `text` with `natives` (and the builtins) for the rule `name`.
pub(super) fn compile(
    name: &'static str,
    text: &'static str,
    natives: &[Native],
    origin: Option<(&'static str, u32)>,
) -> Result<Compiled, RuleError> {
    let err = |(message, span): (String, Span)| RuleError::new(name, text, origin, span, message);
    let toks = lex(text).map_err(err)?;
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        natives,
        captures: Vec::new(),
        n_ops: 0,
    };
    let source = p.src_op().map_err(err)?;
    if let Some(id) = source.bind {
        p.captures[id].is_root = true;
    }
    p.expect(Tok::FatArrow).map_err(err)?;
    let results = p.results().map_err(err)?;
    let mut constraints = Vec::new();
    if p.eat(Tok::Ident("if")) {
        loop {
            constraints.push(p.call(NativeKindTag::Constraint).map_err(err)?);
            if !p.eat(Tok::Comma) {
                break;
            }
        }
    }
    if p.peek() != Tok::Eof {
        let what = if constraints.is_empty() {
            "`if`, or the end of the rule"
        } else {
            "`,` or the end of the rule"
        };
        return Err(err((
            format!("expected {what}, found {}", p.peek().describe()),
            p.span(),
        )));
    }
    Ok(Compiled {
        text: p.text,
        root: source.name,
        source,
        results,
        constraints,
        captures: p.captures,
        n_ops: p.n_ops,
    })
}

/// The root op name of a rule that does not compile, if its text starts like a rule.
pub(super) fn scan_root(text: &'static str) -> Option<&'static str> {
    let rest = text.trim_start().strip_prefix('(')?.trim_start();
    let end = rest
        .bytes()
        .position(|c| !is_name_char(c))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    name.contains('.').then_some(name)
}
