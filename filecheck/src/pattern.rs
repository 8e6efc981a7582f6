//! Check patterns: parsing (`{{re}}`, `[[VAR:re]]`, `[[#expr]]`) and matching against the input.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::ere::{self, Dialect};
use crate::expr::{Ast, BinOp, EvalError, Format, FormatKind, NumVar};
use crate::search::{self, Compiled, Piece, RegexCache};
use crate::source::{BufId, Loc};

/// The most string variables a back-reference can name, as in LLVM.
const BACKREF_LIMIT: usize = 20;

/// The literal fast paths (see [`crate::search`]) skip building a regex, so they are taken only
/// for regexes that certainly build: at most this weight ([`ere::Translated::weight`], plus the
/// literal text and substituted values) ...
const FAST_PATH_MAX_WEIGHT: u64 = 10_000;
/// ... and at most this nesting of groups (the Rust parser's limit is 250).
const FAST_PATH_MAX_DEPTH: usize = 64;

/// The kind of a directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// `CHECK:` (and `CHECK-COUNT-n:`).
    Plain,
    /// `CHECK-NEXT:`.
    Next,
    /// `CHECK-SAME:`.
    Same,
    /// `CHECK-NOT:`.
    Not,
    /// `CHECK-DAG:`.
    Dag,
    /// `CHECK-LABEL:`.
    Label,
    /// `CHECK-EMPTY:`.
    Empty,
    /// The implicit end-of-file pattern.
    Eof,
}

/// A directive type: kind, repeat count and modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckTy {
    /// The kind.
    pub kind: CheckKind,
    /// The `-COUNT-n` count (1 otherwise).
    pub count: u32,
    /// The `{LITERAL}` modifier.
    pub literal: bool,
}

impl CheckTy {
    /// A type with count 1 and no modifiers.
    pub fn new(kind: CheckKind) -> CheckTy {
        CheckTy {
            kind,
            count: 1,
            literal: false,
        }
    }

    /// The directive's name with `prefix`, as LLVM prints it (`CHECK-NEXT`).
    pub fn description(&self, prefix: &str) -> String {
        let m = if self.literal { "{LITERAL}" } else { "" };
        let s = match self.kind {
            CheckKind::Plain if self.count > 1 => "-COUNT",
            CheckKind::Plain => "",
            CheckKind::Next => "-NEXT",
            CheckKind::Same => "-SAME",
            CheckKind::Not => "-NOT",
            CheckKind::Dag => "-DAG",
            CheckKind::Label => "-LABEL",
            CheckKind::Empty => "-EMPTY",
            CheckKind::Eof => return "implicit EOF".into(),
        };
        format!("{prefix}{s}{m}")
    }

    /// The abbreviation used in input-dump labels.
    pub fn abbrev(&self) -> &'static str {
        match self.kind {
            CheckKind::Plain if self.count > 1 => "count",
            CheckKind::Plain => "check",
            CheckKind::Next => "next",
            CheckKind::Same => "same",
            CheckKind::Not => "not",
            CheckKind::Dag => "dag",
            CheckKind::Label => "label",
            CheckKind::Empty => "empty",
            CheckKind::Eof => "eof",
        }
    }
}

/// A located error message about a pattern.
#[derive(Clone, Debug)]
pub struct PatDiag {
    /// Where it points.
    pub loc: Loc,
    /// The marked range length.
    pub len: usize,
    /// The message.
    pub msg: String,
    /// Printed through LLVM's `logAllUnhandledErrors`, which adds a blank line.
    pub logged: bool,
    /// Printed as a bare message without a location.
    pub plain: bool,
}

impl PatDiag {
    fn new(loc: Loc, len: usize, msg: impl Into<String>) -> PatDiag {
        PatDiag {
            loc,
            len,
            msg: msg.into(),
            logged: false,
            plain: false,
        }
    }
    fn logged(mut self) -> PatDiag {
        self.logged = true;
        self
    }
}

/// A string variable's value, and the input range it was captured from (`None` when defined
/// on the command line).
pub type Captured = (Vec<u8>, Option<(usize, usize)>);

/// The variables shared by all patterns.
#[derive(Debug, Default)]
pub struct Context {
    /// String variables and their values (with the input range they were captured from).
    pub strings: HashMap<String, Captured>,
    /// Names ever defined as string variables (to catch clashes with numeric ones).
    pub defined_strings: HashSet<String>,
    /// Numeric variable name to index in `nums`.
    pub num_table: HashMap<String, usize>,
    /// All numeric variables.
    pub nums: Vec<NumVar>,
    /// The index of `@LINE`.
    pub line_var: usize,
    /// Compiled regexes, shared by patterns with the same source.
    regexes: RegexCache,
}

impl Context {
    fn make_num(&mut self, name: &str, format: Format, def_line: Option<usize>) -> usize {
        self.nums.push(NumVar {
            name: name.into(),
            format,
            def_line,
            value: None,
            matched: None,
        });
        self.nums.len() - 1
    }

    /// Creates `@LINE`.
    pub fn create_line_var(&mut self) {
        self.line_var = self.make_num("@LINE", Format::UNSIGNED, None);
        self.num_table.insert("@LINE".into(), self.line_var);
    }

    /// Forgets every variable whose name does not start with `$` (`--enable-var-scope`).
    pub fn clear_local_vars(&mut self) {
        self.strings.retain(|k, _| k.starts_with('$'));
        let nums = &mut self.nums;
        self.num_table.retain(|k, v| {
            if k.starts_with('$') {
                true
            } else {
                nums[*v].value = None;
                nums[*v].matched = None;
                false
            }
        });
    }
}

/// A substitution made into the regex at match time.
#[derive(Clone, Debug)]
enum Subst {
    /// `[[NAME]]`.
    Str { name: String, loc: Loc, at: usize },
    /// `[[#expr]]`.
    Num {
        ast: Ast,
        format: Format,
        loc: Loc,
        len: usize,
        at: usize,
    },
}

impl Subst {
    fn at(&self) -> usize {
        match self {
            Subst::Str { at, .. } | Subst::Num { at, .. } => *at,
        }
    }
    fn source_loc(&self) -> (Loc, usize) {
        match self {
            Subst::Str { name, loc, .. } => (*loc, name.len()),
            Subst::Num { loc, len, .. } => (*loc, *len),
        }
    }
}

/// A successful match: position and length relative to the searched buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    /// Start of the match.
    pub pos: usize,
    /// Length of the match.
    pub len: usize,
}

/// The outcome of one match attempt.
#[derive(Debug)]
pub enum MatchResult {
    /// Found (and any errors found after matching).
    Found(Match),
    /// Not found.
    NotFound,
    /// The pattern could not be matched (undefined variable, overflow).
    Error(Vec<PatDiag>),
}

