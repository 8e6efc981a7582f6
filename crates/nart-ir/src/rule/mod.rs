//! Declarative rewrite rules: a pattern written as a line or two of rule text, in the manner of
//! MLIR's DRR (`Pat<(source), (result), [constraints]>`) and egg's `rewrite!`.
//!
//! ```
//! use nart_ir::rule::Rule;
//!
//! /// `bitcast(bitcast(x)) → bitcast(x)`.
//! pub static BITCAST_OF_BITCAST: Rule =
//!     nart_ir::rule!("BitcastOfBitcast", "(arith.bitcast (arith.bitcast $x)) => (arith.bitcast $x)");
//! ```
//!
//! A [`Rule`] is a [`RewritePattern`]: it goes in an op's `canonicalize` list like a
//! hand-written pattern. Its root is the outermost op of the source, its benefit the number of
//! ops in the source (as in DRR), and a rule that does not apply says why through
//! [`PatternRewriter::match_failure`] ("operand #1 of `arith.addi` is not a constant").
//!
//! # Syntax
//!
//! ```text
//! rule     := source `=>` result (`if` call (`,` call)*)?
//! source   := `(` op-name (`:` $name)? operand* attrs? `)`
//! operand  := $name | `_` | source | `(` `constant` (`:` $name)? ($name | `_`) `)`
//! attrs    := `{` attr-name `=` ($name | `_`) (`,` ...)* `}`
//! result   := node | `[` (node (`,` node)*)? `]`
//! node     := capture | `(` op-name node* (`{` attr-name `=` (capture | call) (`,` ...)* `}`)? (`->` capture)? `)`
//! call     := native-name `(` (capture | integer | call) (`,` ...)* `)`
//! capture  := $name (`#` integer)?
//! ```
//!
//! Whitespace and line breaks are free, and `//` starts a comment that runs to the end of the
//! line.
//!
//! **Source.** `(arith.addi $x $y)` matches an `arith.addi` with two operands, binding them to
//! `$x` and `$y`; a nested `(op ...)` in an operand position matches the op defining that
//! operand. A name used twice must bind the same thing both times:
//! `(arith.select $c (arith.select $c $a $b) $d)` matches only when both conditions are one
//! value. `_` matches anything. `(constant $c)` matches an operand defined by any
//! `ConstantLike` op and binds its `value` attribute to `$c` (`(constant:$v $c)` also binds the
//! operand to `$v`). `{overflowFlags = $f}` binds an attribute (a property or a discardable
//! attribute) of the op; the op must have it. `(op:$r ...)` binds the op itself: as a value it
//! is the result that was matched (the root's result 0), and `$r#1` is its result 1.
//!
//! **Result.** A capture reuses an existing value: `=> $x` replaces the root with `$x`.
//! `(op operands {attrs})` builds a new op; its result types are the root's result types,
//! unless `-> $y` gives it one result of `$y`'s type. A node nested in a new op defaults to
//! the first result type of its parent. Attributes of new ops are captures or calls of native
//! attribute builders; the ones not given get the op's defaults when the op is created.
//! `[a, b]` gives one value per result of a multi-result root, and `[]` erases a root without
//! results.
//! Each replacement must have the type of the root result it replaces, unless that result has
//! no uses (then any value will do, as in DRR's `AddUIExtendedToAddI`).
//! New ops are created before the root, at the fused location of every matched op (as DRR
//! does: `loc(fused[...])`, or the one location when they all share it).
//!
//! **Constraints and natives.** After `if`, each call of a native constraint must hold.
//! Natives are plain Rust functions registered by name in a [`Native`] table given to the rule
//! with [`Rule::natives`]: constraints are `fn(&Context, &[Arg]) -> bool`, attribute builders
//! `fn(&mut Uniquer, &[Arg]) -> Option<Attr>` (`None` is a match failure). A capture is passed
//! as [`Arg::Value`] (with its type) or [`Arg::Attr`], an integer as [`Arg::Int`]. The
//! [`BUILTINS`] (`same_type`, `has_one_use`, `unused`) are always there.
//!
//! ```text
//! // addi(addi(x, c1), c2) → addi(x, c1 + c2), with the overflow flags both ops share
//! (arith.addi (arith.addi $x (constant $c1) {overflowFlags = $f1}) (constant $c2) {overflowFlags = $f2})
//!   => (arith.addi $x (arith.constant {value = add_ints($c1, $c2)}) {overflowFlags = merge_overflow($f1, $f2)})
//!
//! // index_cast(index_cast(x)) → x when the outer result has x's type
//! (arith.index_cast:$r (arith.index_cast $x)) => $x if same_type($r, $x)
//!
//! // xori(extui(x), extui(y)) → extui(xori(x, y))
//! (arith.xori (arith.extui $x) (arith.extui $y)) => (arith.extui (arith.xori $x $y -> $x)) if same_type($x, $y)
//! ```
//!
//! [`FirstOf`] makes one pattern of several rules on the same root, tried in order, for a
//! rewrite known by one name that takes one rule per case.
//!
//! # When a rule is wrong
//!
//! A rule compiles once, the first time it is used; syntax errors, unknown captures in the
//! result or a constraint, unknown natives and natives called with the wrong number of
//! arguments are [`RuleError`]s that point at the token. [`Rule::check`] also compiles the
//! rule and checks it against the registered ops: unknown ops, operand counts, attribute
//! names, required attributes of new ops, and the number of values replacing the root.
//! Every dialect runs `check` on each of its patterns in a unit test
//! ([`RewritePattern::check`] is the generic hook), so a bad rule fails `cargo test`.
//! At canonicalization time a rule never panics: if it did not compile it reports that as its
//! match failure, and anything that cannot be built (a native returning `None`, a replacement
//! of another type than the root's result) is a match failure found before the IR changes.
//!
//! # What a rule cannot say
//!
//! Rules match trees of single ops by name and rewrite the root; they do not look at regions,
//! blocks or successors, match variadic operand lists by position, or erase or update ops
//! other than the root. Such patterns stay hand-written [`RewritePattern`]s.

mod apply;
mod syntax;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use crate::registry::OpDef;
use crate::{Attr, Context, Diagnostic, Op, PatternRewriter, RewritePattern, Type, Uniquer, Value};

use syntax::{Compiled, ResNode, Results, Span};

/// An argument passed to a native function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Arg {
    /// A value capture, with its type.
    Value(Value, Type),
    /// An attribute capture, or the attribute a nested native call built.
    Attr(Attr),
    /// An integer written in the rule.
    Int(i64),
}

impl Arg {
    /// The value, for a value capture.
    pub fn value(self) -> Option<Value> {
        match self {
            Arg::Value(v, _) => Some(v),
            _ => None,
        }
    }

    /// The attribute, for an attribute capture.
    pub fn attr(self) -> Option<Attr> {
        match self {
            Arg::Attr(a) => Some(a),
            _ => None,
        }
    }

    /// The integer, for an integer literal.
    pub fn int(self) -> Option<i64> {
        match self {
            Arg::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The type of a value capture, or of a typed attribute.
    pub fn ty(self, u: &Uniquer) -> Option<Type> {
        match self {
            Arg::Value(_, t) => Some(t),
            Arg::Attr(a) => u.typed_attr_type(a),
            Arg::Int(_) => None,
        }
    }
}

/// A native constraint: whether the captures passed to it are acceptable.
pub type ConstraintFn = fn(&Context, &[Arg]) -> bool;

/// A native attribute builder: a computed attribute, or `None` when it cannot be computed
/// (the rule then does not apply).
pub type AttrFn = fn(&mut Uniquer, &[Arg]) -> Option<Attr>;

/// What a native function does.
#[derive(Clone, Copy, Debug)]
pub enum NativeKind {
    /// A constraint, written after `if`.
    Constraint(ConstraintFn),
    /// An attribute builder, written as an attribute of a new op.
    Attr(AttrFn),
}

/// A Rust function a rule calls by name (DRR's `NativeCodeCall` and `Constraint`).
#[derive(Clone, Copy, Debug)]
pub struct Native {
    /// The name rules call it by.
    pub name: &'static str,
    /// How many arguments it takes.
    pub arity: usize,
    /// The function.
    pub kind: NativeKind,
}

impl Native {
    /// A constraint called `name` taking `arity` arguments.
    pub const fn constraint(name: &'static str, arity: usize, f: ConstraintFn) -> Native {
        Native {
            name,
            arity,
            kind: NativeKind::Constraint(f),
        }
    }

    /// An attribute builder called `name` taking `arity` arguments.
    pub const fn attr(name: &'static str, arity: usize, f: AttrFn) -> Native {
        Native {
            name,
            arity,
            kind: NativeKind::Attr(f),
        }
    }
}

fn same_type(ctx: &Context, args: &[Arg]) -> bool {
    match (args[0].ty(ctx), args[1].ty(ctx)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

fn has_one_use(ctx: &Context, args: &[Arg]) -> bool {
    args[0].value().is_some_and(|v| ctx.uses(v).len() == 1)
}

fn unused(ctx: &Context, args: &[Arg]) -> bool {
    args[0].value().is_some_and(|v| ctx.uses(v).is_empty())
}

/// The natives every rule may call: `same_type(a, b)` (two values or typed attributes of one
/// type), `has_one_use(v)` and `unused(v)`.
pub static BUILTINS: [Native; 3] = [
    Native::constraint("same_type", 2, same_type),
    Native::constraint("has_one_use", 1, has_one_use),
    Native::constraint("unused", 1, unused),
];

/// A rule that is wrong, with the place in its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// The rule's name.
    pub rule: &'static str,
    /// Where the rule is declared (`file!()`, `line!()`), when known.
    pub origin: Option<(&'static str, u32)>,
    /// Line of the rule text (1-based).
    pub line: u32,
    /// Column in that line (1-based).
    pub col: u32,
    /// That line of the rule text.
    pub source_line: String,
    /// How many columns the caret underlines.
    pub len: u32,
    /// What is wrong.
    pub message: String,
}

impl RuleError {
    fn new(
        rule: &'static str,
        text: &str,
        origin: Option<(&'static str, u32)>,
        span: Span,
        message: String,
    ) -> RuleError {
        let (line, col, source_line) = syntax::line_col(text, span.start);
        let len = text
            .get(span.clone())
            .map_or(1, |s| s.lines().next().unwrap_or("").chars().count().max(1));
        RuleError {
            rule,
            origin,
            line,
            col,
            source_line: source_line.to_string(),
            len: len as u32,
            message,
        }
    }

    /// The error as a [`Diagnostic`] at the rule's declaration.
    pub fn to_diagnostic(&self, u: &mut Uniquer) -> Diagnostic {
        let loc = match self.origin {
            Some((file, line)) => u.file_loc(file, line, 1),
            None => u.unknown_loc(),
        };
        Diagnostic::error(loc, self.to_string())
    }
}

impl std::fmt::Display for RuleError {
    /// `file:line: rule `Name`: message`, then the line of the rule text with a caret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some((file, line)) = self.origin {
            write!(f, "{file}:{line}: ")?;
        }
        writeln!(
            f,
            "rule `{}`: {} (rule text {}:{})",
            self.rule, self.message, self.line, self.col
        )?;
        writeln!(f, "  | {}", self.source_line)?;
        let pad: String = self
            .source_line
            .chars()
            .take(self.col as usize - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(f, "  | {pad}{}", "^".repeat(self.len as usize))
    }
}

impl std::error::Error for RuleError {}

/// A declarative rewrite rule (see the module docs); declare it as a `static` with
/// [`rule!`](crate::rule!) or [`Rule::new`].
pub struct Rule {
    name: &'static str,
    text: &'static str,
    natives: &'static [Native],
    benefit: Option<u16>,
    origin: Option<(&'static str, u32)>,
    compiled: OnceLock<Result<Compiled, RuleError>>,
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("name", &self.name)
            .field("text", &self.text)
            .finish()
    }
}

/// Declares a [`Rule`] that knows where it is written, for its error messages:
/// `rule!("Name", "source => result", natives = &NATIVES, benefit = 2)`.
#[macro_export]
macro_rules! rule {
    ($name:expr, $text:expr $(, natives = $natives:expr)? $(, benefit = $benefit:expr)? $(,)?) => {
        $crate::rule::Rule::new($name, $text)
            .at(file!(), line!())
            $(.natives($natives))?
            $(.with_benefit($benefit))?
    };
}

impl Rule {
    /// The rule `name` (after its left-hand side, as patterns are named) written as `text`.
    pub const fn new(name: &'static str, text: &'static str) -> Rule {
        Rule {
            name,
            text,
            natives: &[],
            benefit: None,
            origin: None,
            compiled: OnceLock::new(),
        }
    }

    /// The native functions the rule may call, besides the [`BUILTINS`].
    pub const fn natives(mut self, natives: &'static [Native]) -> Rule {
        self.natives = natives;
        self
    }

    /// Sets the benefit (by default the number of ops in the source).
    pub const fn with_benefit(mut self, benefit: u16) -> Rule {
        self.benefit = Some(benefit);
        self
    }

    /// Records where the rule is declared.
    pub const fn at(mut self, file: &'static str, line: u32) -> Rule {
        self.origin = Some((file, line));
        self
    }

    /// The rule text.
    pub fn text(&self) -> &'static str {
        self.text
    }

    fn compiled(&self) -> Result<&Compiled, &RuleError> {
        self.compiled
            .get_or_init(|| syntax::compile(self.name, self.text, self.natives, self.origin))
            .as_ref()
    }

    /// Compiles the rule (once), reporting what is wrong with its text.
    pub fn compile(&self) -> Result<(), RuleError> {
        self.compiled().map(|_| ()).map_err(Clone::clone)
    }

    fn error(&self, span: Span, message: String) -> RuleError {
        RuleError::new(self.name, self.text, self.origin, span, message)
    }

    /// Compiles the rule and checks it against the ops registered in `ctx`: every op exists,
    /// gets as many operands as it declares, names only attributes it declares, new ops get
    /// their required attributes, and the result gives as many values as the root has results.
    pub fn check(&self, ctx: &Context) -> Result<(), RuleError> {
        let c = self.compiled().map_err(Clone::clone)?;
        let root = self.check_src(ctx, &c.source)?;
        let n_results = fixed_count(root.results);
        let (given, span) = match &c.results {
            Results::One(ResNode::Capture(r)) => (Some(1), r.span.clone()),
            Results::One(ResNode::Op(o)) => {
                self.check_res(ctx, o, n_results)?;
                let def = self.op_def(ctx, o.name, &o.span)?;
                let n = if o.ty.is_some() {
                    Some(1)
                } else {
                    fixed_count(def.results)
                };
                (n, o.span.clone())
            }
            Results::List(l) => {
                for n in l {
                    if let ResNode::Op(o) = n {
                        self.check_res(ctx, o, Some(1))?;
                    }
                }
                (Some(l.len()), c.source.span.clone())
            }
        };
        if let (Some(want), Some(given)) = (n_results, given) {
            if want != given {
                return Err(self.error(
                    span,
                    format!(
                        "`{}` has {want} result{}, the rule replaces {given}",
                        c.root,
                        if want == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
        Ok(())
    }

    fn op_def(&self, ctx: &Context, name: &str, span: &Span) -> Result<&'static OpDef, RuleError> {
        ctx.lookup_ident(name)
            .and_then(|id| ctx.op_def_by_name(id))
            .ok_or_else(|| self.error(span.clone(), format!("unknown op `{name}`")))
    }

    fn check_operands(
        &self,
        def: &OpDef,
        n: usize,
        span: &Span,
        verb: &str,
    ) -> Result<(), RuleError> {
        let (min, max) = count_range(def.operands);
        if n < min || max.is_some_and(|m| n > m) {
            let want = match max {
                Some(m) if m == min => format!("{min}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            return Err(self.error(
                span.clone(),
                format!(
                    "`{}` takes {want} operand{}, the rule {verb} {n}",
                    def.name,
                    if want == "1" { "" } else { "s" }
                ),
            ));
        }
        Ok(())
    }

    fn check_attr(&self, def: &OpDef, name: &str, span: &Span) -> Result<(), RuleError> {
        if def.is_inherent(name) {
            return Ok(());
        }
        let known: Vec<&str> = def.attrs.iter().map(|a| a.name).collect();
        Err(self.error(
            span.clone(),
            format!(
                "`{}` has no attribute `{name}` (it declares {})",
                def.name,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        ))
    }

    fn check_src(&self, ctx: &Context, p: &syntax::SrcOp) -> Result<&'static OpDef, RuleError> {
        let def = self.op_def(ctx, p.name, &p.span)?;
        self.check_operands(def, p.operands.len(), &p.span, "matches")?;
        for (name, _, span) in &p.attrs {
            self.check_attr(def, name, span)?;
        }
        for o in &p.operands {
            if let syntax::SrcOperand::Op(q) = o {
                self.check_src(ctx, q)?;
            }
        }
        Ok(def)
    }

    /// Checks a new op, which gets `n_types` result types (`None`: as many as the root has).
    fn check_res(
        &self,
        ctx: &Context,
        o: &syntax::ResOp,
        n_types: Option<usize>,
    ) -> Result<(), RuleError> {
        let def = self.op_def(ctx, o.name, &o.span)?;
        self.check_operands(def, o.operands.len(), &o.span, "gives")?;
        for (name, _, span) in &o.attrs {
            self.check_attr(def, name, span)?;
        }
        for a in def.attrs {
            let given = o.attrs.iter().any(|(n, _, _)| *n == a.name);
            if !a.optional && a.default.is_none() && !given {
                return Err(self.error(
                    o.span.clone(),
                    format!("`{}` needs attribute `{}`", def.name, a.name),
                ));
            }
        }
        let n_types = if o.ty.is_some() { Some(1) } else { n_types };
        if let (Some(want), Some(have)) = (fixed_count(def.results), n_types) {
            if want != have {
                return Err(self.error(
                    o.span.clone(),
                    format!(
                        "`{}` has {want} result{}, the rule gives it {have} type{}",
                        def.name,
                        if want == 1 { "" } else { "s" },
                        if have == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
        for n in &o.operands {
            if let ResNode::Op(inner) = n {
                self.check_res(ctx, inner, Some(1))?;
            }
        }
        Ok(())
    }
}

/// How many operands a definition takes: (min, max), `None` for no maximum.
fn count_range(defs: &[crate::registry::ValueDef]) -> (usize, Option<usize>) {
    use crate::registry::Arity;
    let mut min = 0;
    let mut max = Some(0);
    for d in defs {
        match d.arity {
            Arity::Single => {
                min += 1;
                max = max.map(|m| m + 1);
            }
            Arity::Optional => max = max.map(|m| m + 1),
            Arity::Variadic => max = None,
        }
    }
    (min, max)
}

/// The number of values of a definition without optional or variadic ones.
fn fixed_count(defs: &[crate::registry::ValueDef]) -> Option<usize> {
    match count_range(defs) {
        (min, Some(max)) if min == max => Some(min),
        _ => None,
    }
}

impl RewritePattern for Rule {
    fn name(&self) -> &'static str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        match self.compiled() {
            Ok(c) => Some(c.root),
            Err(_) => syntax::scan_root(self.text),
        }
    }

    fn benefit(&self) -> u16 {
        self.benefit.unwrap_or_else(|| match self.compiled() {
            Ok(c) => u16::try_from(c.n_ops).unwrap_or(u16::MAX),
            Err(_) => 1,
        })
    }

    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let c = match self.compiled() {
            Ok(c) => c,
            Err(e) => return rw.match_failure(format!("the rule does not compile: {}", e.message)),
        };
        match apply::apply(c, rw, op) {
            Ok(()) => true,
            Err(reason) => rw.match_failure(reason),
        }
    }

    fn check(&self, ctx: &Context) -> Result<(), String> {
        Rule::check(self, ctx).map_err(|e| e.to_string())
    }
}

/// One pattern made of rules tried in order, for a rewrite that takes one rule per case but
/// is known by one name (arith's `TruncIExtToExt`). The rules share its root; its benefit is
/// the highest of theirs, and when none applies its match failure gives each rule's reason.
pub struct FirstOf {
    name: &'static str,
    rules: &'static [&'static Rule],
}

impl FirstOf {
    /// The pattern `name` trying `rules` in order.
    pub const fn new(name: &'static str, rules: &'static [&'static Rule]) -> FirstOf {
        FirstOf { name, rules }
    }
}

impl RewritePattern for FirstOf {
    fn name(&self) -> &'static str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        self.rules.first().and_then(|r| r.root())
    }

    fn benefit(&self) -> u16 {
        self.rules.iter().map(|r| r.benefit()).max().unwrap_or(1)
    }

    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let mut reasons = Vec::new();
        for r in self.rules {
            if r.match_and_rewrite(rw, op) {
                return true;
            }
            let why = rw.take_match_failure().unwrap_or_default();
            reasons.push(format!("{}: {why}", r.name));
        }
        rw.match_failure(reasons.join("; "))
    }

    fn check(&self, ctx: &Context) -> Result<(), String> {
        for r in self.rules {
            Rule::check(r, ctx).map_err(|e| e.to_string())?;
            if r.root() != self.root() {
                return Err(format!(
                    "`{}`: rule `{}` is rooted on `{}`, not `{}`",
                    self.name,
                    r.name,
                    r.root().unwrap_or("any op"),
                    self.root().unwrap_or("any op")
                ));
            }
        }
        Ok(())
    }
}