/// One parsed pattern.
#[derive(Debug)]
pub struct Pattern {
    /// The directive type.
    pub ty: CheckTy,
    /// Where the pattern text starts.
    pub loc: Loc,
    /// The check-file line of the directive (`None` for implicit patterns).
    pub line: Option<usize>,
    fixed: Vec<u8>,
    /// The regex in LLVM syntax (used only for fuzzy matching).
    llvm_re: Vec<u8>,
    /// The regex in Rust syntax, before substitutions.
    rust_re: Vec<u8>,
    is_regex: bool,
    substs: Vec<Subst>,
    var_defs: Vec<(String, usize)>,
    num_defs: Vec<(String, usize, usize)>,
    fancy: bool,
    ignore_case: bool,
    /// The compiled regex when there are no substitutions.
    cache: RefCell<Option<Rc<Compiled>>>,
    /// The regex as a concatenation, for the literal fast paths.
    pieces: Vec<Piece>,
    /// The bound on the regex size: translated weights and literal text.
    weight: u64,
    /// The deepest nesting of regex groups.
    depth: usize,
    /// Whether the literal fast paths may be taken (the regex certainly builds, and the engine's
    /// case folding is ASCII's).
    fast_path: bool,
}

/// Options that affect pattern parsing.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseOpts {
    /// `--match-full-lines`.
    pub match_full_lines: bool,
    /// `--strict-whitespace`.
    pub strict_whitespace: bool,
    /// `--ignore-case`.
    pub ignore_case: bool,
}

fn is_space(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// A cursor over a byte range of one buffer: the analogue of LLVM's `StringRef`.
#[derive(Clone, Copy, Debug)]
struct Cur<'a> {
    t: &'a [u8],
    a: usize,
    b: usize,
    buf: BufId,
}

impl<'a> Cur<'a> {
    fn s(&self) -> &'a [u8] {
        &self.t[self.a..self.b]
    }
    fn is_empty(&self) -> bool {
        self.a >= self.b
    }
    fn len(&self) -> usize {
        self.b.saturating_sub(self.a)
    }
    fn first(&self) -> Option<u8> {
        if self.is_empty() {
            None
        } else {
            Some(self.t[self.a])
        }
    }
    fn starts_with(&self, p: &[u8]) -> bool {
        self.s().starts_with(p)
    }
    fn consume(&mut self, p: &[u8]) -> bool {
        if self.starts_with(p) {
            self.a += p.len();
            true
        } else {
            false
        }
    }
    fn ltrim(&mut self) {
        while self.first().is_some_and(is_space) {
            self.a += 1;
        }
    }
    fn rtrim(&mut self) {
        while self.b > self.a && is_space(self.t[self.b - 1]) {
            self.b -= 1;
        }
    }
    fn find(&self, c: u8) -> Option<usize> {
        memchr::memchr(c, self.s())
    }
    fn loc(&self) -> Loc {
        Loc::new(self.buf, self.a)
    }
    fn diag(&self, msg: impl Into<String>) -> PatDiag {
        PatDiag::new(self.loc(), self.len(), msg)
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(self.s()).into_owned()
    }
}

/// The parsed name of a variable.
struct VarName {
    name: String,
    pseudo: bool,
    loc: Loc,
}

fn is_name_start(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphabetic()
}

/// LLVM's `parseVariable`: consumes a (possibly `$`- or `@`-prefixed) name from `s`.
fn parse_variable(s: &mut Cur) -> Result<VarName, PatDiag> {
    if s.is_empty() {
        return Err(s.diag("empty variable name"));
    }
    let start = s.a;
    let pseudo = s.first() == Some(b'@');
    let mut i = start;
    if s.first() == Some(b'$') || pseudo {
        i += 1;
    }
    if i == s.b {
        let rest = Cur { a: i, ..*s };
        return Err(rest.diag(format!(
            "empty {}variable name",
            if pseudo { "pseudo " } else { "global " }
        )));
    }
    if !is_name_start(s.t[i]) {
        return Err(s.diag("invalid variable name"));
    }
    i += 1;
    while i < s.b && (s.t[i] == b'_' || s.t[i].is_ascii_alphanumeric()) {
        i += 1;
    }
    let name = String::from_utf8_lossy(&s.t[start..i]).into_owned();
    s.a = i;
    Ok(VarName {
        name,
        pseudo,
        loc: Loc::new(s.buf, start),
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Allowed {
    LineVar,
    LegacyLiteral,
    Any,
}

/// Parses numeric substitution blocks; holds what the block needs from the context.
struct NumParser<'c> {
    ctx: &'c mut Context,
    line: Option<usize>,
}

/// The result of parsing the inside of `[[# ... ]]`.
struct NumBlock {
    ast: Option<Ast>,
    format: Format,
    def: Option<(String, usize)>,
}

impl NumParser<'_> {
    fn var_use(&mut self, v: &VarName) -> Result<Ast, PatDiag> {
        if v.pseudo && v.name != "@LINE" {
            return Err(PatDiag::new(
                v.loc,
                v.name.len(),
                format!("invalid pseudo numeric variable '{}'", v.name),
            ));
        }
        let idx = match self.ctx.num_table.get(&v.name) {
            Some(&i) => i,
            None => {
                let i = self.ctx.make_num(&v.name, Format::UNSIGNED, None);
                self.ctx.num_table.insert(v.name.clone(), i);
                i
            }
        };
        if let (Some(d), Some(l)) = (self.ctx.nums[idx].def_line, self.line) {
            if d == l {
                return Err(PatDiag::new(
                    v.loc,
                    v.name.len(),
                    format!(
                        "numeric variable '{}' defined earlier in the same CHECK directive",
                        v.name
                    ),
                ));
            }
        }
        Ok(Ast::Var(idx, v.loc, v.name.len()))
    }

    fn operand(
        &mut self,
        e: &mut Cur,
        ao: Allowed,
        maybe_constraint: bool,
    ) -> Result<Ast, PatDiag> {
        if e.starts_with(b"(") {
            if ao != Allowed::Any {
                return Err(e.diag("parenthesized expression not permitted here"));
            }
            return self.paren(e);
        }
        if ao == Allowed::LineVar || ao == Allowed::Any {
            let save = *e;
            match parse_variable(e) {
                Ok(v) => {
                    let mut look = *e;
                    look.ltrim();
                    if look.starts_with(b"(") {
                        if ao != Allowed::Any {
                            return Err(PatDiag::new(
                                v.loc,
                                v.name.len(),
                                "unexpected function call",
                            ));
                        }
                        return self.call(e, &v);
                    }
                    return self.var_use(&v);
                }
                Err(d) => {
                    if ao == Allowed::LineVar {
                        return Err(d);
                    }
                    *e = save;
                }
            }
        }
        let save = *e;
        let neg = e.consume(b"-");
        match consume_integer(e, if ao == Allowed::LegacyLiteral { 10 } else { 0 }) {
            Some(v) => Ok(Ast::Lit(if neg { -v } else { v })),
            None => {
                *e = save;
                Err(save.diag(format!(
                    "invalid {}operand format",
                    if maybe_constraint {
                        "matching constraint or "
                    } else {
                        ""
                    }
                )))
            }
        }
    }

    fn paren(&mut self, e: &mut Cur) -> Result<Ast, PatDiag> {
        e.ltrim();
        e.consume(b"(");
        e.ltrim();
        if e.is_empty() {
            return Err(e.diag("missing operand in expression"));
        }
        let mut sub = self.operand(e, Allowed::Any, false)?;
        e.ltrim();
        while !e.is_empty() && !e.starts_with(b")") {
            let orig = *e;
            sub = self.binop(orig, e, sub, false)?;
            e.ltrim();
        }
        if !e.consume(b")") {
            return Err(e.diag("missing ')' at end of nested expression"));
        }
        Ok(sub)
    }

    fn binop(
        &mut self,
        expr: Cur,
        rest: &mut Cur,
        left: Ast,
        legacy: bool,
    ) -> Result<Ast, PatDiag> {
        rest.ltrim();
        if rest.is_empty() {
            return Ok(left);
        }
        let op_loc = rest.loc();
        let c = rest.t[rest.a];
        rest.a += 1;
        let op = match c {
            b'+' => BinOp::Add,
            b'-' => BinOp::Sub,
            _ => {
                return Err(PatDiag::new(
                    op_loc,
                    0,
                    format!("unsupported operation '{}'", c as char),
                ));
            }
        };
        rest.ltrim();
        if rest.is_empty() {
            return Err(rest.diag("missing operand in expression"));
        }
        let ao = if legacy {
            Allowed::LegacyLiteral
        } else {
            Allowed::Any
        };
        let right = self.operand(rest, ao, false)?;
        let len = rest.a - expr.a;
        Ok(Ast::Bin(
            op,
            Box::new(left),
            Box::new(right),
            expr.loc(),
            len,
        ))
    }

    fn call(&mut self, e: &mut Cur, f: &VarName) -> Result<Ast, PatDiag> {
        e.ltrim();
        let op = match f.name.as_str() {
            "add" => BinOp::Add,
            "div" => BinOp::Div,
            "max" => BinOp::Max,
            "min" => BinOp::Min,
            "mul" => BinOp::Mul,
            "sub" => BinOp::Sub,
            _ => {
                return Err(PatDiag::new(
                    f.loc,
                    f.name.len(),
                    format!("call to undefined function '{}'", f.name),
                ));
            }
        };
        e.consume(b"(");
        e.ltrim();
        let mut args = Vec::new();
        while !e.is_empty() && !e.starts_with(b")") {
            if e.starts_with(b",") {
                return Err(e.diag("missing argument"));
            }
            let outer = *e;
            let mut arg = self.operand(e, Allowed::Any, false)?;
            while !e.is_empty() {
                e.ltrim();
                if e.starts_with(b",") || e.starts_with(b")") {
                    break;
                }
                arg = self.binop(outer, e, arg, false)?;
            }
            args.push(arg);
            e.ltrim();
            if !e.consume(b",") {
                break;
            }
            e.ltrim();
            if e.starts_with(b")") {
                return Err(e.diag("missing argument"));
            }
        }
        if !e.consume(b")") {
            return Err(e.diag("missing ')' at end of call expression"));
        }
        if args.len() == 2 {
            let r = args.pop().unwrap_or(Ast::Lit(0));
            let l = args.pop().unwrap_or(Ast::Lit(0));
            let len = e.a - f.loc.off;
            return Ok(Ast::Bin(op, Box::new(l), Box::new(r), f.loc, len));
        }
        Err(PatDiag::new(
            f.loc,
            f.name.len(),
            format!(
                "function '{}' takes 2 arguments but {} given",
                f.name,
                args.len()
            ),
        ))
    }

    /// LLVM's `parseNumericSubstitutionBlock`.
    fn block(&mut self, mut e: Cur, legacy: bool) -> Result<NumBlock, PatDiag> {
        let mut explicit = Format::NONE;
        let mut precision = 0u32;
        let comma = e.find(b',');
        let paren = e.find(b'(');
        if let Some(fe) = comma.filter(|&c| paren.is_none_or(|p| c < p)) {
            let mut f = Cur { b: e.a + fe, ..e };
            e.a += fe + 1;
            f.ltrim();
            f.rtrim();
            if !f.consume(b"%") {
                return Err(f.diag("invalid matching format specification in expression"));
            }
            let alt_loc = f.loc();
            let alt = f.consume(b"#");
            if f.consume(b".") {
                match consume_integer(&mut f, 10) {
                    Some(p) if (0..=u32::MAX as i128).contains(&p) => precision = p as u32,
                    _ => return Err(f.diag("invalid precision in format specifier")),
                }
            }
            if let Some(c) = f.first() {
                let fmt_loc = f.loc();
                f.a += 1;
                let kind = match c {
                    b'u' => FormatKind::Unsigned,
                    b'd' => FormatKind::Signed,
                    b'x' => FormatKind::HexLower,
                    b'X' => FormatKind::HexUpper,
                    _ => {
                        return Err(PatDiag::new(
                            fmt_loc,
                            0,
                            "invalid format specifier in expression",
                        ))
                    }
                };
                let hex = matches!(kind, FormatKind::HexLower | FormatKind::HexUpper);
                explicit = Format {
                    kind,
                    precision,
                    alt: alt && hex,
                };
            }
            if alt && !matches!(explicit.kind, FormatKind::HexLower | FormatKind::HexUpper) {
                return Err(PatDiag::new(
                    alt_loc,
                    0,
                    "alternate form only supported for hex values",
                ));
            }
            f.ltrim();
            if !f.is_empty() {
                return Err(f.diag("invalid matching format specification in expression"));
            }
        }
        let mut def_expr = None;
        if let Some(d) = e.find(b':') {
            def_expr = Some(Cur { b: e.a + d, ..e });
            e.a += d + 1;
        }
        e.ltrim();
        let constraint = e.consume(b"==");
        e.ltrim();
        let mut ast = None;
        if e.is_empty() {
            if constraint {
                return Err(e.diag("empty numeric expression should not have a constraint"));
            }
        } else {
            e.rtrim();
            let outer = e;
            let ao = if legacy {
                Allowed::LineVar
            } else {
                Allowed::Any
            };
            let mut res = self.operand(&mut e, ao, !constraint)?;
            while !e.is_empty() {
                res = self.binop(outer, &mut e, res, legacy)?;
                if legacy && !e.is_empty() {
                    return Err(e.diag(format!(
                        "unexpected characters at end of expression '{}'",
                        e.text()
                    )));
                }
            }
            ast = Some(res);
        }
        let mut format = explicit;
        if explicit.kind == FormatKind::None {
            if let Some(a) = &ast {
                let nums = &self.ctx.nums;
                let src = e.t;
                let text = |l: Loc, n: usize| -> String {
                    if l.buf == e.buf {
                        String::from_utf8_lossy(&src[l.off..(l.off + n).min(src.len())])
                            .into_owned()
                    } else {
                        String::new()
                    }
                };
                format = a
                    .implicit_format(nums, &text)
                    .map_err(|(l, n, m)| PatDiag::new(l, n, m))?;
            }
        }
        if format.kind == FormatKind::None {
            format = Format {
                kind: FormatKind::Unsigned,
                precision,
                alt: false,
            };
        }
        let mut def = None;
        if let Some(mut d) = def_expr {
            d.ltrim();
            let v = parse_variable(&mut d)?;
            if v.pseudo {
                return Err(PatDiag::new(
                    v.loc,
                    v.name.len(),
                    "definition of pseudo numeric variable unsupported",
                ));
            }
            if self.ctx.defined_strings.contains(&v.name) {
                return Err(PatDiag::new(
                    v.loc,
                    v.name.len(),
                    format!("string variable with name '{}' already exists", v.name),
                ));
            }
            d.ltrim();
            if !d.is_empty() {
                return Err(d.diag("unexpected characters after numeric variable name"));
            }
            let idx = match self.ctx.num_table.get(&v.name) {
                Some(&i) => {
                    if self.ctx.nums[i].format != format {
                        return Err(d.diag("format different from previous variable definition"));
                    }
                    i
                }
                None => self.ctx.make_num(&v.name, format, self.line),
            };
            def = Some((v.name, idx));
        }
        Ok(NumBlock { ast, format, def })
    }
}

/// Whether `c` may start a variable name.
pub fn is_var_start(c: u8) -> bool {
    is_name_start(c)
}

/// Parses the name of a `-DNAME=VALUE` definition found at `t[a..b]` of the defines buffer.
pub fn parse_define_name(t: &[u8], a: usize, b: usize) -> Result<String, PatDiag> {
    let mut c = Cur {
        t,
        a,
        b,
        buf: BufId::Defines,
    };
    let orig = c;
    let v = parse_variable(&mut c).map_err(PatDiag::logged)?;
    if v.pseudo || !c.is_empty() {
        return Err(orig
            .diag(format!(
                "invalid name in string variable definition '{}'",
                orig.text()
            ))
            .logged());
    }
    Ok(v.name)
}

/// Defines a `-D#[FMT,]NAME=EXPR` numeric variable whose `[FMT,]NAME:EXPR` text is `t[a..b]`.
pub fn parse_cmdline_numeric(
    ctx: &mut Context,
    t: &[u8],
    a: usize,
    b: usize,
) -> Result<(), Vec<PatDiag>> {
    let c = Cur {
        t,
        a,
        b,
        buf: BufId::Defines,
    };
    let mut np = NumParser { ctx, line: None };
    let blk = np.block(c, false).map_err(|d| vec![d.logged()])?;
    let Some(ast) = blk.ast else {
        return Err(vec![PatDiag::new(
            Loc::new(BufId::Defines, b),
            0,
            "missing numeric expression in definition",
        )]);
    };
    let v = match ast.eval(&ctx.nums) {
        Ok(v) => v,
        Err(EvalError::Overflow) => return Err(vec![overflow(Loc::new(BufId::Defines, a), b - a)]),
        Err(EvalError::Undef(list)) => {
            return Err(list
                .iter()
                .map(|(l, n, i)| {
                    let mut d = undef(ctx, *l, *n, *i).logged();
                    d.plain = true;
                    d
                })
                .collect())
        }
    };
    if let Some((name, idx)) = blk.def {
        ctx.nums[idx].value = Some(v);
        ctx.num_table.insert(name, idx);
    }
    Ok(())
}

/// LLVM's `consumeInteger` with radix 0 (auto-detect) or 10, on an arbitrary-width value.
fn consume_integer(e: &mut Cur, radix: u32) -> Option<i128> {
    let mut s = *e;
    let mut radix = radix;
    if radix == 0 {
        if s.consume(b"0x") || s.consume(b"0X") {
            radix = 16;
        } else if s.consume(b"0b") || s.consume(b"0B") {
            radix = 2;
        } else if s.consume(b"0o") {
            radix = 8;
        } else if s.starts_with(b"0") && s.s().get(1).is_some_and(|c| c.is_ascii_digit()) {
            s.a += 1;
            radix = 8;
        } else {
            radix = 10;
        }
    }
    let start = s.a;
    let mut v: i128 = 0;
    while let Some(c) = s.first() {
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 10,
            b'A'..=b'Z' => (c - b'A') as u32 + 10,
            _ => break,
        };
        if d >= radix {
            break;
        }
        v = v.checked_mul(radix as i128)?.checked_add(d as i128)?;
        s.a += 1;
    }
    if s.a == start {
        return None;
    }
    *e = s;
    Some(v)
}

/// LLVM's `FindRegexVarEnd`: the offset of the `]]` closing a substitution block.
fn find_var_end(s: &[u8]) -> Result<Option<usize>, usize> {
    let mut i = 0;
    let mut depth = 0usize;
    while i < s.len() {
        if s[i..].starts_with(b"]]") && depth == 0 {
            return Ok(Some(i));
        }
        if s[i] == b'\\' {
            i += 2;
            continue;
        }
        match s[i] {
            b'[' => depth += 1,
            b']' => {
                if depth == 0 {
                    return Err(i);
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(None)
}

/// Why parsing a pattern failed: either a located diagnostic or an already fatal one.
#[derive(Debug)]
pub enum ParseError {
    /// Print this and fail with exit status 2.
    Diag(PatDiag),
    /// LLVM exits immediately (status 1) after printing this.
    Exit(PatDiag),
}

impl From<PatDiag> for ParseError {
    fn from(d: PatDiag) -> Self {
        ParseError::Diag(d)
    }
}

impl Pattern {
    /// The implicit EOF pattern.
    pub fn eof(loc: Loc, line: usize) -> Pattern {
        Pattern::empty(CheckTy::new(CheckKind::Eof), loc, Some(line))
    }

    fn empty(ty: CheckTy, loc: Loc, line: Option<usize>) -> Pattern {
        Pattern {
            ty,
            loc,
            line,
            fixed: Vec::new(),
            llvm_re: Vec::new(),
            rust_re: Vec::new(),
            is_regex: false,
            substs: Vec::new(),
            var_defs: Vec::new(),
            num_defs: Vec::new(),
            fancy: false,
            ignore_case: false,
            cache: RefCell::new(None),
            pieces: Vec::new(),
            weight: 0,
            depth: 0,
            fast_path: false,
        }
    }

    /// Whether the pattern defines or uses a variable (forbidden in `CHECK-LABEL`).
    pub fn has_variable(&self) -> bool {
        !(self.substs.is_empty() && self.var_defs.is_empty())
    }

    /// The repeat count.
    pub fn count(&self) -> u32 {
        self.ty.count
    }

    /// Parses the pattern text `text[start..end]` of buffer `buf`.
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        ctx: &mut Context,
        ty: CheckTy,
        buf: BufId,
        text: &[u8],
        start: usize,
        end: usize,
        line: Option<usize>,
        prefix: &str,
        opts: ParseOpts,
    ) -> Result<Pattern, ParseError> {
        let mut p = Pattern::empty(ty, Loc::new(buf, start), line);
        p.ignore_case = opts.ignore_case;
        let full_lines = opts.match_full_lines && ty.kind != CheckKind::Not;
        let mut s = Cur {
            t: text,
            a: start,
            b: end,
            buf,
        };
        if !(opts.strict_whitespace && opts.match_full_lines) {
            s.rtrim();
        }
        if s.is_empty() && ty.kind != CheckKind::Empty {
            return Err(PatDiag::new(
                p.loc,
                0,
                format!("found empty check string with prefix '{prefix}:'"),
            )
            .into());
        }
        if !s.is_empty() && ty.kind == CheckKind::Empty {
            return Err(PatDiag::new(
                p.loc,
                0,
                format!("found non-empty check string for empty check with prefix '{prefix}:'"),
            )
            .into());
        }
        if ty.kind == CheckKind::Empty {
            p.is_regex = true;
            p.llvm_re = b"(\n$)".to_vec();
            p.rust_re = b"(\\n$)".to_vec();
            p.pieces.push(Piece::Regex);
            return Ok(p);
        }
        if ty.literal {
            p.fixed = s.s().to_vec();
            return Ok(p);
        }
        let has = |n: &[u8]| memchr::memmem::find(s.s(), n).is_some();
        if !full_lines && (s.len() < 2 || (!has(b"{{") && !has(b"[["))) {
            p.fixed = s.s().to_vec();
            return Ok(p);
        }
        p.is_regex = true;
        // First pass decides the dialect: back-references need the fancy engine.
        let dialect = if pattern_needs_backrefs(s.s()) {
            Dialect::Fancy
        } else {
            Dialect::Bytes
        };
        p.fancy = dialect == Dialect::Fancy;
        if full_lines {
            p.pieces.push(Piece::Regex);
            p.llvm_re.push(b'^');
            p.rust_re.push(b'^');
            if !opts.strict_whitespace {
                p.llvm_re.extend_from_slice(b" *");
                p.rust_re.extend_from_slice(b" *");
            }
        }
        let mut cur_paren = 1usize;
        while !s.is_empty() {
            if s.starts_with(b"{{") {
                let Some(e) = memchr::memmem::find(s.s(), b"}}") else {
                    return Err(PatDiag::new(
                        s.loc(),
                        0,
                        "found start of regex string with no end '}}'",
                    )
                    .into());
                };
                let alternation = memchr::memchr(b'|', s.s()).is_some();
                if alternation {
                    p.llvm_re.push(b'(');
                    p.rust_re.push(b'(');
                    cur_paren += 1;
                }
                let frag = Cur {
                    a: s.a + 2,
                    b: s.a + e,
                    ..s
                };
                p.pieces.push(Piece::Regex);
                p.add_regex(frag, &mut cur_paren, dialect)?;
                if alternation {
                    p.llvm_re.push(b')');
                    p.rust_re.push(b')');
                }
                s.a += e + 2;
                continue;
            }
            if s.starts_with(b"[[") && !s.starts_with(b"[[[") {
                let unparsed = Cur { a: s.a + 2, ..s };
                let end = match find_var_end(unparsed.s()) {
                    Ok(e) => e,
                    Err(at) => {
                        return Err(ParseError::Exit(PatDiag::new(
                            Loc::new(buf, unparsed.a + at),
                            0,
                            "missing closing \"]\" for regex variable",
                        )));
                    }
                };
                let Some(end) = end else {
                    return Err(PatDiag::new(
                        s.loc(),
                        0,
                        "Invalid substitution block, no ]] found",
                    )
                    .into());
                };
                let mut m = Cur {
                    b: unparsed.a + end,
                    ..unparsed
                };
                let mut is_num = m.consume(b"#");
                s.a = unparsed.a + end + 2;
                let mut is_def = false;
                let mut subst_needed = false;
                let mut legacy = false;
                let mut def_name = String::new();
                let mut subst_name = String::new();
                let mut subst_loc = m.loc();
                let mut match_re: Option<Cur> = None;
                let mut wildcard = String::new();
                let subst_at = p.rust_re.len();
                let mut subst_at = subst_at;
                if !is_num {
                    let var_end = m.find(b':');
                    let upto = var_end.unwrap_or(m.len());
                    if let Some(sp) = m.s()[..upto].iter().position(|&c| is_space(c)) {
                        return Err(PatDiag::new(
                            Loc::new(buf, m.a + sp),
                            0,
                            "unexpected whitespace",
                        )
                        .into());
                    }
                    let orig = m;
                    let v = parse_variable(&mut m).map_err(PatDiag::logged)?;
                    is_def = var_end.is_some();
                    subst_needed = !is_def;
                    if is_def {
                        if v.pseudo || !m.consume(b":") {
                            return Err(PatDiag::new(
                                v.loc,
                                0,
                                "invalid name in string variable definition",
                            )
                            .into());
                        }
                        if ctx.num_table.contains_key(&v.name) {
                            return Err(PatDiag::new(
                                v.loc,
                                0,
                                format!("numeric variable with name '{}' already exists", v.name),
                            )
                            .into());
                        }
                        def_name = v.name;
                        match_re = Some(m);
                    } else if v.pseudo {
                        m = orig;
                        legacy = true;
                        is_num = true;
                    } else {
                        if !m.is_empty() {
                            return Err(PatDiag::new(
                                v.loc,
                                0,
                                "invalid name in string variable use",
                            )
                            .into());
                        }
                        subst_name = v.name;
                        subst_loc = v.loc;
                    }
                }
                let mut num_block = None;
                if is_num {
                    let mut np = NumParser { ctx, line };
                    let blk = np.block(m, legacy).map_err(PatDiag::logged)?;
                    subst_needed = blk.ast.is_some();
                    if let Some((n, _)) = &blk.def {
                        is_def = true;
                        def_name = n.clone();
                    }
                    if !subst_needed {
                        wildcard = blk.format.wildcard();
                    }
                    num_block = Some(blk);
                }
                if is_def {
                    p.llvm_re.push(b'(');
                    p.rust_re.push(b'(');
                    subst_at += 1;
                    if let Some(blk) = &num_block {
                        if let Some((n, idx)) = &blk.def {
                            p.num_defs.retain(|(k, _, _)| k != n);
                            p.num_defs.push((n.clone(), *idx, cur_paren));
                            ctx.num_table.insert(n.clone(), *idx);
                        }
                    } else {
                        p.var_defs.retain(|(k, _)| *k != def_name);
                        p.var_defs.push((def_name.clone(), cur_paren));
                        ctx.defined_strings.insert(def_name.clone());
                    }
                    cur_paren += 1;
                }
                if let Some(re) = match_re {
                    if !re.is_empty() {
                        p.add_regex(re, &mut cur_paren, dialect)?;
                    }
                } else if !wildcard.is_empty() {
                    let w = wildcard.as_bytes();
                    let wc = Cur {
                        t: w,
                        a: 0,
                        b: w.len(),
                        buf,
                    };
                    p.add_regex(wc, &mut cur_paren, dialect)?;
                }
                if is_def {
                    p.llvm_re.push(b')');
                    p.rust_re.push(b')');
                    p.pieces.push(Piece::Regex);
                } else if !subst_needed {
                    // A numeric block without an expression matches its format's wildcard.
                    p.pieces.push(Piece::Regex);
                }
                if subst_needed {
                    let same_line = if is_num {
                        None
                    } else {
                        p.var_defs
                            .iter()
                            .find(|(k, _)| *k == subst_name)
                            .map(|(_, g)| *g)
                    };
                    if let Some(g) = same_line {
                        if !(1..=BACKREF_LIMIT).contains(&g) {
                            return Err(PatDiag::new(
                                subst_loc,
                                0,
                                format!("Can't back-reference more than {BACKREF_LIMIT} variables"),
                            )
                            .into());
                        }
                        p.llvm_re.extend_from_slice(format!("\\{g}").as_bytes());
                        p.rust_re.extend_from_slice(format!("\\{g}").as_bytes());
                        p.pieces.push(Piece::Regex);
                    } else if let Some(blk) = num_block {
                        let len = m.len();
                        let ast = blk.ast.unwrap_or(Ast::Lit(0));
                        p.pieces.push(if is_def {
                            Piece::Regex
                        } else {
                            Piece::Subst(p.substs.len())
                        });
                        p.substs.push(Subst::Num {
                            ast,
                            format: blk.format,
                            loc: m.loc(),
                            len,
                            at: subst_at,
                        });
                    } else {
                        p.pieces.push(Piece::Subst(p.substs.len()));
                        p.substs.push(Subst::Str {
                            name: subst_name,
                            loc: subst_loc,
                            at: subst_at,
                        });
                    }
                }
                continue;
            }
            // A fixed run up to the next `{{` or `[[`.
            let rest = &s.s()[1..];
            let next = [
                memchr::memmem::find(rest, b"{{"),
                memchr::memmem::find(rest, b"[["),
            ]
            .into_iter()
            .flatten()
            .min()
            .map_or(s.len(), |x| x + 1);
            let lit = &s.s()[..next];
            p.pieces.push(Piece::Lit(lit.to_vec()));
            p.weight += lit.len() as u64;
            for &c in lit {
                if b"()^$|*+?.[]\\{}".contains(&c) {
                    p.llvm_re.push(b'\\');
                }
                p.llvm_re.push(c);
            }
            ere::push_literal_str(&mut p.rust_re, lit, dialect);
            s.a += next;
        }
        if full_lines {
            if !opts.strict_whitespace {
                p.llvm_re.extend_from_slice(b" *");
                p.rust_re.extend_from_slice(b" *");
            }
            p.llvm_re.push(b'$');
            p.rust_re.push(b'$');
            p.pieces.push(Piece::Regex);
        }
        // The pattern adds up to two groups around its fragments and a few atoms of its own.
        p.weight = p.weight.saturating_add(8);
        p.fast_path = p.weight <= FAST_PATH_MAX_WEIGHT
            && p.depth + 2 <= FAST_PATH_MAX_DEPTH
            && !(p.fancy && p.ignore_case);
        Ok(p)
    }

    fn add_regex(
        &mut self,
        re: Cur,
        cur_paren: &mut usize,
        dialect: Dialect,
    ) -> Result<(), PatDiag> {
        let mut out = Vec::new();
        match ere::translate(re.s(), *cur_paren - 1, &mut out, dialect) {
            Ok(t) => {
                self.llvm_re.extend_from_slice(re.s());
                self.rust_re.extend_from_slice(&out);
                *cur_paren += t.groups;
                self.weight = self.weight.saturating_add(t.weight);
                self.depth = self.depth.max(t.depth);
                Ok(())
            }
            Err(m) => Err(PatDiag::new(re.loc(), 0, format!("invalid regex: {m}"))),
        }
    }

    /// The rendered value of each substitution, for "with X equal to Y" notes.
    pub fn substitution_notes(
        &self,
        ctx: &Context,
        check_text: &dyn Fn(Loc, usize) -> String,
    ) -> Vec<String> {
        let mut v = Vec::new();
        for sub in &self.substs {
            let (l, n) = sub.source_loc();
            let from = check_text(l, n);
            let val = match sub {
                Subst::Str { name, .. } => match ctx.strings.get(name) {
                    Some((val, _)) => {
                        let needs = val.iter().any(|&c| !(0x20..0x7f).contains(&c) || c == b'"');
                        if needs {
                            format!("\"{}\" (escaped value)", escape(val))
                        } else {
                            format!("\"{}\"", String::from_utf8_lossy(val))
                        }
                    }
                    None => continue,
                },
                Subst::Num { ast, format, .. } => {
                    match ast.eval(&ctx.nums).ok().and_then(|x| format.render(x)) {
                        Some(s) => format!("\"{s}\""),
                        None => continue,
                    }
                }
            };
            v.push(format!(
                "with \"{}\" equal to {}",
                escape(from.as_bytes()),
                val
            ));
        }
        v
    }

    /// Variables this pattern captured in its last match, sorted by input position.
    pub fn captures(&self, ctx: &Context) -> Vec<(String, (usize, usize))> {
        let mut v = Vec::new();
        for (n, _) in &self.var_defs {
            if let Some((_, Some(r))) = ctx.strings.get(n) {
                v.push((n.clone(), *r));
            }
        }
        for (n, idx, _) in &self.num_defs {
            if let Some(r) = ctx.nums[*idx].matched {
                v.push((n.clone(), r));
            }
        }
        v.sort_by_key(|(_, r)| r.0);
        v
    }

    /// Matches the pattern in `buf`, which starts at input offset `base`.
    pub fn match_in(&self, ctx: &mut Context, buf: &[u8], base: usize) -> MatchResult {
        if self.ty.kind == CheckKind::Eof {
            return MatchResult::Found(Match {
                pos: buf.len(),
                len: 0,
            });
        }
        if !self.is_regex {
            return literal_match(buf, &self.fixed, self.ignore_case);
        }
        let values = match self.substitute(ctx) {
            Ok(v) => v,
            Err(errs) => return MatchResult::Error(errs),
        };
        let values_len: usize = values.iter().map(Vec::len).sum();
        if self.rust_re.is_empty() && values_len == 0 {
            // Only empty substitutions: LLVM's regcomp rejects the empty regex, so nothing matches.
            return MatchResult::NotFound;
        }
        if self.fast_path && self.weight.saturating_add(values_len as u64) <= FAST_PATH_MAX_WEIGHT {
            let runs = search::literal_runs(&self.pieces, &values);
            if search::is_literal(&self.pieces) && !self.fancy {
                // Literal text and substituted values only: the regex is that string.
                let lit = runs.concat();
                return literal_match(buf, &lit, self.ignore_case);
            }
            // Every match contains each run; the fancy engine sees a lossy UTF-8 copy of `buf`,
            // where only ASCII is sure to sit where it was.
            let required = runs
                .iter()
                .filter(|r| !self.fancy || r.is_ascii())
                .max_by_key(|r| r.len());
            if let Some(r) = required {
                if search::find_literal(buf, r, self.ignore_case).is_none() {
                    return MatchResult::NotFound;
                }
            }
        }
        let re = if self.substs.is_empty() {
            let cached = self.cache.borrow().clone();
            match cached {
                Some(c) => c,
                None => {
                    let c = ctx.regexes.get(&self.rust_re, self.fancy, self.ignore_case);
                    *self.cache.borrow_mut() = Some(c.clone());
                    c
                }
            }
        } else {
            let src = self.splice(&values);
            ctx.regexes.get(&src, self.fancy, self.ignore_case)
        };
        let groups: Vec<Option<(usize, usize)>> = match &*re {
            Compiled::Invalid(m) => {
                return MatchResult::Error(vec![PatDiag::new(
                    self.loc,
                    0,
                    format!("invalid regex: {m}"),
                )])
            }
            Compiled::Bytes(r) => {
                let mut locs = r.capture_locations();
                if r.captures_read(&mut locs, buf).is_none() {
                    return MatchResult::NotFound;
                }
                (0..locs.len()).map(|i| locs.get(i)).collect()
            }
            Compiled::Fancy(r) => {
                // `from_utf8` checks ASCII a word at a time; the lossy iterator goes byte by byte.
                let text = match std::str::from_utf8(buf) {
                    Ok(t) => std::borrow::Cow::Borrowed(t),
                    Err(_) => String::from_utf8_lossy(buf),
                };
                match r.captures(&text) {
                    Ok(Some(c)) => (0..c.len())
                        .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                        .collect(),
                    _ => return MatchResult::NotFound,
                }
            }
        };
        let Some((ms, me)) = groups.first().copied().flatten() else {
            return MatchResult::NotFound;
        };
        for (name, g) in &self.var_defs {
            let (a, b) = groups.get(*g).copied().flatten().unwrap_or((ms, ms));
            ctx.strings.insert(
                name.clone(),
                (buf[a..b].to_vec(), Some((base + a, base + b))),
            );
        }
        let skip = usize::from(self.ty.kind == CheckKind::Empty);
        for (name, idx, g) in &self.num_defs {
            let (a, b) = groups.get(*g).copied().flatten().unwrap_or((ms, ms));
            let var = &mut ctx.nums[*idx];
            var.value = var.format.parse_value(&buf[a..b]);
            var.matched = Some((base + a, base + b));
            ctx.num_table.entry(name.clone()).or_insert(*idx);
        }
        MatchResult::Found(Match {
            pos: ms + skip,
            len: me - ms - skip,
        })
    }

    /// The value of each substitution, in order, or every error met evaluating them.
    fn substitute(&self, ctx: &mut Context) -> Result<Vec<Vec<u8>>, Vec<PatDiag>> {
        if self.substs.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(l) = self.line {
            ctx.nums[ctx.line_var].value = Some(l as i128);
        }
        let mut values = Vec::with_capacity(self.substs.len());
        let mut errs = Vec::new();
        for sub in &self.substs {
            let value: Result<Vec<u8>, PatDiag> = match sub {
                Subst::Str { name, loc, .. } => match ctx.strings.get(name) {
                    Some((v, _)) => Ok(v.clone()),
                    None => Err(PatDiag::new(
                        *loc,
                        name.len(),
                        format!("undefined variable: {name}"),
                    )),
                },
                Subst::Num {
                    ast,
                    format,
                    loc,
                    len,
                    ..
                } => match ast.eval(&ctx.nums) {
                    Ok(v) => format
                        .render(v)
                        .map(String::into_bytes)
                        .ok_or_else(|| overflow(*loc, *len)),
                    Err(EvalError::Overflow) => Err(overflow(*loc, *len)),
                    Err(EvalError::Undef(list)) => {
                        for (l, n, i) in &list[..list.len() - 1] {
                            errs.push(undef(ctx, *l, *n, *i));
                        }
                        let (l, n, i) = list[list.len() - 1];
                        Err(undef(ctx, l, n, i))
                    }
                },
            };
            match value {
                Ok(v) => values.push(v),
                Err(d) => errs.push(d),
            }
        }
        if errs.is_empty() {
            Ok(values)
        } else {
            Err(errs)
        }
    }

    /// The Rust regex with the substituted values inserted as literals.
    fn splice(&self, values: &[Vec<u8>]) -> Vec<u8> {
        let dialect = if self.fancy {
            Dialect::Fancy
        } else {
            Dialect::Bytes
        };
        let mut src =
            Vec::with_capacity(self.rust_re.len() + values.iter().map(Vec::len).sum::<usize>());
        let mut from = 0;
        for (sub, v) in self.substs.iter().zip(values) {
            src.extend_from_slice(&self.rust_re[from..sub.at()]);
            ere::push_literal_str(&mut src, v, dialect);
            from = sub.at();
        }
        src.extend_from_slice(&self.rust_re[from..]);
        src
    }

    /// LLVM's `computeMatchDistance`: edit distance between the start of `buf` and the pattern.
    pub fn match_distance(&self, buf: &[u8]) -> usize {
        let ex: &[u8] = if self.fixed.is_empty() {
            &self.llvm_re
        } else {
            &self.fixed
        };
        let mut pre = &buf[..ex.len().min(buf.len())];
        if let Some(nl) = memchr::memchr(b'\n', pre) {
            pre = &pre[..nl];
        }
        edit_distance(pre, ex)
    }

    /// The size used to bound fuzzy matching.
    pub fn fuzzy_size(&self) -> usize {
        self.fixed.len().max(self.llvm_re.len())
    }
}

fn overflow(loc: Loc, len: usize) -> PatDiag {
    PatDiag::new(
        loc,
        len,
        "unable to substitute variable or numeric expression: overflow error",
    )
}

fn undef(ctx: &Context, loc: Loc, len: usize, idx: usize) -> PatDiag {
    PatDiag::new(
        loc,
        len,
        format!("undefined variable: {}", ctx.nums[idx].name),
    )
}

/// Whether the pattern uses a string variable defined earlier on the same line, or a `\N` inside `{{}}`.
fn pattern_needs_backrefs(s: &[u8]) -> bool {
    let mut defs: Vec<&[u8]> = Vec::new();
    let mut i = 0;
    while i + 1 < s.len() {
        if s[i..].starts_with(b"{{") {
            let Some(e) = memchr::memmem::find(&s[i..], b"}}") else {
                return false;
            };
            let frag = &s[i + 2..i + e];
            let mut j = 0;
            while j + 1 < frag.len() {
                if frag[j] == b'\\' {
                    if (b'1'..=b'9').contains(&frag[j + 1]) {
                        return true;
                    }
                    j += 2;
                } else {
                    j += 1;
                }
            }
            i += e + 2;
        } else if s[i..].starts_with(b"[[") && !s[i..].starts_with(b"[[[") {
            let Ok(Some(e)) = find_var_end(&s[i + 2..]) else {
                return false;
            };
            let body = &s[i + 2..i + 2 + e];
            if !body.starts_with(b"#") {
                match memchr::memchr(b':', body) {
                    Some(c) => defs.push(&body[..c]),
                    None => {
                        if defs.contains(&body) {
                            return true;
                        }
                    }
                }
                if body.contains(&b'\\')
                    && body
                        .windows(2)
                        .any(|w| w[0] == b'\\' && w[1].is_ascii_digit())
                {
                    return true;
                }
            }
            i += e + 4;
        } else {
            i += 1;
        }
    }
    false
}

/// LLVM's `raw_ostream::write_escaped`: other unprintable bytes as three octal digits.
fn escape(s: &[u8]) -> String {
    let mut out = String::new();
    for &c in s {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'"' => out.push_str("\\\""),
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\{c:03o}")),
        }
    }
    out
}

#[cfg(test)]
impl Pattern {
    /// Turns the literal fast paths off, to compare them with the regex.
    pub(crate) fn disable_fast_path(&mut self) {
        self.fast_path = false;
    }

    /// Whether the pattern is searched as a literal string once substituted.
    pub(crate) fn is_literal_fast_path(&self) -> bool {
        self.fast_path && !self.fancy && search::is_literal(&self.pieces)
    }

    /// Whether the pattern has literal runs for the prefilter (text or substitutions).
    pub(crate) fn is_prefiltered(&self) -> bool {
        self.fast_path && self.pieces.iter().any(|p| *p != Piece::Regex)
    }
}

/// The first occurrence of a literal as a match.
fn literal_match(buf: &[u8], lit: &[u8], ignore_case: bool) -> MatchResult {
    match search::find_literal(buf, lit, ignore_case) {
        Some(pos) => MatchResult::Found(Match {
            pos,
            len: lit.len(),
        }),
        None => MatchResult::NotFound,
    }
}

/// Levenshtein distance, as LLVM's `StringRef::edit_distance` with replacements allowed.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_at(ctx: &mut Context, s: &str, line: usize) -> Result<Pattern, ParseError> {
        let t = s.as_bytes();
        Pattern::parse(
            ctx,
            CheckTy::new(CheckKind::Plain),
            BufId::Check,
            t,
            0,
            t.len(),
            Some(line),
            "CHECK",
            ParseOpts::default(),
        )
    }

    fn parse(ctx: &mut Context, s: &str) -> Result<Pattern, ParseError> {
        parse_at(ctx, s, 1)
    }

    #[test]
    fn matches_vars_and_backrefs() {
        let mut ctx = Context::default();
        ctx.create_line_var();
        let p = parse(&mut ctx, "x [[V:[a-z]+]] [[V]]").unwrap();
        match p.match_in(&mut ctx, b"q x ab ab", 0) {
            MatchResult::Found(m) => assert_eq!((m.pos, m.len), (2, 7)),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(ctx.strings["V"].0, b"ab");
        assert!(matches!(
            parse(&mut ctx, "[[#%x,N:]] [[#N+1]]"),
            Err(ParseError::Diag(_))
        ));
        let p = parse_at(&mut ctx, "[[#%x,M:]]", 2).unwrap();
        assert!(matches!(
            p.match_in(&mut ctx, b"ff", 0),
            MatchResult::Found(_)
        ));
        let q = parse_at(&mut ctx, "[[#M+1]]", 3).unwrap();
        assert!(matches!(
            q.match_in(&mut ctx, b"100", 0),
            MatchResult::Found(_)
        ));
    }

    #[test]
    fn backreferences_search_a_lossy_copy_of_invalid_utf8() {
        let mut ctx = Context::default();
        ctx.create_line_var();
        let p = parse(&mut ctx, "[[X:a]]{{.}}[[X]]").unwrap();
        // Valid text is searched as it is.
        match p.match_in(&mut ctx, "bé aéa".as_bytes(), 0) {
            MatchResult::Found(m) => assert_eq!((m.pos, m.len), (4, 4)),
            other => panic!("unexpected {other:?}"),
        }
        // Invalid bytes become U+FFFD (three bytes), and positions are the copy's (a known
        // difference from LLVM, documented in docs/filecheck.md).
        match p.match_in(&mut ctx, b"b a\xffa", 0) {
            MatchResult::Found(m) => assert_eq!((m.pos, m.len), (2, 5)),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn edit_distance_works() {
        assert_eq!(edit_distance(b"kitten", b"sitting"), 3);
    }
}
